import { RequestError } from '@octokit/request-error';
import { HarnessError } from '../engine/core/error.js';

/**
 * Whose token the requests carry, which decides what a refusal means: the App's installation
 * token has the permissions of app.yml (once an owner accepted them), the worker's
 * `GITHUB_TOKEN` those its workflow job grants in `permissions:`.
 */
export type TokenKind = 'app' | 'workflow' | 'person';

/** What went wrong, by what a caller does about it. */
export type GitHubErrorKind = 'unauthorized' | 'forbidden' | 'rate-limited' | 'not-found' | 'conflict' | 'gone' | 'unprocessable' | 'server' | 'other';

/**
 * A request GitHub answered with an error (or that never got an answer: Octokit reports a
 * network failure as status 500). Callers decide on `status` or `kind`; the message names
 * the route and says what to do about it.
 */
export class GitHubError extends HarnessError {
  constructor(
    /** The route as called, `POST /repos/{owner}/{repo}/git/refs`. */
    readonly route: string,
    readonly status: number,
    readonly kind: GitHubErrorKind,
    /** GitHub's own message (`Reference already exists`). */
    readonly reason: string,
    /** What usually causes this answer to this route, and what to do; empty when nothing helps but trying again. */
    readonly hint: string,
    options?: ErrorOptions,
  ) {
    super(`${route} answered ${status}: ${reason}${hint ? `. ${hint}` : ''}`, options);
  }

  /** GitHub's message and the hint, without the route: for an answer to a person. */
  get explanation(): string {
    return `${this.reason}${this.hint ? `. ${this.hint}` : ''}`;
  }
}

/** The permission a route needs, as a workflow's `permissions:` and app.yml's `default_permissions` name it. */
const PERMISSIONS: { route: RegExp; workflow: string; app: string }[] = [
  { route: /\/check-runs|\/check-suites/, workflow: 'checks', app: 'checks' },
  { route: /\/actions\//, workflow: 'actions', app: 'actions' },
  { route: /\/pulls/, workflow: 'pull-requests', app: 'pull_requests' },
  { route: /\/issues|\/labels/, workflow: 'issues', app: 'issues' },
  { route: /\/git\/|\/contents\/|\/compare\/|\/commits\//, workflow: 'contents', app: 'contents' },
  { route: /\/collaborators\//, workflow: 'metadata', app: 'metadata' },
];

function permissionHint(route: string, token: TokenKind): string {
  const found = PERMISSIONS.find((p) => p.route.test(route));
  const access = route.startsWith('GET ') ? 'read' : 'write';
  if (token === 'person') {
    const grant = found ? `\`${found.app}: ${access}\`` : 'the permission this route needs';
    return `your token (GITHUB_TOKEN) needs ${grant} on this repository: a fine-grained token lists it under Repository permissions, a classic one needs the \`repo\` scope`;
  }
  if (token === 'workflow') {
    const grant = found ? `\`${found.workflow}: ${access}\`` : 'the permission this route needs';
    return `the worker workflow's job must grant ${grant} in \`permissions:\` (templates/workflows/harness-worker.yml grants contents, pull-requests and issues write)`;
  }
  const grant = found ? `\`${found.app}: ${access}\`` : 'the permission this route needs';
  return `the App needs ${grant} (app.yml, default_permissions) and must be installed on this repository; after a permission is added, an owner accepts it in the installation's settings`;
}

/** What a 422 usually means, route by route: GitHub's message rarely names the cause. */
const UNPROCESSABLE: { route: RegExp; hint: string }[] = [
  { route: /^POST .*\/git\/refs$/, hint: 'The branch exists already (another delivery claimed it first), or the sha is not a commit of this repository' },
  { route: /^DELETE .*\/git\/refs\//, hint: 'The branch does not exist: it was deleted already' },
  { route: /^PATCH .*\/git\/refs\//, hint: 'The branch moved meanwhile (the new commit does not descend from where it is now), or it does not exist' },
  { route: /^GET .*\/commits\/[^/]+\/check-runs$/, hint: 'No commit or branch of that name: nothing ran on it' },
  {
    route: /\/check-runs/,
    hint: "A field is over GitHub's limits (output text 65,535 characters, 50 annotations a request, 3 actions, a label 20 characters) or not one it takes",
  },
  { route: /\/dispatches$/, hint: 'The workflow on that ref has no `workflow_dispatch` trigger, or was sent an input it does not declare' },
  { route: /\/dependencies\//, hint: 'GitHub refused this dependency: it would close a cycle, is already there, or names an issue it cannot link' },
  { route: /^POST .*\/pulls$/, hint: 'A pull request from this head into this base exists already, or the head has no commit the base lacks' },
  { route: /^POST \/repos\/[^/]+\/[^/]+\/labels$/, hint: 'A label of that name exists already' },
  { route: /\/issues/, hint: 'GitHub refused a title, body (at most 65,536 characters) or label of the issue' },
];

const CONFLICT: { route: RegExp; hint: string }[] = [
  { route: /\/cancel$/, hint: 'The run has finished already: there is nothing to cancel' },
  { route: /\/git\//, hint: 'The repository is empty, or the branch moved meanwhile' },
];

function rateLimited(e: RequestError): string | undefined {
  const headers = e.response?.headers ?? {};
  if (e.status === 429 || /secondary rate limit/i.test(e.message)) {
    const after = headers['retry-after'];
    return `GitHub's secondary rate limit: too many requests too fast; wait ${after ? `${String(after)} seconds` : 'a minute'} before writing again`;
  }
  if (e.status === 403 && String(headers['x-ratelimit-remaining']) === '0') {
    const reset = Number(headers['x-ratelimit-reset']);
    return `This token's hourly rate limit is spent${Number.isFinite(reset) ? ` until ${new Date(reset * 1000).toISOString()}` : ''}; what failed can be done again then`;
  }
  return undefined;
}

function classify(e: RequestError, route: string, token: TokenKind): { kind: GitHubErrorKind; hint: string } {
  const limited = rateLimited(e);
  if (limited) return { kind: 'rate-limited', hint: limited };
  const permission = permissionHint(route, token);
  switch (e.status) {
    case 401:
      return {
        kind: 'unauthorized',
        hint:
          token === 'app'
            ? "The installation token was refused: check the App's id and private key, and that it is still installed"
            : token === 'person'
              ? 'Your token (GITHUB_TOKEN) was refused: it is wrong, expired or revoked; make a new one'
              : "The workflow's token was refused: pass `${{ github.token }}` as the `token` input",
      };
    case 403:
      return { kind: 'forbidden', hint: `${permission[0]!.toUpperCase()}${permission.slice(1)}` };
    case 404:
      // GitHub answers 404, not 403, where the token may not even know the thing exists.
      return { kind: 'not-found', hint: `Either it does not exist, or ${permission}` };
    case 409:
      return { kind: 'conflict', hint: CONFLICT.find((c) => c.route.test(route))?.hint ?? 'It changed meanwhile: read it again' };
    case 410:
      return { kind: 'gone', hint: 'GitHub has turned this off for the repository (issues disabled?) or deleted it' };
    case 422:
      return { kind: 'unprocessable', hint: UNPROCESSABLE.find((u) => u.route.test(route))?.hint ?? 'GitHub refused the content of the request as invalid' };
  }
  // A 5xx (or no answer at all): nothing to do but try again, which each caller words its own way.
  return { kind: e.status >= 500 ? 'server' : 'other', hint: '' };
}

/**
 * Octokit's RequestError. Known by its shape too (name `HttpError`, a numeric status): a
 * second copy of @octokit/request-error in the dependency tree would throw its own class,
 * and a failure missed here would reach callers that decide on the status.
 */
function isRequestError(e: unknown): e is RequestError {
  if (e instanceof RequestError) return true;
  return e instanceof Error && e.name === 'HttpError' && typeof (e as Partial<RequestError>).status === 'number';
}

/**
 * The one place an HTTP failure becomes a harness error: a RequestError (what Octokit throws
 * for any answer but 2xx, and for a request that got none) becomes a GitHubError for `route`.
 * Anything else is no HTTP failure, and comes back as it was.
 */
export function gitHubError(e: unknown, route: string, token: TokenKind): unknown {
  if (e instanceof GitHubError || !isRequestError(e)) return e;
  const { kind, hint } = classify(e, route, token);
  return new GitHubError(route, e.status, kind, e.message, hint, { cause: e });
}

/** Is `e` GitHub's answer with one of these statuses? */
export function hasStatus(e: unknown, ...statuses: number[]): e is GitHubError {
  return e instanceof GitHubError && statuses.includes(e.status);
}
