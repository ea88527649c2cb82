import { GitHubError } from './github-error.js';

/**
 * The request option that turns the client's retries off for one request (@octokit/plugin-retry
 * reads `request.retries`): for writes that create something GitHub has no key for.
 */
export const NO_RETRY = { request: { retries: 0 } } as const;

/**
 * Whether an error leaves unknown if GitHub acted: a 5xx (GitHub may have written, then failed
 * to answer), or no answer at all (Octokit reports a dropped connection as a 500). A 4xx is a
 * refusal: nothing was written.
 */
export function outcomeUnknown(e: unknown): e is GitHubError {
  return e instanceof GitHubError && e.kind !== 'rate-limited' && e.status >= 500;
}

/**
 * A write that creates something GitHub has no key for (an issue, a comment): a second POST
 * after a lost answer makes a second one. So it is never retried blind: it is sent with the
 * client's retries off, and when the answer leaves unknown whether GitHub acted, what it would
 * have made is looked for (`find`) and sent again only when it is not there. Twice unknown and
 * still not found, or a look that fails: the write's error, for the caller's next delivery or
 * round to reconcile by reading.
 */
export async function createOnce<T>(send: () => Promise<T>, find: () => Promise<T | undefined>, tries = 2): Promise<T> {
  let last: GitHubError | undefined;
  for (let attempt = 0; attempt < tries; attempt++) {
    try {
      return await send();
    } catch (e) {
      if (!outcomeUnknown(e)) throw e;
      last = e;
    }
    // A look that fails leaves the outcome unknown: the write's own error says so, and nothing is sent again.
    const found = await find().catch(() => {
      throw last!;
    });
    if (found !== undefined) return found;
  }
  throw last!;
}
