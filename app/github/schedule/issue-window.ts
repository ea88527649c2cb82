import type { Context } from 'probot';
import type { HarnessConfig } from '../../engine/core/config/schema.js';
import { loadSpec } from '../../engine/core/spec/load.js';
import { PLAN_READING } from '../../engine/importers/dialects.js';
import { issueWindowSize, partialPhases, windowSlack } from '../../engine/forge/issue-window.js';
import { specOrder, type SpecOrder } from '../../engine/forge/round-order.js';
import { parseMarker } from '../../engine/forge/plan-issue.js';
import { matchPlanIssues } from '../../engine/forge/match-issues.js';
import { planPhase } from '../../engine/core/spec/model.js';
import { matchSpecIssue, parseSpecSource, type SpecSource } from '../../engine/forge/spec-issue.js';
import type { IssueRecord } from '../../gateway/issues.js';
import type { SpecIssues } from '../../gateway/plan-issues.js';
import { appGateway } from '../app-gateway.js';
import { memoryOf, type AppMemory } from '../app-memory.js';
import type { SpecFile } from '../../engine/core/spec/text.js';
import type { Spec } from '../../engine/core/spec/model.js';
import type { Gateway } from '../../gateway/gateway.js';
import { readSpecFiles } from '../spec-pr/read-spec.js';
import { syncPlanIssues } from '../spec-pr/sync-plan-issues.js';

const decoder = new TextDecoder();

/** How far before a window's sync its second look starts (syncWindow): more than any clock skew between the App and GitHub, and than a round takes to reach the move. */
const SINCE_MARGIN_MS = 120_000;

/** A spec directory's files by its Git tree: read once (readSpecFiles), then from the App's memory, since a tree never changes. */
async function specTree(github: Gateway, memory: AppMemory, tree: string): Promise<readonly SpecFile[] | undefined> {
  const kept = memory.specTrees.get(tree);
  if (kept) return kept;
  const { files, refused } = await readSpecFiles(github, tree);
  if (refused) return undefined;
  memory.specTrees.set(tree, files);
  return files;
}

/** What a spec's tracking issue records it was synced from, and that spec read: looked up once per delivery (recordedSpec). */
interface RecordedSpec {
  source: SpecSource;
  files?: readonly SpecFile[];
  spec?: Spec;
}

const recorded = new WeakMap<Context, Map<string, Promise<RecordedSpec | undefined>>>();

/**
 * The spec as its tracking issue records where it was synced from (one list read; the tree from
 * the App's memory once read), once per delivery: a round that moves the window and then ranks
 * the plans asks for it twice. `spec` is undefined when the recorded tree does not load as this
 * spec; the whole is undefined when there is no record.
 */
function recordedSpec(context: Context, spec: string): Promise<RecordedSpec | undefined> {
  let specs = recorded.get(context);
  if (!specs) recorded.set(context, (specs = new Map()));
  let found = specs.get(spec);
  if (!found) {
    found = (async () => {
      const github = appGateway(context);
      const { issue: tracking } = matchSpecIssue(spec, await github.trackingIssues(spec));
      const source = parseSpecSource(tracking?.body);
      if (!source) return undefined;
      const files = await specTree(github, memoryOf(context), source.tree);
      const loaded = files ? loadSpec(files, PLAN_READING) : undefined;
      return { source, ...(files ? { files } : {}), ...(loaded?.valid && loaded.spec?.id === spec ? { spec: loaded.spec } : {}) };
    })();
    specs.set(spec, found);
  }
  return found;
}

/**
 * A windowed spec's order (round-order.ts, specOrder): searched once per tree it was synced from
 * and number of slots, then kept in the App's memory, for the rounds that rank its plans and
 * the moves that bring its next issues.
 */
export function wholeSpecOrder(context: Context, spec: Spec, tree: string, slots: number): SpecOrder | undefined {
  const memory = memoryOf(context);
  const key = `${spec.id}|${slots}|tree:${tree}`;
  let kept = memory.specOrders.get(key);
  if (!kept) {
    const order = specOrder(spec, slots);
    memory.specOrders.set(key, (kept = order ? { order } : {}));
  }
  return kept.order;
}

/**
 * A windowed spec whole (recordedSpec), with its order: what a round ranks the plans by, those
 * without issues yet included. Undefined when the record is
 * missing or the spec does not load.
 */
export async function windowedSpec(context: Context, spec: string, slots: number): Promise<{ order?: SpecOrder; spec: Spec } | undefined> {
  const found = await recordedSpec(context, spec);
  if (!found?.spec) return undefined;
  const order = wholeSpecOrder(context, found.spec, found.source.tree, slots);
  return { spec: found.spec, ...(order ? { order } : {}) };
}

/**
 * The phases a round must not take for complete: for a windowed spec, those with plans that
 * have no issue yet (read from the spec its tracking issue records); every phase when that spec
 * cannot be read, since then the round cannot tell. Empty for a spec whose plans all have issues.
 */
export async function phasesNotAllIssued(context: Context, spec: string, issues: readonly IssueRecord[]): Promise<ReadonlySet<string> | 'all'> {
  const hidden = await phasesOfHiddenPlans(appGateway(context), spec, issues);
  if (!isWindowed(issues)) return hidden;
  const whole = (
    await recordedSpec(context, spec).catch(
      (e: unknown) => void context.log.warn(`${spec}: no phase is taken for complete, the whole spec could not be read: ${String(e)}`),
    )
  )?.spec;
  if (!whole) return 'all';
  const issued = new Set(issues.map((i) => parseMarker(i.body)?.plan).filter((p): p is string => p !== undefined));
  return new Set([...partialPhases(whole, (plan) => issued.has(plan)), ...hidden]);
}

/**
 * The phases of plans whose issue someone with the triage role hid from the list by taking its
 * labels off, not done: found among the App's own issues by its login and marker (gateway
 * unlabelledPlanIssues). Such a phase is not complete, however its listed plans went. Read only
 * when a phase would be verified; the next sync of the spec puts the labels back.
 */
async function phasesOfHiddenPlans(github: Gateway, spec: string, issues: readonly IssueRecord[]): Promise<Set<string>> {
  const listed = new Set(issues.map((i) => i.number));
  const all = await github.unlabelledPlanIssues(spec, { listed: [...issues], ...matchPlanIssues(spec, issues) });
  return new Set(
    [...all.byPlan]
      .filter(([, issue]) => !listed.has(issue.number) && !isDone(issue) && parseMarker(issue.body)?.removed === undefined)
      .map(([plan]) => planPhase(plan)),
  );
}

/** A spec larger than its window, as its plan issues tell with no request: they record its size (`of=`), and fewer have issues. */
export function isWindowed(issues: readonly { body?: string | null }[]): boolean {
  const total = Math.max(0, ...issues.map((i) => parseMarker(i.body)?.of ?? 0));
  return total > 0 && issues.length < total;
}

/** Done, from the list alone: with the App's record of why (verified-record.ts), whatever its state shows. */
function isDone(issue: IssueRecord): boolean {
  return parseMarker(issue.body)?.verified !== undefined;
}

/**
 * Does a spec's issue window need to move on? Told from the plan issues the round read, with no
 * request: a spec larger than its window records its size on its plan issues (`of=`), so fewer
 * issues than that means plans still to come; and when plans finishing have left fewer than
 * `issue_window` less its slack (half of it: windowSlack) not yet done among them, the window is
 * filled again, a batch of plans in one move.
 */
export function windowNeedsMoving(issues: readonly IssueRecord[], window: number): boolean {
  return isWindowed(issues) && issues.filter((i) => !isDone(i)).length < window - windowSlack(window);
}

/**
 * Moves a large spec's issue window on from a scheduling round (issue-window.ts), when plans
 * finishing have left too few not done among its issues (windowNeedsMoving): the spec is read
 * where its tracking issue's marker says it was synced from (the spec directory's Git tree,
 * which no push changes: read once, then kept in the App's memory), and the plan issues synced
 * with the window as it is now, which creates the issues of the plans the scheduler will start
 * next (queued, when every plan with an issue was), in the order the App keeps searched for
 * that tree (wholeSpecOrder; syncWindow, which converges with a concurrent move). `listing`:
 * the spec's issues as the round just read them, which the first sync starts from (no second
 * read).
 * Returns each plan's issue after the move, or undefined when the window stays.
 */
export async function moveIssueWindow(
  context: Context,
  spec: string,
  issues: readonly IssueRecord[],
  config: HarnessConfig,
  listing?: SpecIssues,
): Promise<IssueRecord[] | undefined> {
  if (!windowNeedsMoving(issues, issueWindowSize(config))) return undefined;
  return syncWindow(context, spec, config, [], 'issue window moved on', listing);
}

/**
 * Brings the issues of the plans a command names (`/harness execute PP` or `PP-NN`) and of every
 * plan they need into being now, for a spec larger than its window whose plans get issues as the
 * scheduler reaches them: the command can then queue what the person asked for, which the window
 * may reach only later. Returns each plan's issue after, or undefined when nothing was missing
 * (no request) or the spec its tracking issue records cannot be read.
 */
export async function issueAsked(
  context: Context,
  spec: string,
  issues: readonly IssueRecord[],
  config: HarnessConfig,
  asked: (plan: { id: string; phase: string }) => boolean,
): Promise<IssueRecord[] | undefined> {
  if (!isWindowed(issues)) return undefined;
  const found = await recordedSpec(context, spec);
  const plans = found?.spec?.plans.filter(asked) ?? [];
  const issued = new Set(issues.map((i) => parseMarker(i.body)?.plan));
  if (plans.every((p) => issued.has(p.id))) return undefined;
  return syncWindow(
    context,
    spec,
    config,
    plans.map((p) => p.id),
    `issues made for ${plans.length} plans a command named`,
  );
}

/**
 * The plan issues of a windowed spec synced with its window as it is now (and the plans `asked`
 * for): the spec read where its tracking issue's marker says it was synced from, in the order the
 * App keeps searched for that tree (wholeSpecOrder). As at a spec PR, a sync that created issues
 * runs once more, on the list with every issue updated since a little before it read again
 * (planIssuesSince: one page, where the whole list of a 1,000-plan spec is ten), so that two
 * deliveries moving the window at once converge (the lowest-numbered issue kept, the other
 * closed as a duplicate).
 */
async function syncWindow(
  context: Context,
  spec: string,
  config: HarnessConfig,
  asked: readonly string[],
  what: string,
  listing?: SpecIssues,
): Promise<IssueRecord[] | undefined> {
  const github = appGateway(context);
  const found = await recordedSpec(context, spec);
  if (!found) return undefined;
  const { source, files, spec: loaded } = found;
  if (!files || !loaded) {
    context.log.warn(
      `${spec}: the spec its tracking issue records (tree ${source.tree}) does not load, so its issue window stays where it is until the spec's pull request syncs again`,
    );
    return undefined;
  }
  const sync = {
    github,
    spec: loaded,
    planTexts: new Map(files.map((f) => [f.path, decoder.decode(f.bytes)])),
    specPath: source.specPath,
    blobBase: source.blobBase,
    pull: source.pull,
    window: { size: issueWindowSize(config), order: wholeSpecOrder(context, loaded, source.tree, config.slots)?.starts ?? [], asked },
    tree: source.tree,
  };
  const before = listing ?? (await github.planIssues(spec));
  // Ours and GitHub's clocks may differ a little: everything updated since a while before this sync counts as new.
  const since = new Date(Date.now() - SINCE_MARGIN_MS).toISOString();
  let synced = await syncPlanIssues({ ...sync, issues: before });
  // Looking for what a concurrent delivery created meanwhile: only the issues updated since, read again (a page where the list is ten).
  if (synced.tally.created.length > 0) synced = await syncPlanIssues({ ...sync, issues: await github.planIssuesSince(spec, before, since) });
  context.log.info(`${spec}: ${what}, ${synced.tally.window?.issued ?? synced.issues.size} of ${loaded.plans.length} plans have issues`);
  return [...synced.issues.values()];
}
