import type { Context, Probot } from 'probot';
import { issueWindowSize } from '../../engine/forge/issue-window.js';
import { wholeSpecOrder } from '../schedule/issue-window.js';
import { SPEC_CHECK } from '../../engine/forge/names.js';
import { specCheckId } from '../../engine/forge/spec-check-id.js';
import { specCheckReport, type SpecOutcome, type SyncTally } from '../../engine/forge/spec-check-report.js';
import { loadSpec, type LoadedSpec } from '../../engine/core/spec/load.js';
import { problem } from '../../engine/core/spec/problem.js';
import type { SpecFile } from '../../engine/core/spec/text.js';
import type { Spec } from '../../engine/core/spec/model.js';
import type { HarnessConfig } from '../../engine/core/config/schema.js';
import type { Gateway } from '../../gateway/gateway.js';
import { ANNOTATION_MESSAGE_MAX_BYTES, ANNOTATION_TITLE_MAX } from '../../gateway/check-runs.js';
import { CHECK_RUN_TEXT_MAX, CONTENT_WRITES_PER_HOUR } from '../../gateway/limits.js';
import { GitHubError } from '../../gateway/github-error.js';
import { appGateway } from '../app-gateway.js';
import { memoryOf } from '../app-memory.js';
import { readConfig } from '../config.js';
import { noteUndoneLinks } from '../graph/undone-links.js';
import { alreadySynced } from './already-synced.js';
import { carryForward } from './carry-forward.js';
import { deliveryBudget, readSpecFiles } from './read-spec.js';
import { reportSpecCheck } from './report-spec-check.js';
import { refreshStatusComment } from './status-comment.js';
import { mergeTallies, syncPlanIssues } from './sync-plan-issues.js';
import { touchedSpecs, type TouchedSpec } from './touched-specs.js';
import { PLAN_READING } from '../../engine/importers/dialects.js';

export type SpecPullRequestContext = Context<'pull_request.opened' | 'pull_request.synchronize' | 'pull_request.reopened'>;

interface Loaded {
  dir: TouchedSpec;
  files: SpecFile[];
  result: LoadedSpec;
}

const decoder = new TextDecoder();

/** Step 1 of docs/github-flow.md: spec PRs are validated, and their plans synced to issues. */
export function specPullRequests(app: Pick<Probot, 'on'>): void {
  app.on(['pull_request.opened', 'pull_request.synchronize', 'pull_request.reopened'], handleSpecPullRequest);
}

/** harness's own PRs (plan branches, knowledge PRs) write into spec directories without being spec changes. */
function isHarnessBranch(ref: string): boolean {
  return ref.startsWith('harness/');
}

/** Two directories of one PR claiming the same spec id would sync one set of issues two ways. */
function rejectSharedIds(loaded: Loaded[]): void {
  const seen = new Map<string, string>();
  for (const l of loaded) {
    const id = l.result.spec?.id;
    if (id === undefined) continue;
    const first = seen.get(id);
    if (first === undefined) {
      seen.set(id, l.dir.path);
      continue;
    }
    l.result = {
      ...l.result,
      valid: false,
      problems: [...l.result.problems, problem('SPEC.md', 1, 'field-value', `spec id ${id} is also the id of ${first}; give each spec its own id`)],
    };
  }
}

/**
 * A spec PR opened, pushed to or reopened (docs/github-flow.md, step 1): find the specs it
 * changes, validate them, sync each valid one's plan issues and status comment, and report
 * the `harness / spec` check run on the head commit. A redelivery, or anything else for a
 * commit already done, ends after two reads (alreadySynced); a push that leaves the specs
 * as they were carries the previous commit's result over (carryForward).
 *
 * The check run is written last (or completed last, when it was opened as in progress for
 * a sync that writes), so that a completed run on a commit always means "done": a delivery
 * that fails halfway leaves one that the next delivery does not trust.
 */
async function handleSpecPullRequest(context: SpecPullRequestContext): Promise<void> {
  const pr = context.payload.pull_request;
  if (isHarnessBranch(pr.head.ref)) return;
  const github = appGateway(context);
  const head = pr.head.sha;

  if (await alreadySynced(github, head)) {
    context.log.info({ head }, 'harness / spec: this commit is validated and its plan issues are in step; nothing to do');
    return;
  }

  const { config, problems: configProblems } = await readConfig(context);
  const touched = await touchedSpecs(github, config.specs_root, head, pr.base.sha);
  if (touched.listingFull) context.log.warn(`${config.specs_root} lists the most entries GitHub's contents API returns; specs beyond them are not seen`);
  if (touched.specs.length === 0) return;
  const before = context.payload.action === 'synchronize' ? context.payload.before : undefined;
  if (before && configProblems.length === 0 && (await carryForward(github, { before, head, touched: touched.specs }))) {
    context.log.info({ head, before }, 'harness / spec: the specs are unchanged since the previous push; its result carried over');
    return;
  }

  const loaded = await loadSpecs(github, touched.specs);
  // Issues are written only for PRs from this repository's own branches: anyone can open a
  // PR from a fork, and a fork's spec must not be able to fill the tracker with issues.
  const fromThisRepo = pr.head.repo?.full_name === pr.base.repo.full_name;
  const delivery: Delivery = { context, github, config, toSync: fromThisRepo ? loaded.filter((l) => l.result.valid && l.result.spec) : [] };
  const externalId = specCheckId(loaded.map((l) => ({ spec: l.result.spec?.id ?? l.dir.name, tree: l.dir.tree })));
  const checkRunId = delivery.toSync.length > 0 ? await openSyncCheck(delivery, externalId) : undefined;

  try {
    const outcomes: SpecOutcome[] = [];
    for (const l of loaded) outcomes.push(await outcomeOf(delivery, l));
    const report = specCheckReport(outcomes, configProblems, {
      summaryMax: CHECK_RUN_TEXT_MAX,
      messageMaxBytes: ANNOTATION_MESSAGE_MAX_BYTES,
      titleMax: ANNOTATION_TITLE_MAX,
    });
    // A sync GitHub did not take every write of is not done: no external_id, so the next delivery syncs again.
    const trusted = report.conclusion !== 'neutral';
    await reportSpecCheck(github, { headSha: head, externalId: trusted ? externalId : '', ...(checkRunId !== undefined ? { checkRunId } : {}) }, report);
  } catch (e) {
    if (checkRunId !== undefined) await failSyncCheck(github, checkRunId, e);
    throw e;
  }
}

/** One delivery of a spec PR, as its steps share it: the specs it syncs are `toSync` (valid, and from this repository). */
interface Delivery {
  context: SpecPullRequestContext;
  github: Gateway;
  config: HarnessConfig;
  toSync: Loaded[];
}

/** Each touched spec read (within the delivery's budget) and validated; two claiming one id both refused. */
async function loadSpecs(github: Gateway, specs: readonly TouchedSpec[]): Promise<Loaded[]> {
  const loaded: Loaded[] = [];
  const budget = deliveryBudget();
  for (const dir of specs) {
    const { files, refused } = await readSpecFiles(github, dir.tree, budget);
    loaded.push({ dir, files, result: refused ? { problems: [refused], valid: false } : loadSpec(files, PLAN_READING) });
  }
  rejectSharedIds(loaded);
  return loaded;
}

/** The check run opened as in progress for a sync that writes, saying how large it is; its id. */
async function openSyncCheck({ github, config, context, toSync }: Delivery, externalId: string): Promise<number> {
  const plans = toSync.reduce((n, l) => n + l.result.spec!.plans.length, 0);
  const edges = toSync.reduce((n, l) => n + l.result.spec!.plans.reduce((e, p) => e + p.dependsOn.length, 0), 0);
  const windowed = toSync.some((l) => l.result.spec!.plans.length > issueWindowSize(config));
  const note = windowed
    ? ` A spec this size gets its plan issues a window at a time (\`issue_window\`), in the order the scheduler will start them, the next ones as plans finish, within GitHub's ${CONTENT_WRITES_PER_HOUR} content writes an hour.`
    : plans + edges > CONTENT_WRITES_PER_HOUR
      ? ` A first sync of this size is over ${CONTENT_WRITES_PER_HOUR} writes, GitHub's hourly allowance for creating content: harness paces them and waits whenever GitHub asks it to, so it takes a while.`
      : '';
  const run = await github.createCheckRun({
    name: SPEC_CHECK,
    head_sha: context.payload.pull_request.head.sha,
    status: 'in_progress',
    external_id: externalId,
    output: {
      title: 'Syncing plan issues',
      summary: `harness has validated ${toSync.map((l) => l.result.spec!.id).join(', ')} and is bringing the plan issues in step with it (${plans} plans).${note}`,
    },
  });
  return run.id;
}

/** What the check run says of one spec: its problems and size, and its sync's tally (or why it was not synced). */
async function outcomeOf(delivery: Delivery, l: Loaded): Promise<SpecOutcome> {
  const spec = l.result.spec;
  const outcome: SpecOutcome = { path: l.dir.path, name: spec?.id ?? l.dir.name, problems: l.result.problems, valid: l.result.valid };
  if (spec) {
    outcome.title = spec.title;
    outcome.stats = { plans: spec.plans.length, phases: spec.phases.length, dependencies: spec.plans.reduce((n, p) => n + p.dependsOn.length, 0) };
  }
  if (spec && delivery.toSync.includes(l)) {
    outcome.sync = await syncSpec(delivery, l, spec);
  } else if (spec && l.result.valid) {
    outcome.notSynced =
      'This pull request comes from a fork, so harness validated the spec but wrote no issues: plan issues are synced from pull requests of branches in this repository.';
  }
  return outcome;
}

/** One spec's plan issues synced (twice when it created any), then its status comment and the links it took away said. */
async function syncSpec({ context, github, config }: Delivery, l: Loaded, spec: Spec): Promise<SyncTally> {
  const pr = context.payload.pull_request;
  const sync = {
    github,
    spec,
    planTexts: new Map(l.files.map((f) => [f.path, decoder.decode(f.bytes)])),
    specPath: l.dir.path,
    blobBase: `${context.payload.repository.html_url}/blob/${pr.base.ref}`,
    pull: pr.number,
    // A spec larger than its window: the order its plans get issues in, searched once for both syncs.
    // Kept in the App's memory for the rounds that rank the plans and move the window (wholeSpecOrder).
    window: {
      size: issueWindowSize(config),
      order: spec.plans.length > issueWindowSize(config) ? (wholeSpecOrder(context, spec, l.dir.tree, config.slots)?.starts ?? []) : [],
    },
    tree: l.dir.tree,
  };
  let synced = await syncPlanIssues({ ...sync, issues: await github.planIssues(spec.id) });
  if (synced.tally.created.length > 0 || synced.tally.tracking?.created) {
    // GitHub has no conditional create: another delivery of this event may have been
    // creating the same issues meanwhile. Read them again and converge (the lowest-numbered
    // issue of each kept, the others closed as duplicates, their sub-issues and edges moved).
    const again = await syncPlanIssues({ ...sync, issues: await github.planIssues(spec.id) });
    synced = { issues: again.issues, tally: mergeTallies(synced.tally, again.tally), undone: new Map([...synced.undone, ...again.undone]) };
  }
  // After a race (duplicates closed), the comments are read and the status comment kept once.
  const raced = synced.tally.duplicates.length > 0 || (synced.tally.tracking?.duplicates.length ?? 0) > 0;
  await refreshStatusComment(github, memoryOf(context), pr.number, spec, [...synced.issues.values()], { dedupe: raced });
  // Links people added by hand that no event told the App about, taken away: said on their issues (app/github/graph).
  await noteUndoneLinks(github, sync, synced.issues, synced.undone);
  return synced.tally;
}

/** The in-progress check run of a sync that threw, completed as failed, saying why and that a push carries on. */
async function failSyncCheck(github: Gateway, checkRunId: number, e: unknown): Promise<void> {
  // No external_id: a failed sync must not pass for a finished one; the next delivery redoes it.
  await github
    .updateCheckRun(checkRunId, {
      conclusion: 'failure',
      external_id: '',
      output: {
        title: 'harness could not finish the sync',
        summary: `${e instanceof Error ? e.message : String(e)}\n\nWhat was written stays; push again and harness carries on from there.`,
      },
    })
    .catch((u: unknown) => {
      // GitHub refusing this too: the sync's own failure is what is thrown.
      if (!(u instanceof GitHubError)) throw u;
    });
}
