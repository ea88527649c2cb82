import { matchPlanIssues, type MatchedIssues } from '../engine/forge/match-issues.js';
import { isStatusLabel, LABEL_COLORS, LABEL_PLAN, phaseLabel, specLabel, statusLabel, type StatusValue } from '../engine/forge/names.js';
import { withStatus } from '../engine/forge/with-status.js';
import { listIssuesWithLabels, type IssueRecord } from './issues.js';
import { addLabels, knowLabels, removeLabel } from './labels.js';
import type { NodeIds } from './node-ids.js';
import type { GatewayRequest, Repo } from './request.js';

/**
 * Plan issues are the App's own (the spec PR sync opens them), told by its bot's login: an
 * issue a person, another App's bot or GitHub Actions opened with the labels and a marker typed
 * in is not a plan's, however it is labelled, closed or marked `verified=`.
 */
function openedBy(issue: IssueRecord, owner: string): boolean {
  return issue.authorType === 'Bot' && issue.author === owner;
}

/** A spec's plan issues: every one listed, and each plan's own, duplicates resolved. */
export interface SpecIssues extends MatchedIssues<IssueRecord> {
  /** Every issue under the spec's labels, open and closed, pull requests aside, in GitHub's order. */
  listed: IssueRecord[];
}

/**
 * A spec's plan issues in one paginated list call (labels `harness:plan,spec:<id>`, state
 * all, 100 a page), matched to their plans by THE rule (matchPlanIssues: the
 * lowest-numbered issue not closed as a duplicate), so that the sync, a round, a command
 * and the worker all act on the same issue of a plan. Only issues the App opened count
 * (`owner`, its bot's login): the labels need the triage role, but the marker is text anyone
 * who can open an issue could type, and any other App's bot could open one with the labels.
 *
 * With `phase`, only that phase's issues (label `phase:PP` too): one page for a phase of up to
 * 100 plans, where a 1,000-plan spec lists ten. A plan's issues (and their duplicates) all
 * carry their phase's label, so the rule picks the same one; a caller that does not find its
 * plan there (someone took the label off) lists the whole spec.
 */
export async function listSpecIssues(request: GatewayRequest, repo: Repo, owner: string, spec: string, phase?: string): Promise<SpecIssues> {
  const labels = [LABEL_PLAN, specLabel(spec), ...(phase === undefined ? [] : [phaseLabel(phase)])];
  const listed = (await listIssuesWithLabels(request, repo, labels)).filter((i) => openedBy(i, owner));
  return { listed, ...matchPlanIssues(spec, listed) };
}

/**
 * A spec's issues as `before` listed them, with those updated at or after `since` (ISO 8601)
 * read again: `GET …/issues?labels=…&state=all&since=…`, one page for the few issues a sync
 * just created or changed where the whole list of a 1,000-plan spec is ten. What `before` held
 * is kept unless read again; what is new is added; the plan rule (matchPlanIssues) picks each
 * plan's issue from the whole. For a caller that listed the spec itself just before and needs
 * to see what it and anyone else wrote since (a sync that created issues, looking for
 * duplicates a concurrent delivery made); an issue deleted outright meanwhile is not seen.
 */
export async function listSpecIssuesSince(request: GatewayRequest, repo: Repo, owner: string, spec: string, before: SpecIssues, since: string): Promise<SpecIssues> {
  const recent = (await listIssuesWithLabels(request, repo, [LABEL_PLAN, specLabel(spec)], since)).filter((i) => openedBy(i, owner));
  const byNumber = new Map(before.listed.map((i) => [i.number, i]));
  for (const issue of recent) byNumber.set(issue.number, issue);
  const listed = [...byNumber.values()].sort((a, b) => a.number - b.number);
  return { listed, ...matchPlanIssues(spec, listed) };
}

/**
 * Has any of a spec's plan issues changed since `since` (ISO 8601)? One request: GET
 * /repos/{owner}/{repo}/issues?labels=harness:plan,spec:<id>&state=all&since=<since>&per_page=1,
 * which lists only issues updated at or after that time. No: the issues are as they were then,
 * without listing them (a spec of 1,000 plans is ten pages). An issue deleted outright updates
 * nothing, so a caller that must see deletions lists.
 */
export async function specIssuesChangedSince(request: GatewayRequest, repo: Repo, spec: string, since: string): Promise<boolean> {
  const { data } = await request('GET /repos/{owner}/{repo}/issues', { ...repo, labels: `${LABEL_PLAN},${specLabel(spec)}`, state: 'all', since, per_page: 1 });
  return data.length > 0;
}

/**
 * Moves an issue to `status`, race-safely: the new label is added first (POST …/labels, 200)
 * and the old status labels removed after (DELETE …/labels/{name}, 200), so that the issue
 * is never seen without a status, which would read as "not queued". Adding and removing
 * single labels, rather than writing the whole list, leaves any label someone else changed
 * meanwhile alone; a label already gone (404) is fine. No request when the issue shows that
 * status and no other; no removal when it had none. Returns the labels as they are now.
 */
export async function setStatus(request: GatewayRequest, repo: Repo, issue: { number: number; labels: readonly string[] }, status: StatusValue): Promise<string[]> {
  const label = statusLabel(status);
  if (!issue.labels.includes(label)) await addLabels(request, repo, issue.number, [label]);
  for (const old of issue.labels.filter((l) => isStatusLabel(l) && l !== label)) await removeLabel(request, repo, issue.number, old);
  return withStatus(issue.labels, status);
}

/**
 * Moves an issue from status `from` to `to` only while it is still `from`, as a worker ends
 * its plan (running → verified or failed) long after it read the issue: `to` is added
 * (POST …/labels, whose answer is every label the issue has now), then `from` removed. If the
 * answer shows a status someone set meanwhile (an abort's `failed`, a retry's `ready`), theirs
 * stands: ours is taken off again and `changed` returned. Two requests when nothing moved;
 * one, a GraphQL request, where `ids` knows the issue's and the labels' node ids.
 */
export async function moveStatus(request: GatewayRequest, repo: Repo, issue: number, from: StatusValue, to: StatusValue, ids?: NodeIds): Promise<'moved' | 'changed'> {
  const viaGraphQL = ids ? await moveStatusGraphQL(request, ids, issue, from, to) : undefined;
  if (viaGraphQL === 'changed') await removeLabel(request, repo, issue, statusLabel(to));
  if (viaGraphQL) return viaGraphQL;
  const now = await addLabels(request, repo, issue, [statusLabel(to)]);
  const others = now.filter((l) => isStatusLabel(l) && l !== statusLabel(to) && l !== statusLabel(from));
  if (others.length > 0) {
    await removeLabel(request, repo, issue, statusLabel(to));
    return 'changed';
  }
  if (now.includes(statusLabel(from))) await removeLabel(request, repo, issue, statusLabel(from));
  return 'moved';
}

/**
 * moveStatus in one GraphQL request where the node ids are known: `to` added, then `from`
 * removed, and the labels as they are after, in the answer. A status someone set meanwhile
 * (shown beside ours) stands: `changed`, and the caller takes ours off again. Undefined
 * when the ids are not known or GitHub refused: the caller moves it by REST, which adding and
 * removing the same labels again leaves as it is.
 */
async function moveStatusGraphQL(request: GatewayRequest, ids: NodeIds, issue: number, from: StatusValue, to: StatusValue): Promise<'moved' | 'changed' | undefined> {
  const issueId = ids.issue(issue);
  const toId = ids.label(statusLabel(to));
  const fromId = ids.label(statusLabel(from));
  if (issueId === undefined || toId === undefined || fromId === undefined) return undefined;
  const query = `mutation MoveStatus($issue: ID!, $to: [ID!]!, $from: [ID!]!) {\n  add: addLabelsToLabelable(input: {labelableId: $issue, labelIds: $to}) { clientMutationId }\n  remove: removeLabelsFromLabelable(input: {labelableId: $issue, labelIds: $from}) { labelable { labels(first: 100) { nodes { name } } } }\n}`;
  let labels: string[] | undefined;
  try {
    const { data } = (await request('POST /graphql', { query, variables: { issue: issueId, to: [toId], from: [fromId] } })) as { data: { data?: { add?: unknown; remove?: { labelable?: { labels?: { nodes?: ({ name?: string } | null)[] } } } | null } | null } };
    if (!data.data?.add || !data.data.remove) return undefined;
    labels = (data.data.remove.labelable?.labels?.nodes ?? []).flatMap((l) => (l?.name ? [l.name] : []));
  } catch {
    return undefined;
  }
  // Someone's status beside ours stands: ours goes again (moveStatus, by REST).
  return labels.some((l) => isStatusLabel(l) && l !== statusLabel(to)) ? 'changed' : 'moved';
}

/** One issue's status to set, from the labels as the caller read them. */
export interface StatusMove {
  issue: { number: number; labels: readonly string[] };
  status: StatusValue;
}

/** Issues whose labels one GraphQL request moves at most: two mutations each, 5 of GraphQL's 2,000 secondary points a minute per mutation. */
export const STATUS_MOVES_PER_REQUEST = 25;

interface LabelWrite {
  move: StatusMove;
  issueId: string | undefined;
  add: string[];
  remove: string[];
}

/**
 * Several issues' statuses set at once, each race-safely as setStatus sets one (its label
 * added first, the other status labels removed after, never the whole list written), in as
 * few requests as GitHub allows: one GraphQL request (POST /graphql) carrying, per issue,
 * `addLabelsToLabelable` then `removeLabelsFromLabelable`, which GitHub runs one after another
 * in the order written. Two REST requests an issue (add, remove) become one request for up to
 * STATUS_MOVES_PER_REQUEST issues.
 *
 * GraphQL names issues and labels by node id: those `ids` saw in GitHub's answers (node-ids.ts).
 * An issue or label not seen, a request that needs one write only, and any mutation GitHub
 * refused (its `errors`) go by REST, as setStatus does; a refusal naming a label forgets its
 * id. Returns each issue's labels as they are after, in the order of `moves`.
 */
export async function setStatuses(request: GatewayRequest, repo: Repo, ids: NodeIds, moves: readonly StatusMove[]): Promise<string[][]> {
  const writes: LabelWrite[] = moves.map((move) => {
    const label = statusLabel(move.status);
    return {
      move,
      issueId: ids.issue(move.issue.number),
      add: move.issue.labels.includes(label) ? [] : [label],
      remove: move.issue.labels.filter((l) => isStatusLabel(l) && l !== label),
    };
  });
  const pending = writes.filter((w) => w.issueId !== undefined && w.add.length + w.remove.length > 0);
  // Labels no answer named yet (an App just started, a first execute): one query learns them when that saves requests.
  const unknown = pending.filter((w) => [...w.add, ...w.remove].some((l) => ids.label(l) === undefined));
  if (unknown.reduce((n, w) => n + w.add.length + w.remove.length, 0) > 2) await knowLabels(request, repo, ids, unknown.flatMap((w) => [...w.add, ...w.remove]), LABEL_COLORS);
  const byGraphQL = pending.filter((w) => [...w.add, ...w.remove].every((l) => ids.label(l) !== undefined));
  const restWrites = byGraphQL.reduce((n, w) => n + w.add.length + w.remove.length, 0);
  const byRest = new Set(writes.filter((w) => !byGraphQL.includes(w) || restWrites <= 1));
  if (restWrites > 1) {
    for (let at = 0; at < byGraphQL.length; at += STATUS_MOVES_PER_REQUEST) {
      for (const failed of await labelMutations(request, ids, byGraphQL.slice(at, at + STATUS_MOVES_PER_REQUEST))) byRest.add(failed);
    }
  }
  for (const w of writes) if (byRest.has(w)) await setStatus(request, repo, w.move.issue, w.move.status);
  return moves.map((m) => withStatus(m.issue.labels, m.status));
}

/** One GraphQL request for `writes`; the writes GitHub did not make. */
async function labelMutations(request: GatewayRequest, ids: NodeIds, writes: readonly LabelWrite[]): Promise<LabelWrite[]> {
  const variables: Record<string, unknown> = {};
  const declared: string[] = [];
  const fields: string[] = [];
  const aliases = new Map<string, LabelWrite>();
  writes.forEach((w, i) => {
    declared.push(`$i${i}: ID!`);
    variables[`i${i}`] = w.issueId;
    const mutation = (verb: 'add' | 'remove', labels: string[]) => {
      if (labels.length === 0) return;
      const name = `${verb}${i}`;
      declared.push(`$${name}: [ID!]!`);
      variables[name] = labels.map((l) => ids.label(l));
      fields.push(`${name}: ${verb === 'add' ? 'addLabelsToLabelable' : 'removeLabelsFromLabelable'}(input: {labelableId: $i${i}, labelIds: $${name}}) { clientMutationId }`);
      aliases.set(name, w);
    };
    mutation('add', w.add);
    mutation('remove', w.remove);
  });
  const query = `mutation SetStatuses(${declared.join(', ')}) {\n  ${fields.join('\n  ')}\n}`;
  let answer: { data?: Record<string, unknown> | null; errors?: { message?: string; path?: unknown[] }[] };
  try {
    answer = ((await request('POST /graphql', { query, variables })) as { data: typeof answer }).data ?? {};
  } catch {
    // Adding a label twice or removing one already gone changes nothing: REST makes them all.
    return [...writes];
  }
  const failed = new Set<LabelWrite>();
  for (const [alias, w] of aliases) if (answer.data?.[alias] === null || answer.data?.[alias] === undefined) failed.add(w);
  // A refused id may be a label made again since it was read: forget the labels of what failed.
  for (const w of failed) for (const l of [...w.add, ...w.remove]) if (answer.errors?.some((e) => e.message?.includes(ids.label(l) ?? '\0'))) ids.forgetLabel(l);
  return [...failed];
}
