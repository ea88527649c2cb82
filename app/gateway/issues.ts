import type { IssueLike } from '../engine/forge/plan-issue-view.js';
import { PAGE_SIZE } from './limits.js';
import { paginate } from './paginate.js';
import { GitHubError } from './github-error.js';
import type { NodeIds } from './node-ids.js';
import { NO_RETRY, outcomeUnknown } from './create-once.js';
import type { GatewayRequest, Repo } from './request.js';

/** An issue as harness reads it: labels by name, pull requests never included. */
export interface IssueRecord {
  /** The database id, which GitHub's issue dependencies take (not the number). */
  id: number;
  number: number;
  title: string;
  body: string | null;
  labels: string[];
  state: 'open' | 'closed';
  stateReason: string | null;
  url: string;
  /** GitHub's type of the issue's author (`User`, `Bot`), when read from GitHub. */
  authorType?: string;
  /** The login of the issue's author (`harness[bot]`), when read from GitHub: a plan issue is the App's own. */
  author?: string;
  /** How many sub-issues it has (GitHub's `sub_issues_summary.total`), where GitHub reports it. */
  subIssuesTotal?: number;
  /** How many issues block it, open or closed (GitHub's `issue_dependencies_summary.total_blocked_by`), where GitHub reports it. */
  blockedByTotal?: number;
}

interface RawIssue {
  id: number;
  number: number;
  title: string;
  body?: string | null;
  labels: (string | { name?: string })[];
  state: string;
  state_reason?: string | null;
  html_url?: string;
  pull_request?: unknown;
  user?: { type?: string; login?: string } | null;
  sub_issues_summary?: { total?: number } | null;
  issue_dependencies_summary?: { total_blocked_by?: number } | null;
}

function toIssue(r: RawIssue): IssueRecord {
  return {
    id: r.id,
    number: r.number,
    title: r.title,
    body: r.body ?? null,
    labels: r.labels.map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter((l) => l !== ''),
    state: r.state === 'closed' ? 'closed' : 'open',
    stateReason: r.state_reason ?? null,
    url: r.html_url ?? '',
    ...(r.user?.type ? { authorType: r.user.type } : {}),
    ...(r.user?.login ? { author: r.user.login } : {}),
    ...(typeof r.sub_issues_summary?.total === 'number' ? { subIssuesTotal: r.sub_issues_summary.total } : {}),
    ...(typeof r.issue_dependencies_summary?.total_blocked_by === 'number' ? { blockedByTotal: r.issue_dependencies_summary.total_blocked_by } : {}),
  };
}

/**
 * GET /repos/{owner}/{repo}/issues?labels=a,b&state=all&direction=asc&per_page=100, every page:
 * the issues carrying all of `labels`, oldest first. Oldest first keeps each page's issues where
 * they were as new issues come (they go on the last page), so a page whose issues all stand as
 * they did answers 304 to its conditional read, which GitHub does not count: a large spec's
 * finished plans, read again at every round, cost nothing. With `since` (ISO 8601), only the
 * issues updated at or after it. The endpoint lists pull requests too; those are left out.
 */
export async function listIssuesWithLabels(request: GatewayRequest, repo: Repo, labels: readonly string[], since?: string): Promise<IssueRecord[]> {
  const all = await paginate<RawIssue>(request, 'GET /repos/{owner}/{repo}/issues', {
    ...repo,
    labels: labels.join(','),
    state: 'all',
    ...(since === undefined ? {} : { since }),
    direction: 'asc',
    per_page: PAGE_SIZE,
  });
  return all.filter((i) => i.pull_request === undefined).map(toIssue);
}

/**
 * Every issue `creator` opened (any state, pull requests aside), oldest first: GET
 * /repos/{owner}/{repo}/issues?creator=…&state=all&direction=asc, paginated. For finding the
 * App's own issues whatever labels someone took off them.
 */
export async function listIssuesBy(request: GatewayRequest, repo: Repo, creator: string): Promise<IssueRecord[]> {
  const all = await paginate<RawIssue>(request, 'GET /repos/{owner}/{repo}/issues', { ...repo, creator, state: 'all', direction: 'asc', per_page: PAGE_SIZE });
  return all.filter((i) => i.pull_request === undefined).map(toIssue);
}

/**
 * POST /repos/{owner}/{repo}/issues, with the client's retries off (create-once.ts: the gateway
 * looks for the issue before sending it again). Labels that do not exist yet are created by
 * GitHub (colour ededed).
 */
export async function createIssue(request: GatewayRequest, repo: Repo, issue: { title: string; body: string; labels: string[] }): Promise<IssueRecord> {
  const { data } = await request('POST /repos/{owner}/{repo}/issues', { ...repo, ...issue, ...NO_RETRY });
  return toIssue(data as RawIssue);
}

/** How many of `creator`'s newest issues are read for one whose creation went unanswered: it was made a moment ago. */
const RECENT = 30;

/**
 * The issue `creator` made with this title and body, if GitHub made it: GET
 * /repos/{owner}/{repo}/issues?creator=…&state=all&sort=created&direction=desc, one page. Only the
 * creator's own count: an issue someone else opened with the same text is not the one asked for.
 */
export async function findCreatedIssue(
  request: GatewayRequest,
  repo: Repo,
  creator: string,
  issue: { title: string; body: string },
): Promise<IssueRecord | undefined> {
  const { data } = await request('GET /repos/{owner}/{repo}/issues', { ...repo, creator, state: 'all', sort: 'created', direction: 'desc', per_page: RECENT });
  return (data as RawIssue[])
    .filter((i) => i.pull_request === undefined && i.user?.login === creator && i.title === issue.title && (i.body ?? '') === issue.body)
    .map(toIssue)[0];
}

export interface IssueUpdate {
  title?: string;
  body?: string;
  /**
   * Replaces the whole list, which undoes any label someone changed since it was read: only
   * for labels no one else writes (never a status label; see setStatus).
   */
  labels?: string[];
  state?: 'open' | 'closed';
  /** Ignored by GitHub unless `state` changes. */
  state_reason?: 'completed' | 'not_planned' | 'duplicate' | 'reopened';
}

/** GET /repos/{owner}/{repo}/issues/{issue_number}: one issue as it is now. */
export async function getIssue(request: GatewayRequest, repo: Repo, number: number): Promise<IssueRecord> {
  const { data } = await request('GET /repos/{owner}/{repo}/issues/{issue_number}', { ...repo, issue_number: number });
  return toIssue(data as RawIssue);
}

/** PATCH /repos/{owner}/{repo}/issues/{issue_number} */
export async function updateIssue(request: GatewayRequest, repo: Repo, number: number, update: IssueUpdate): Promise<IssueRecord> {
  const { data } = await request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', { ...repo, issue_number: number, ...update });
  return toIssue(data as RawIssue);
}

interface GraphQLIssue {
  id: string;
  databaseId: number;
  number: number;
  title: string;
  body: string;
  state: string;
  stateReason?: string | null;
  url: string;
  author?: { __typename?: string; login?: string } | null;
  labels?: { nodes?: ({ id?: string; name?: string } | null)[] | null } | null;
}

/**
 * An issue made a sub-issue of `parent` as it is created: one GraphQL request (`createIssue`
 * with `parentIssueId`, GitHub's own way, as `gh issue create --parent` does), one
 * content-generating request where REST takes two (the issue, then the sub-issue link). GraphQL
 * names the repository, the labels and the parent by node id: undefined, with nothing created,
 * when one is not known (the caller creates by REST and links after), or when GitHub refuses.
 */
export async function createSubIssue(
  request: GatewayRequest,
  ids: NodeIds,
  issue: { title: string; body: string; labels: string[] },
  parent: number,
): Promise<IssueRecord | undefined> {
  const parentId = ids.issue(parent);
  const labelIds = issue.labels.map((l) => ids.label(l));
  if (ids.repository === undefined || parentId === undefined || labelIds.some((l) => l === undefined)) return undefined;
  const query = `mutation CreateSubIssue($input: CreateIssueInput!) {\n  createIssue(input: $input) {\n    issue { id databaseId number title body state stateReason url author { __typename login } labels(first: 100) { nodes { id name } } }\n  }\n}`;
  const input = { repositoryId: ids.repository, title: issue.title, body: issue.body, labelIds, parentIssueId: parentId };
  let created: GraphQLIssue | undefined;
  try {
    const { data } = (await request('POST /graphql', { query, variables: { input }, ...NO_RETRY })) as {
      data: { data?: { createIssue?: { issue?: GraphQLIssue | null } | null } | null };
    };
    created = data.data?.createIssue?.issue ?? undefined;
  } catch (e) {
    // A refusal (4xx: GitHub wrote nothing) leaves the issue to REST; an unknown outcome is the caller's to look for.
    if (e instanceof GitHubError && !outcomeUnknown(e)) return undefined;
    throw e;
  }
  if (!created || typeof created.number !== 'number') return undefined;
  ids.seeIssue(created.number, created.id);
  const labels = (created.labels?.nodes ?? []).flatMap((l) => (l?.name ? [l.name] : []));
  return {
    id: created.databaseId,
    number: created.number,
    title: created.title,
    body: created.body ?? null,
    labels,
    state: created.state === 'CLOSED' ? 'closed' : 'open',
    stateReason: created.stateReason ? created.stateReason.toLowerCase() : null,
    url: created.url ?? '',
    ...(created.author?.__typename ? { authorType: created.author.__typename === 'Bot' ? 'Bot' : 'User' } : {}),
    ...(created.author?.login ? { author: created.author.login } : {}),
  };
}

/** The engine's view of an issue record (GitHub's own field names). */
export function issueLike(issue: IssueRecord): IssueLike {
  return { number: issue.number, title: issue.title, body: issue.body, state: issue.state, state_reason: issue.stateReason, labels: issue.labels };
}

/** One event in an issue's history, as far as harness reads it: what happened, to which label, by whom. */
export interface IssueEvent {
  event: string;
  label?: string;
  actor?: string;
}

/** GET /repos/{owner}/{repo}/issues/{issue_number}/events, oldest first, paginated. */
export async function listIssueEvents(request: GatewayRequest, repo: Repo, issueNumber: number): Promise<IssueEvent[]> {
  type RawEvent = { event?: string; label?: { name?: string } | null; actor?: { login?: string } | null };
  const all = await paginate<RawEvent>(request, 'GET /repos/{owner}/{repo}/issues/{issue_number}/events', {
    ...repo,
    issue_number: issueNumber,
    per_page: PAGE_SIZE,
  });
  return all.map((e) => ({ event: e.event ?? '', ...(e.label?.name ? { label: e.label.name } : {}), ...(e.actor?.login ? { actor: e.actor.login } : {}) }));
}
