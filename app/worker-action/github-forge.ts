import { PAGE_SIZE } from '../engine/forge/limits.js';
import { isStatusLabel, LABEL_PLAN, specLabel } from '../engine/forge/names.js';
import { parseMarker } from '../engine/forge/plan-issue.js';
import type { IssueComment, PlanIssue, PullRequestInput, PullRequestRef, WorkerForge } from './worker-forge.js';
import { HarnessError } from '../engine/core/error.js';

/**
 * The one call the forge makes: Octokit's `request` (route and parameters). Taking the function
 * rather than a client keeps this file free of @actions/github, and lets tests pass any Octokit.
 */
export type GitHubRequest = (route: string, params?: Record<string, unknown>) => Promise<{ data: unknown }>;

export interface Repository {
  owner: string;
  repo: string;
}

export class GitHubForgeError extends HarnessError {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

interface ApiLabel {
  name?: string;
}
interface ApiIssue {
  number: number;
  title: string;
  body?: string | null;
  state: 'open' | 'closed';
  html_url: string;
  labels: (string | ApiLabel)[];
  pull_request?: unknown;
}
interface ApiComment {
  id: number;
  body?: string | null;
  user: { login: string; type: string } | null;
  author_association: string;
  created_at: string;
  html_url: string;
}
interface ApiPull {
  number: number;
  html_url: string;
}

/** Why a request failed, in words a person can act on (the worker's token is the usual cause). */
function hint(status: number | undefined): string {
  if (status === 403 || status === 404) {
    return ' (does the token have issues: write, pull-requests: write and contents: write? the worker workflow must grant them in `permissions:`)';
  }
  return '';
}

export class GitHubForge implements WorkerForge {
  constructor(
    private readonly request: GitHubRequest,
    private readonly repository: Repository,
  ) {}

  private async call<T>(route: string, params: Record<string, unknown> = {}): Promise<T> {
    try {
      return (await this.request(route, { ...this.repository, ...params })).data as T;
    } catch (e) {
      const status = (e as { status?: unknown }).status;
      const code = typeof status === 'number' ? status : undefined;
      throw new GitHubForgeError(`${route} failed${code === undefined ? '' : ` (${code})`}: ${(e as Error).message}${hint(code)}`, code);
    }
  }

  /** Every page of a list: a short page is the last one. */
  private async all<T>(route: string, params: Record<string, unknown> = {}): Promise<T[]> {
    const items: T[] = [];
    for (let page = 1; ; page++) {
      const batch = await this.call<T[]>(route, { ...params, per_page: PAGE_SIZE, page });
      items.push(...batch);
      if (batch.length < PAGE_SIZE) return items;
    }
  }

  async listPlanIssues(spec: string): Promise<Map<string, PlanIssue>> {
    const issues = await this.all<ApiIssue>('GET /repos/{owner}/{repo}/issues', { labels: `${LABEL_PLAN},${specLabel(spec)}`, state: 'all' });
    // Sync keeps one issue per plan; should a second appear, the open one (then the oldest) is the plan's.
    const ordered = issues
      .filter((i) => i.pull_request === undefined)
      .sort((a, b) => (a.state === b.state ? a.number - b.number : a.state === 'open' ? -1 : 1));
    const byPlan = new Map<string, PlanIssue>();
    for (const issue of ordered) {
      const marker = parseMarker(issue.body);
      if (marker?.spec !== spec || byPlan.has(marker.plan)) continue;
      byPlan.set(marker.plan, {
        number: issue.number,
        title: issue.title,
        state: issue.state,
        url: issue.html_url,
        labels: issue.labels.map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter((l) => l !== ''),
      });
    }
    return byPlan;
  }

  async listComments(issue: number): Promise<IssueComment[]> {
    const comments = await this.all<ApiComment>('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { issue_number: issue });
    return comments.map(toComment);
  }

  async comment(issue: number, body: string): Promise<IssueComment> {
    return toComment(await this.call<ApiComment>('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { issue_number: issue, body }));
  }

  async setStatusLabel(issue: PlanIssue, label: string): Promise<void> {
    // Added before the others go, so the issue never shows no status at all.
    if (!issue.labels.includes(label)) await this.call('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', { issue_number: issue.number, labels: [label] });
    for (const other of issue.labels.filter((l) => isStatusLabel(l) && l !== label)) {
      try {
        await this.call('DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', { issue_number: issue.number, name: other });
      } catch (e) {
        // Someone (or the app) took it off already: the state wanted is reached.
        if (!(e instanceof GitHubForgeError && e.status === 404)) throw e;
      }
    }
    issue.labels = [...issue.labels.filter((l) => !isStatusLabel(l)), label];
  }

  async openPullRequest(input: PullRequestInput): Promise<PullRequestRef> {
    const existing = await this.openPullFor(input);
    if (existing) {
      await this.call('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', { pull_number: existing.number, title: input.title, body: input.body });
      return { number: existing.number, url: existing.html_url, created: false };
    }
    try {
      const pull = await this.call<ApiPull>('POST /repos/{owner}/{repo}/pulls', { head: input.head, base: input.base, title: input.title, body: input.body });
      return { number: pull.number, url: pull.html_url, created: true };
    } catch (e) {
      // 422 also means "A pull request already exists": another run of this plan opened it meanwhile.
      if (!(e instanceof GitHubForgeError && e.status === 422)) throw e;
      const raced = await this.openPullFor(input);
      if (!raced) throw e;
      await this.call('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', { pull_number: raced.number, title: input.title, body: input.body });
      return { number: raced.number, url: raced.html_url, created: false };
    }
  }

  private async openPullFor(input: PullRequestInput): Promise<ApiPull | undefined> {
    const pulls = await this.call<ApiPull[]>('GET /repos/{owner}/{repo}/pulls', { head: `${this.repository.owner}:${input.head}`, base: input.base, state: 'open', per_page: PAGE_SIZE });
    return pulls[0];
  }
}

function toComment(c: ApiComment): IssueComment {
  return {
    id: c.id,
    body: c.body ?? '',
    author: c.user?.login ?? 'ghost',
    authorType: c.user?.type ?? 'User',
    association: c.author_association,
    createdAt: c.created_at,
    url: c.html_url,
  };
}
