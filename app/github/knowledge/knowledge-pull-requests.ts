import type { Probot } from 'probot';
import { onKnowledgePullRequest } from './knowledge-check-run.js';
import { onSkillPullRequestClosed } from './skill-review.js';

/** The knowledge pull requests' events: the `harness / knowledge` check on each push, and a skill's review when its PR closes. */
export function knowledgePullRequests(app: Pick<Probot, 'on'>): void {
  app.on(['pull_request.opened', 'pull_request.synchronize', 'pull_request.reopened'], onKnowledgePullRequest);
  app.on('pull_request.closed', onSkillPullRequestClosed);
}
