import { ProbotOctokit } from 'probot';
import { DO_NOT_RETRY } from '../gateway/client.js';

/**
 * Probot's Octokit as the App runs it, as a server (server.ts) and on Actions (actions/app):
 * Probot's throttling plugin off, since the App keeps GitHub's limits with the one limiter every
 * client of harness's has (gateway/limit-model.ts, through conditional.ts: each installation's
 * share of every limit, and a request GitHub refuses for a limit anyway asked again after the
 * wait it gives); Probot's retries on, as every client's (gateway/client.ts). Probot 14 only
 * honours the function form of `defaults`.
 */
export const AppOctokit: typeof ProbotOctokit = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  throttle: { ...(options.throttle as object | undefined), enabled: false },
  retry: { ...(options.retry as object | undefined), doNotRetry: DO_NOT_RETRY },
}));
