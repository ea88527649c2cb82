import type { Octokit } from '@octokit/core';
import { ProbotOctokit } from 'probot';
import { checkAgainstOpenApi, FAKE_HEADER } from './github-openapi.js';

/**
 * Every REST request a test's Octokit sends to api.github.com, with the status it was answered,
 * held to GitHub's OpenAPI description (github-openapi.ts): the requests the App and the worker
 * make against a test's own nock interceptors are checked as those the fake GitHub serves are.
 * An answer from the fake GitHub (github-repo.ts) carries FAKE_HEADER: the fake checked it already.
 */
function openApiCheck(octokit: Octokit): void {
  octokit.hook.wrap('request', async (request, options) => {
    const { method, url, body } = octokit.request.endpoint.parse(options);
    const sent = new URL(url);
    const check = (status: number | undefined, headers: Record<string, unknown> | undefined) => {
      if (sent.origin !== 'https://api.github.com' || sent.pathname === '/graphql' || headers?.[FAKE_HEADER] !== undefined) return;
      checkAgainstOpenApi({ method, url: `${sent.pathname}${sent.search}`, body, status }, 'a test\u2019s Octokit (test/helpers/octokit.ts)');
    };
    try {
      const response = await request(options);
      check(response.status, response.headers);
      return response;
    } catch (e) {
      const failed = e as { status?: number; response?: { headers?: Record<string, unknown> } };
      // No status: no answer at all (a connection refused or dropped, nock with no interceptor for it).
      check(failed.response ? failed.status : undefined, failed.response?.headers);
      throw e;
    }
  });
}

/** Probot's Octokit with throttling and retries off: Probot 14 only honours the function form. */
export const TestOctokit = ProbotOctokit.plugin(openApiCheck).defaults((options: Record<string, unknown>) => ({
  ...options,
  throttle: { ...(options.throttle as object), enabled: false },
  retry: { enabled: false },
}));

/** A real Octokit outside Probot (as the worker has one), retries and throttling off: nock sees its real requests. */
export function testOctokit(token = 'test-token'): InstanceType<typeof TestOctokit> {
  return new TestOctokit({ auth: { token } });
}
