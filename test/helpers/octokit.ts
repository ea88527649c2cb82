import { ProbotOctokit } from 'probot';

/** Probot's Octokit with throttling and retries off: Probot 14 only honours the function form. */
export const TestOctokit = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  throttle: { ...(options.throttle as object), enabled: false },
  retry: { enabled: false },
}));

/** A real Octokit outside Probot (as the worker has one), retries and throttling off: nock sees its real requests. */
export function testOctokit(token = 'test-token'): InstanceType<typeof TestOctokit> {
  return new TestOctokit({ auth: { token } });
}
