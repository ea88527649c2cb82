import { hasStatus } from './github-error.js';
import { PAGE_SIZE } from './limits.js';
import { paginate } from './paginate.js';
import type { GatewayRequest, Repo } from './request.js';

export interface PullRequestInfo {
  number: number;
  baseRef: string;
  /** `owner/name` of the base repository. */
  baseRepo: string;
  headRef: string;
  /** `owner/name` of the head's repository; null when that repository was deleted. */
  headRepo: string | null;
  /** Open or closed, and whether it was merged (a closed one may not be). */
  state: 'open' | 'closed';
  merged: boolean;
}

/** A pull request as a list shows it. */
export interface PullRequestSummary {
  number: number;
  url: string;
  state: 'open' | 'closed';
  mergedAt: string | null;
  /** The commit its head branch pointed at (for a closed one: when it was closed). */
  headSha?: string;
  createdAt?: string;
  /** Its labels' names, as the list answered them. */
  labels?: string[];
}

interface RawPull {
  number: number;
  html_url: string;
  state?: string;
  merged_at?: string | null;
  head?: { sha?: string };
  created_at?: string;
  labels?: ({ name?: string } | string)[];
}

function toSummary(p: RawPull): PullRequestSummary {
  return {
    number: p.number,
    url: p.html_url,
    state: p.state === 'closed' ? 'closed' : 'open',
    mergedAt: p.merged_at ?? null,
    ...(p.head?.sha === undefined ? {} : { headSha: p.head.sha }),
    ...(p.created_at === undefined ? {} : { createdAt: p.created_at }),
    ...(p.labels === undefined ? {} : { labels: p.labels.map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter(Boolean) }),
  };
}

/** GET /repos/{owner}/{repo}/pulls/{pull_number} */
export async function getPullRequest(request: GatewayRequest, repo: Repo, number: number): Promise<PullRequestInfo> {
  const { data } = await request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...repo, pull_number: number });
  return {
    number: data.number,
    baseRef: data.base.ref,
    baseRepo: data.base.repo.full_name,
    headRef: data.head.ref,
    headRepo: data.head.repo?.full_name ?? null,
    state: data.state === 'closed' ? 'closed' : 'open',
    merged: data.merged === true,
  };
}

/** A file a pull request changes: its path, what happened to it, and its blob at the head (none when removed). */
export interface PullRequestFile {
  path: string;
  status: string;
  sha?: string;
}

/** The files a pull request changes: GET /repos/{owner}/{repo}/pulls/{pull_number}/files?per_page=100, every page. */
export async function pullRequestFileEntries(request: GatewayRequest, repo: Repo, number: number): Promise<PullRequestFile[]> {
  const files = await paginate<{ filename: string; status?: string; sha?: string | null }>(request, 'GET /repos/{owner}/{repo}/pulls/{pull_number}/files', {
    ...repo,
    pull_number: number,
    per_page: PAGE_SIZE,
  });
  return files.map((f) => ({ path: f.filename, status: f.status ?? 'modified', ...(f.status !== 'removed' && f.sha ? { sha: f.sha } : {}) }));
}

/** The paths a pull request changes (pullRequestFileEntries). */
export async function pullRequestFiles(request: GatewayRequest, repo: Repo, number: number): Promise<string[]> {
  return (await pullRequestFileEntries(request, repo, number)).map((f) => f.path);
}

export interface PullRequestQuery {
  /** The head branch, in this repository (the query names it `owner:branch`). */
  head: string;
  base?: string;
  state: 'open' | 'closed' | 'all';
}

/**
 * GET /repos/{owner}/{repo}/pulls?head=<owner>:<branch>[&base=]&state=&per_page=100: the pull
 * requests of one head branch. One page: a branch has a few, never a hundred.
 */
export async function listPullRequests(request: GatewayRequest, repo: Repo, query: PullRequestQuery): Promise<PullRequestSummary[]> {
  const { data } = await request('GET /repos/{owner}/{repo}/pulls', {
    ...repo,
    head: `${repo.owner}:${query.head}`,
    ...(query.base !== undefined ? { base: query.base } : {}),
    state: query.state,
    per_page: PAGE_SIZE,
  });
  return (data as RawPull[]).map(toSummary);
}

export interface NewPullRequest {
  head: string;
  base: string;
  title: string;
  body: string;
}

/** POST /repos/{owner}/{repo}/pulls (201). GitHub answers 422 when one for the same head and base is open already. */
export async function createPullRequest(request: GatewayRequest, repo: Repo, pull: NewPullRequest): Promise<PullRequestSummary> {
  const { data } = await request('POST /repos/{owner}/{repo}/pulls', { ...repo, title: pull.title, head: pull.head, base: pull.base, body: pull.body });
  return toSummary(data as RawPull);
}

/** PATCH /repos/{owner}/{repo}/pulls/{pull_number}: a new body, and a new title when one is given. */
export async function updatePullRequest(request: GatewayRequest, repo: Repo, number: number, text: { title?: string; body: string }): Promise<void> {
  await request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
    ...repo,
    pull_number: number,
    ...(text.title === undefined ? {} : { title: text.title }),
    body: text.body,
  });
}

/** What openPullRequest did: `created` false when an open one was there already and was brought up to date. */
export interface OpenedPullRequest {
  number: number;
  url: string;
  created: boolean;
}

/**
 * The open pull request from `head` into `base`, made to say `title` and `body`: the one
 * there is (listed, then updated), or a new one. A 422 on the create is another run of the
 * same plan having opened it meanwhile: it is listed again and updated.
 */
export async function openPullRequest(request: GatewayRequest, repo: Repo, pull: NewPullRequest): Promise<OpenedPullRequest> {
  const openOne = async () => (await listPullRequests(request, repo, { head: pull.head, base: pull.base, state: 'open' }))[0];
  const update = async (found: PullRequestSummary): Promise<OpenedPullRequest> => {
    await updatePullRequest(request, repo, found.number, pull);
    return { number: found.number, url: found.url, created: false };
  };
  const existing = await openOne();
  if (existing) return update(existing);
  try {
    const created = await createPullRequest(request, repo, pull);
    return { number: created.number, url: created.url, created: true };
  } catch (e) {
    if (!hasStatus(e, 422)) throw e;
    const raced = await openOne();
    if (!raced) throw e;
    return update(raced);
  }
}

/** A review comment on a pull request's diff, as GitHub lists it (the fields harness reads). */
export interface ReviewComment {
  id: number;
  author: string;
  authorType: string;
  body: string;
  path: string;
  /** The line it was written on, in the file at `originalCommit` (its right side); null for a comment on a file. */
  originalLine: number | null;
  originalCommit: string;
  side: 'LEFT' | 'RIGHT';
  createdAt: string;
  url: string;
}

interface RawReviewComment {
  id: number;
  user: { login: string; type?: string } | null;
  body: string;
  path: string;
  original_line?: number | null;
  original_commit_id: string;
  side?: string;
  created_at: string;
  html_url: string;
}

/** The review comments of a pull request, oldest first: GET /repos/{owner}/{repo}/pulls/{pull_number}/comments?per_page=100, every page. */
export async function reviewComments(request: GatewayRequest, repo: Repo, number: number): Promise<ReviewComment[]> {
  const raw = await paginate<RawReviewComment>(request, 'GET /repos/{owner}/{repo}/pulls/{pull_number}/comments', {
    ...repo,
    pull_number: number,
    per_page: PAGE_SIZE,
  });
  return raw.map((c) => ({
    id: c.id,
    author: c.user?.login ?? 'ghost',
    authorType: c.user?.type ?? 'User',
    body: c.body,
    path: c.path,
    originalLine: c.original_line ?? null,
    originalCommit: c.original_commit_id,
    side: c.side === 'LEFT' ? 'LEFT' : 'RIGHT',
    createdAt: c.created_at,
    url: c.html_url,
  }));
}

/** A pull request a commit belongs to, as GET …/commits/{sha}/pulls lists it (the fields harness reads). */
export interface CommitPull {
  number: number;
  title: string;
  headRef: string;
  headRepo: string | null;
  mergedAt: string | null;
  mergeCommit: string | null;
}

/** The pull requests a commit is associated with (merged into the base, or on their head): GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls. */
export async function commitPullRequests(request: GatewayRequest, repo: Repo, sha: string): Promise<CommitPull[]> {
  const { data } = await request('GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls', { ...repo, commit_sha: sha, per_page: PAGE_SIZE });
  return data.map((p) => ({
    number: p.number,
    title: p.title,
    headRef: p.head.ref,
    headRepo: p.head.repo?.full_name ?? null,
    mergedAt: p.merged_at ?? null,
    mergeCommit: p.merge_commit_sha ?? null,
  }));
}
