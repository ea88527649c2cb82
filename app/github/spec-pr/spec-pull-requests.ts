import type { Probot } from 'probot';
import { handleSpecPullRequest } from './handle-spec-pr.js';

/** Step 1 of docs/github-flow.md: spec PRs are validated, and their plans synced to issues. */
export function specPullRequests(app: Probot): void {
  app.on(['pull_request.opened', 'pull_request.synchronize', 'pull_request.reopened'], handleSpecPullRequest);
}
