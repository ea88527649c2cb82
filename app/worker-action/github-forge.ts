import { gateway, type Gateway } from '../gateway/gateway.js';
import type { GitHubRequest, Repo } from '../gateway/request.js';
import type { CommentRecord } from '../gateway/comments.js';
import { isStatusLabel, STATUS_VALUES, type StatusValue } from '../engine/forge/names.js';
import type { IssueComment, PlanIssue, PullRequestInput, PullRequestRef, WorkerForge } from './worker-forge.js';
import { WorkerError } from './worker-run.js';

/** The one function the forge is built on, as before the gateway: Octokit's `request`. */
export type { GitHubRequest } from '../gateway/request.js';

function toComment(c: CommentRecord): IssueComment {
  return { id: c.id, body: c.body, author: c.author, authorType: c.authorType, association: c.association, createdAt: c.createdAt, url: c.url };
}

function statusOf(label: string): StatusValue {
  const status = label.slice('status:'.length);
  if (!isStatusLabel(label) || !(STATUS_VALUES as readonly string[]).includes(status)) throw new WorkerError(`"${label}" is not a harness status label`);
  return status as StatusValue;
}

/**
 * The worker's forge: the gateway (app/gateway), with the worker's `GITHUB_TOKEN`, seen
 * through WorkerForge. The plan's issue is the gateway's (the same rule as the App's), and
 * a failure is the gateway's GitHubError, its hint naming the `permissions:` to grant.
 */
export class GitHubForge implements WorkerForge {
  private readonly github: Gateway;

  constructor(request: GitHubRequest, repository: Repo) {
    this.github = gateway(request, repository, 'workflow');
  }

  async listPlanIssues(spec: string): Promise<Map<string, PlanIssue>> {
    const { byPlan } = await this.github.planIssues(spec);
    return new Map([...byPlan].map(([plan, i]) => [plan, { number: i.number, title: i.title, labels: i.labels, url: i.url, state: i.state }]));
  }

  async listComments(issue: number): Promise<IssueComment[]> {
    return (await this.github.comments(issue)).map(toComment);
  }

  async comment(issue: number, body: string): Promise<IssueComment> {
    return toComment(await this.github.comment(issue, body));
  }

  async setStatusLabel(issue: PlanIssue, label: string): Promise<void> {
    issue.labels = await this.github.setStatus(issue, statusOf(label));
  }

  async openPullRequest(input: PullRequestInput): Promise<PullRequestRef> {
    return this.github.openPullRequest(input);
  }
}
