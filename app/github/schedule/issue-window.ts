import type { Context } from 'probot';
import type { HarnessConfig } from '../../engine/core/config/schema.js';
import { loadSpec } from '../../engine/core/spec/load.js';
import { PLAN_READING } from '../../engine/importers/dialects.js';
import { issueWindowSize } from '../../engine/forge/issue-window.js';
import { LABEL_SPEC, specLabel } from '../../engine/forge/names.js';
import { parseMarker } from '../../engine/forge/plan-issue.js';
import { matchSpecIssue, parseSpecSource, type SpecSource } from '../../engine/forge/spec-issue.js';
import type { IssueRecord } from '../../gateway/issues.js';
import { appGateway } from '../app-gateway.js';
import { memoryOf, type AppMemory } from '../app-memory.js';
import type { SpecFile } from '../../engine/core/spec/text.js';
import type { Spec } from '../../engine/core/spec/model.js';
import type { Gateway } from '../../gateway/gateway.js';
import { readSpecFiles } from '../spec-pr/read-spec.js';
import { syncPlanIssues } from '../spec-pr/sync-plan-issues.js';

const decoder = new TextDecoder();

/** Spec trees the App keeps read (memory.specTrees): a few large specs moving their windows at once. */
const SPEC_TREES_KEPT = 4;

/** A spec directory's files by its Git tree: read once (readSpecFiles), then from the App's memory, since a tree never changes. */
async function specTree(github: Gateway, memory: AppMemory, tree: string): Promise<readonly SpecFile[] | undefined> {
  const kept = memory.specTrees.get(tree);
  if (kept) return kept;
  const { files, refused } = await readSpecFiles(github, tree);
  if (refused) return undefined;
  memory.specTrees.set(tree, files);
  if (memory.specTrees.size > SPEC_TREES_KEPT) memory.specTrees.delete(memory.specTrees.keys().next().value!);
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
      const { issue: tracking } = matchSpecIssue(spec, await github.issuesWithLabels([LABEL_SPEC, specLabel(spec)]));
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
 * A windowed spec whole (recordedSpec): what a round ranks the plans by, those without issues
 * yet included. Undefined when the record is missing or the spec does not load.
 */
export async function windowedSpec(context: Context, spec: string): Promise<{ spec: Spec; tree: string } | undefined> {
  const found = await recordedSpec(context, spec);
  return found?.spec ? { spec: found.spec, tree: found.source.tree } : undefined;
}

/** A spec larger than its window, as its plan issues tell with no request: they record its size (`of=`), and fewer have issues. */
export function isWindowed(issues: readonly { body?: string | null }[]): boolean {
  const total = Math.max(0, ...issues.map((i) => parseMarker(i.body)?.of ?? 0));
  return total > 0 && issues.length < total;
}

/** Done, from the list alone: closed with the App's record of why (verified-record.ts). */
function isDone(issue: IssueRecord): boolean {
  return issue.state === 'closed' && parseMarker(issue.body)?.verified !== undefined;
}

/**
 * Does a spec's issue window need to move on? Told from the plan issues the round read, with no
 * request: a spec larger than its window records its size on its plan issues (`of=`), so fewer
 * issues than that means plans still to come, and fewer than `issue_window` plans not yet done
 * among them means the scheduler may soon run out of work it can see.
 */
export function windowNeedsMoving(issues: readonly IssueRecord[], window: number): boolean {
  return isWindowed(issues) && issues.filter((i) => !isDone(i)).length < window;
}

/**
 * Moves a large spec's issue window on from a scheduling round (issue-window.ts), when plans
 * finishing have left fewer than `issue_window` not done among its issues: the spec is read
 * where its tracking issue's marker says it was synced from (the spec directory's Git tree,
 * which no push changes: read once, then kept in the App's memory), and the plan issues synced with the window as it is now, which creates the
 * next phases' issues (queued, when every plan with an issue was). As at a spec PR, a sync that
 * created issues runs once more on a fresh list, so that two rounds moving the window at once
 * converge (the lowest-numbered issue kept, the other closed as a duplicate). Returns each
 * plan's issue after the move, or undefined when the window stays.
 */
export async function moveIssueWindow(context: Context, spec: string, issues: readonly IssueRecord[], config: HarnessConfig): Promise<IssueRecord[] | undefined> {
  const window = issueWindowSize(config);
  if (!windowNeedsMoving(issues, window)) return undefined;
  const github = appGateway(context);
  const found = await recordedSpec(context, spec);
  if (!found) return undefined;
  const { source, files, spec: loaded } = found;
  if (!files || !loaded) {
    context.log.warn(`${spec}: the spec its tracking issue records (tree ${source.tree}) does not load, so its issue window stays where it is until the spec's pull request syncs again`);
    return undefined;
  }
  const sync = {
    github,
    spec: loaded,
    planTexts: new Map(files.map((f) => [f.path, decoder.decode(f.bytes)])),
    specPath: source.specPath,
    blobBase: source.blobBase,
    pull: source.pull,
    window,
    tree: source.tree,
  };
  let synced = await syncPlanIssues({ ...sync, issues: await github.planIssues(spec) });
  if (synced.tally.created.length > 0) synced = await syncPlanIssues({ ...sync, issues: await github.planIssues(spec) });
  context.log.info(`${spec}: issue window moved on, ${synced.tally.window?.issued ?? synced.issues.size} of ${loaded.plans.length} plans have issues`);
  return [...synced.issues.values()];
}
