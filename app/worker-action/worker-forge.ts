/**
 * What the worker needs from GitHub, and nothing more: the plan's issue and its comments, a
 * comment and a status label at a checkpoint, and the plan's pull request. The Actions entry
 * point implements it with the gateway to GitHub (github-forge.ts); the logic never sees a
 * client.
 */

export interface PlanIssue {
  number: number;
  title: string;
  labels: string[];
  url: string;
  state: 'open' | 'closed';
}

export interface IssueComment {
  id: number;
  body: string;
  author: string;
  /** GitHub's user type: "User", "Bot", "Organization". */
  authorType: string;
  /** OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, … */
  association: string;
  createdAt: string;
  url: string;
}

export interface PullRequestRef {
  number: number;
  url: string;
  /** False when an open one for the branch was there already (and was brought up to date). */
  created: boolean;
}

export interface PullRequestInput {
  head: string;
  base: string;
  title: string;
  body: string;
}

export interface WorkerForge {
  /** The spec's plan issues (labels harness:plan and spec:<id>), by the plan their marker names. */
  listPlanIssues(spec: string): Promise<Map<string, PlanIssue>>;
  /** Every comment of an issue, oldest first. */
  listComments(issue: number): Promise<IssueComment[]>;
  comment(issue: number, body: string): Promise<IssueComment>;
  /** Give the issue this status label and no other status label. */
  setStatusLabel(issue: PlanIssue, label: string): Promise<void>;
  /** Open the pull request from head into base, or update the open one there is. */
  openPullRequest(input: PullRequestInput): Promise<PullRequestRef>;
}
