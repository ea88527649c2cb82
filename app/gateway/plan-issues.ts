import { matchPlanIssues, type MatchedIssues } from '../engine/forge/match-issues.js';
import {
  isStatusLabel,
  LABEL_COLORS,
  LABEL_PLAN,
  LABEL_SPEC,
  phaseLabel,
  recordedStatus,
  specLabel,
  statusLabel,
  type StatusValue,
} from '../engine/forge/names.js';
import { parseMarker, withMarkerRecord } from '../engine/forge/plan-issue.js';
import { withStatus } from '../engine/forge/with-status.js';
import { getIssue, listIssuesBy, listIssuesWithLabels, updateIssue, type IssueRecord } from './issues.js';
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
 * Every plan issue of the repository, of any spec, updated at or after `since` (ISO 8601), that
 * the App opened: `GET …/issues?labels=harness:plan&state=all&since=…`. For the day's spend cap,
 * which counts the runs every spec's workers recorded in the last 24 hours.
 */
export async function listPlanIssuesSince(request: GatewayRequest, repo: Repo, owner: string, since: string): Promise<IssueRecord[]> {
  return (await listIssuesWithLabels(request, repo, [LABEL_PLAN], since)).filter((i) => openedBy(i, owner));
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
export async function listSpecIssuesSince(
  request: GatewayRequest,
  repo: Repo,
  owner: string,
  spec: string,
  before: SpecIssues,
  since: string,
): Promise<SpecIssues> {
  const recent = (await listIssuesWithLabels(request, repo, [LABEL_PLAN, specLabel(spec)], since)).filter((i) => openedBy(i, owner));
  const byNumber = new Map(before.listed.map((i) => [i.number, i]));
  for (const issue of recent) byNumber.set(issue.number, issue);
  const listed = [...byNumber.values()].sort((a, b) => a.number - b.number);
  return { listed, ...matchPlanIssues(spec, listed) };
}

/**
 * `before` (the spec's issues as its labels found them) with the App's own issues of the spec
 * that have lost those labels: someone with the triage role took `harness:plan` or `spec:<id>`
 * off. Found by their author and marker instead (listIssuesBy: every issue the App opened, a
 * page per 100), so that a sync about to create a plan's issue finds the one it made and puts
 * its labels back rather than open a second issue and run a verified plan again. Read only when
 * a sync has plans to create: at a spec's first sync, and when its window moves on.
 */
export async function withUnlabelledPlanIssues(request: GatewayRequest, repo: Repo, owner: string, spec: string, before: SpecIssues): Promise<SpecIssues> {
  const known = new Set(before.listed.map((i) => i.number));
  const found = (await listIssuesBy(request, repo, owner)).filter((i) => openedBy(i, owner) && !known.has(i.number) && parseMarker(i.body)?.spec === spec);
  if (found.length === 0) return before;
  const listed = [...before.listed, ...found].sort((a, b) => a.number - b.number);
  return { listed, ...matchPlanIssues(spec, listed) };
}

/**
 * A spec's tracking and phase issues (labels `harness:spec,spec:<id>`, any state), the App's own
 * only: an issue a person with the triage role or another App opened with those labels and a
 * marker typed in is never taken for the spec's issue, whose body records the tree the rounds
 * read the spec from.
 */
export async function listTrackingIssues(request: GatewayRequest, repo: Repo, owner: string, spec: string): Promise<IssueRecord[]> {
  return (await listIssuesWithLabels(request, repo, [LABEL_SPEC, specLabel(spec)])).filter((i) => openedBy(i, owner));
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

/** A plan issue a status write starts from: its labels and its body (whose marker line holds the record) as the caller read them. */
export interface StatusIssue {
  number: number;
  labels: readonly string[];
  body: string | null;
}

/** A plan issue after a status write: its labels and its body as they are now. */
export interface StatusWritten {
  labels: string[];
  body: string | null;
}

/**
 * Moves an issue to `status`: the App's record first (`status=` on the marker line, in one
 * PATCH of the body, plan-issue.ts), then its view, race-safely: the new label is added first
 * (POST …/labels, 200) and the old status labels removed after (DELETE …/labels/{name}, 200),
 * so that the issue is never seen without a status. Adding and removing single labels, rather
 * than writing the whole list, leaves any label someone else changed meanwhile alone; a label
 * already gone (404) is fine. No request when the record and the labels say so already (ready
 * and blocked are one record, `queued`). Returns the labels and the body as they are now.
 */
export async function setStatus(request: GatewayRequest, repo: Repo, ids: NodeIds, issue: StatusIssue, status: StatusValue): Promise<StatusWritten> {
  return (await setStatuses(request, repo, ids, [{ issue, status }]))[0]!;
}

/** The labels alone moved to `status` (none: every status label off), by REST: setStatus's second half. */
async function setStatusLabel(
  request: GatewayRequest,
  repo: Repo,
  issue: { number: number; labels: readonly string[] },
  status: StatusValue | undefined,
): Promise<string[]> {
  const label = status === undefined ? undefined : statusLabel(status);
  if (label !== undefined && !issue.labels.includes(label)) await addLabels(request, repo, issue.number, [label]);
  for (const old of issue.labels.filter((l) => isStatusLabel(l) && l !== label)) await removeLabel(request, repo, issue.number, old);
  return withStatus(issue.labels, status);
}

/**
 * Moves an issue from status `from` to `to` only while the App's record still says `from`, as
 * a worker ends its plan (running → verified or failed) long after it read the issue: the issue
 * is read again (GET …/issues/{n}) and, if its record says something else (an abort's `failed`,
 * a retry's `queued`), theirs stands and `changed` is returned; else the status is set as
 * setStatus sets it. The labels are not asked: anyone with the triage role can change them.
 * `edit` changes the body as read (the worker's run record, run-record.ts): written in the
 * status's own PATCH, or alone when the status is left as someone set it.
 */
export async function moveStatus(
  request: GatewayRequest,
  repo: Repo,
  ids: NodeIds,
  issue: number,
  from: StatusValue,
  to: StatusValue,
  edit?: (body: string) => string,
): Promise<'moved' | 'changed'> {
  const now = await getIssue(request, repo, issue);
  const edited = edit && now.body !== null ? edit(now.body) : now.body;
  const moving = parseMarker(now.body)?.status === recordedStatus(from);
  // The edit is written whether the status moves or not; with the move, in the same PATCH.
  if (edited !== now.body && (!moving || withMarkerRecord(edited!, 'status', recordedStatus(to)) === edited))
    await updateIssue(request, repo, issue, { body: edited! });
  if (!moving) return 'changed';
  await setStatus(request, repo, ids, { ...now, body: edited }, to);
  return 'moved';
}

/**
 * One issue's status to set, from the labels and body as the caller read them. `status`
 * undefined takes every status label off (a label put back where the App has no record);
 * `labelOnly`: the record says so already, and only the label, its view, is put back.
 */
export interface StatusMove {
  issue: StatusIssue;
  status: StatusValue | undefined;
  labelOnly?: true;
}

/** Issues whose records and labels one GraphQL request writes at most: up to three mutations each, 5 of GraphQL's 2,000 secondary points a minute per mutation. */
export const STATUS_MOVES_PER_REQUEST = 25;

interface LabelWrite {
  move: StatusMove;
  issueId: string | undefined;
  add: string[];
  remove: string[];
  /** The body with its new record, where the record changes. */
  record?: string;
}

/**
 * Several issues' statuses set at once, each as setStatus sets one: the records first (the
 * status on each marker line, where it changes: none for a queued plan going from ready to
 * blocked, nor for a label put back), then the labels, each race-safely (its label added
 * first, the other status labels removed after, never the whole list written), in as few
 * requests as GitHub allows: one GraphQL request (POST /graphql) carrying, per issue,
 * `updateIssue` with its body, then `addLabelsToLabelable` then `removeLabelsFromLabelable`,
 * which GitHub runs one after another in the order written, every record before any label.
 * Three REST requests an issue (the body, add, remove) become one request for up to
 * STATUS_MOVES_PER_REQUEST issues.
 *
 * GraphQL names issues and labels by node id: those `ids` saw in GitHub's answers (node-ids.ts).
 * An issue or label not seen, a request that needs one write only, and any mutation GitHub
 * refused (its `errors`) go by REST, as setStatus does, the record first; a refusal naming a
 * label forgets its id. A record GraphQL did not write is written by REST at once after: its
 * label may stand a moment before it, which decides nothing (decisions read records, never
 * labels). Returns each issue's labels and body as they are after, in the order of `moves`.
 */
export async function setStatuses(request: GatewayRequest, repo: Repo, ids: NodeIds, moves: readonly StatusMove[]): Promise<StatusWritten[]> {
  const bodies = new Map<LabelWrite, string | null>();
  const writeRecord = async (w: LabelWrite) => {
    if (w.record === undefined) return;
    bodies.set(w, (await updateIssue(request, repo, w.move.issue.number, { body: w.record })).body);
    w.record = undefined;
  };
  const writes: LabelWrite[] = [];
  for (const move of moves) {
    const label = move.status === undefined ? undefined : statusLabel(move.status);
    const body = move.issue.body;
    const record = move.labelOnly || move.status === undefined || body === null ? body : withMarkerRecord(body, 'status', recordedStatus(move.status));
    const w: LabelWrite = {
      move,
      issueId: undefined,
      add: label === undefined || move.issue.labels.includes(label) ? [] : [label],
      remove: move.issue.labels.filter((l) => isStatusLabel(l) && l !== label),
      ...(record !== body && record !== null ? { record } : {}),
    };
    bodies.set(w, body);
    // An issue no answer named yet: its record by REST, whose answer names it (a record written is a read).
    if (ids.issue(move.issue.number) === undefined) await writeRecord(w);
    w.issueId = ids.issue(move.issue.number);
    writes.push(w);
  }
  const pending = writes.filter((w) => w.issueId !== undefined && w.add.length + w.remove.length > 0);
  // Labels no answer named yet (an App just started, a first execute): one query learns them when that saves requests.
  const unknown = pending.filter((w) => [...w.add, ...w.remove].some((l) => ids.label(l) === undefined));
  if (unknown.reduce((n, w) => n + w.add.length + w.remove.length, 0) > 2)
    await knowLabels(
      request,
      repo,
      ids,
      unknown.flatMap((w) => [...w.add, ...w.remove]),
      LABEL_COLORS,
    );
  const byGraphQL = pending.filter((w) => [...w.add, ...w.remove].every((l) => ids.label(l) !== undefined));
  const graphqlWrites = byGraphQL.reduce((n, w) => n + w.add.length + w.remove.length + (w.record === undefined ? 0 : 1), 0);
  const viaGraphQL = graphqlWrites > 1 ? byGraphQL : [];
  // The records GraphQL does not carry first: the label is only their view.
  for (const w of writes) if (!viaGraphQL.includes(w)) await writeRecord(w);
  const byRest = new Set(writes.filter((w) => !viaGraphQL.includes(w)));
  for (let at = 0; at < viaGraphQL.length; at += STATUS_MOVES_PER_REQUEST) {
    const chunk = viaGraphQL.slice(at, at + STATUS_MOVES_PER_REQUEST);
    const { labels, records } = await statusMutations(request, ids, chunk);
    for (const [w, body] of records) bodies.set(w, body);
    // A record GraphQL did not write, by REST at once, before any label of the chunk goes by REST.
    for (const w of chunk) if (!records.has(w)) await writeRecord(w);
    for (const failed of labels) byRest.add(failed);
  }
  for (const w of writes) if (byRest.has(w)) await setStatusLabel(request, repo, w.move.issue, w.move.status);
  return writes.map((w) => ({ labels: withStatus(w.move.issue.labels, w.move.status), body: bodies.get(w) ?? null }));
}

/** One GraphQL request for `writes`: every record, then every issue's labels; the label writes GitHub did not make, and the bodies of the records it did. */
async function statusMutations(
  request: GatewayRequest,
  ids: NodeIds,
  writes: readonly LabelWrite[],
): Promise<{ labels: LabelWrite[]; records: Map<LabelWrite, string> }> {
  const variables: Record<string, unknown> = {};
  const declared: string[] = [];
  const recordFields: string[] = [];
  const fields: string[] = [];
  const aliases = new Map<string, LabelWrite>();
  const recordAliases = new Map<string, LabelWrite>();
  writes.forEach((w, i) => {
    declared.push(`$i${i}: ID!`);
    variables[`i${i}`] = w.issueId;
    if (w.record !== undefined) {
      declared.push(`$body${i}: String!`);
      variables[`body${i}`] = w.record;
      recordFields.push(`record${i}: updateIssue(input: {id: $i${i}, body: $body${i}}) { issue { body } }`);
      recordAliases.set(`record${i}`, w);
    }
    const mutation = (verb: 'add' | 'remove', labels: string[]) => {
      if (labels.length === 0) return;
      const name = `${verb}${i}`;
      declared.push(`$${name}: [ID!]!`);
      variables[name] = labels.map((l) => ids.label(l));
      fields.push(
        `${name}: ${verb === 'add' ? 'addLabelsToLabelable' : 'removeLabelsFromLabelable'}(input: {labelableId: $i${i}, labelIds: $${name}}) { clientMutationId }`,
      );
      aliases.set(name, w);
    };
    mutation('add', w.add);
    mutation('remove', w.remove);
  });
  const query = `mutation SetStatuses(${declared.join(', ')}) {\n  ${[...recordFields, ...fields].join('\n  ')}\n}`;
  let answer: { data?: Record<string, unknown> | null; errors?: { message?: string; path?: unknown[] }[] };
  try {
    answer = ((await request('POST /graphql', { query, variables })) as { data: typeof answer }).data ?? {};
  } catch {
    // Writing a record again, adding a label twice or removing one already gone changes nothing: REST makes them all.
    return { labels: [...writes], records: new Map() };
  }
  const records = new Map<LabelWrite, string>();
  for (const [alias, w] of recordAliases) {
    const body = (answer.data?.[alias] as { issue?: { body?: unknown } | null } | null | undefined)?.issue?.body;
    if (typeof body === 'string') records.set(w, body);
  }
  const failed = new Set<LabelWrite>();
  for (const [alias, w] of aliases) if (answer.data?.[alias] === null || answer.data?.[alias] === undefined) failed.add(w);
  // A refused id may be a label made again since it was read: forget the labels of what failed.
  for (const w of failed)
    for (const l of [...w.add, ...w.remove]) if (answer.errors?.some((e) => e.message?.includes(ids.label(l) ?? '\0'))) ids.forgetLabel(l);
  return { labels: [...failed], records };
}
