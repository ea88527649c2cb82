import type { CommitMessage } from '../core/agents/commit-message.js';
import { formatProblem, type Problem } from '../core/spec/problem.js';
import { parseKnowledge } from '../knowledge/documents/parse.js';
import type { Decision, Experiment, Hypothesis } from '../knowledge/documents/schema.js';
import { checkSpikeDecision, checkSpikeDesign, readSpikeIdentity, type SpikeIdentity } from '../knowledge/spikes/spike-checks.js';
import { inSpikeFolder, SPIKE_FILES, spikeFile } from '../knowledge/spikes/spike-files.js';
import { renderSpikeStage, type SpikeInstructions, type SpikeStage, type SpikeValues } from '../knowledge/spikes/spike-instructions.js';
import type { Answers } from './ports.js';
import { agentFailure } from './failure-reason.js';
import { runAgent } from './run-agent.js';
import { spikeAgentRefusal } from './spike-agent.js';
import { spikeStagePlan } from './spike-plan.js';
import type { SpikeCommit, SpikePorts } from './spike-ports.js';

/** The longest time box an experiment may ask for: with the design and the fixes it fits in one worker job (180 minutes). */
export const MAX_TIME_BOX_MINUTES = 120;
/** The design stage's time limit. */
export const DESIGN_MINUTES = 20;
/** The time limit of a second try that only fixes the records. */
export const FIX_MINUTES = 10;

/** templates/spike/*.md as shipped: the form the agent writes the records in. */
export interface SpikeTemplates {
  hypothesis: string;
  experiment: string;
  decision: string;
}

export interface SpikeInput {
  /** The spike's folder, repository-relative: `.harness/knowledge/spikes/<project>/<slug>`. */
  folder: string;
  agent: string;
  instructions: SpikeInstructions;
  templates: SpikeTemplates;
  /** Added to the environment of the agent's processes. */
  env: Record<string, string>;
  /** Outside the checkout: the agent's logs, one folder per stage. */
  logDir: string;
  /** The runtime stopping: the stage is left for the next start to undo. */
  signal?: AbortSignal | undefined;
}

/** What a spike did besides deciding, for the person reading its report. */
export interface SpikeReport {
  /** What a stage cut off by a crash had left, thrown away before starting again. */
  leftovers: string[];
  /** Paths the agent wrote outside the spike's folder, put back as they were. */
  discarded: string[];
  redactions: SpikeCommit['redactions'];
  dropped: SpikeCommit['dropped'];
  /** A stage's records given back to the agent once, and why. */
  retries: string[];
  /** The commits this run added to the spike's branch, oldest first. */
  commits: string[];
}

export type SpikeOutcome =
  | (SpikeReport & {
      kind: 'decided';
      /** The branch held a decision already: nothing ran. */
      already: boolean;
      identity: SpikeIdentity;
      hypothesis: Hypothesis;
      experiment: Experiment;
      decision: Decision;
      /** DECISION.md's body: the decision, evidence, alternatives and consequences. */
      decisionBody: string;
      /** EXPERIMENT.md's body: setup, procedure and results. */
      experimentBody: string;
      /** Files under results/, repository-relative. */
      results: string[];
    })
  | (SpikeReport & {
      kind: 'failed';
      identity?: SpikeIdentity;
      stage?: SpikeStage;
      reason: string;
      /** The records' problems, as `file:line: message`. */
      problems: string[];
    });

/** Nobody answers a spike's agent mid-experiment: its plan is autonomous, so a question is answered by its default, or ends it. */
const NOBODY: Answers = { given: () => undefined, ask: async () => undefined };

function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A fence longer than any run of backticks in the text. */
function fenced(text: string): string {
  const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${fence}markdown\n${text.trim()}\n${fence}`;
}

type StageEnd = { ok: true } | { ok: false; reason: string; problems: Problem[] };

/**
 * A spike, the same on this machine and on a runner (docs/design.md, Knowledge). It starts
 * from the question recorded in the folder's HYPOTHESIS.md and goes where the branch left it:
 *
 * 1. design: the agent rewrites HYPOTHESIS.md and writes EXPERIMENT.md (what to build, what to
 *    measure, the criteria and the time box); skipped when they are there and valid;
 * 2. run: the agent runs the experiment within its time box, saves raw output in results/,
 *    reports every criterion in EXPERIMENT.md and writes DECISION.md.
 *
 * After each stage whatever the agent wrote outside the folder is put back and reported,
 * harness sets the keys it owns (identity, times, status), and the stage becomes one commit
 * whose files were made safe. Records with problems go back to the agent once; a stage that
 * fails is undone. A branch that holds a valid decision already is reported as it is.
 */
export async function runSpike(input: SpikeInput, ports: SpikePorts): Promise<SpikeOutcome> {
  const spike: SpikeRun = { input, ports, report: { leftovers: [], discarded: [], redactions: [], dropped: [], retries: [], commits: [] } };
  await throwAwayLeftovers(spike);
  const asked = await askedIdentity(spike);
  if (!asked.ok) return asked.failed;
  const { identity } = asked;
  const decided = await decidedAlready(input, ports, identity);
  if (decided) return { ...decided, ...spike.report };
  const values = stageValues(spike, identity);
  const design = await designUnlessDesigned(spike, identity, values);
  if (!design.ok) return failedSpike(spike, design.reason, { identity, stage: 'design', problems: design.problems });
  return runExperiment(spike, identity, values);
}

/** One spike as it runs: what it was given, the ports, and the report it fills in. */
interface SpikeRun {
  input: SpikeInput;
  ports: SpikePorts;
  report: SpikeReport;
}

/** The spike failed, with what it reported so far. */
function failedSpike(spike: SpikeRun, reason: string, more: { identity?: SpikeIdentity; stage?: SpikeStage; problems?: Problem[] } = {}): SpikeOutcome {
  const { problems = [], ...rest } = more;
  return { kind: 'failed', reason, problems: problems.map((p) => formatProblem(p)), ...rest, ...spike.report };
}

/** A line of progress for the person watching. */
async function note(spike: SpikeRun, message: string): Promise<void> {
  await spike.ports.progress.event({ kind: 'progress', message });
}

/** One of the spike's records (SPIKE_FILES), as the branch holds it. */
function readRecord(spike: SpikeRun, name: string): Promise<string | undefined> {
  return spike.ports.workspace.read(spikeFile(spike.input.folder, name));
}

/** A stage an earlier run was cut off in: what it left is thrown away, and reported. */
async function throwAwayLeftovers(spike: SpikeRun): Promise<void> {
  const { workspace } = spike.ports;
  const left = await workspace.interrupted();
  if (!left) return;
  spike.report.leftovers = await workspace.reset(left.since);
  await workspace.end();
  const leftovers = spike.report.leftovers;
  await note(
    spike,
    `the ${left.stage} stage of an earlier run was cut off: what it left is thrown away${leftovers.length > 0 ? ` (${leftovers.join(', ')})` : ''}`,
  );
}

/** The spike's question from HYPOTHESIS.md, naming the spike of its folder, for an agent that can run a spike. */
async function askedIdentity(spike: SpikeRun): Promise<{ ok: true; identity: SpikeIdentity } | { ok: false; failed: SpikeOutcome }> {
  const { folder, agent } = spike.input;
  const asked = readSpikeIdentity(folder, await readRecord(spike, SPIKE_FILES.hypothesis));
  if (!asked.ok)
    return {
      ok: false,
      failed: failedSpike(spike, `the spike's question cannot be read from ${spikeFile(folder, SPIKE_FILES.hypothesis)}`, { problems: asked.problems }),
    };
  const { identity } = asked;
  const expected = `${identity.project}/${identity.slug}`;
  if (!folder.replace(/\/+$/, '').endsWith(`/${expected}`)) {
    return {
      ok: false,
      failed: failedSpike(
        spike,
        `${spikeFile(folder, SPIKE_FILES.hypothesis)} names the spike ${expected}, which is not its folder ${folder}; make project and spike match the folder`,
        { identity },
      ),
    };
  }
  const refused = spikeAgentRefusal(agent);
  if (refused) return { ok: false, failed: failedSpike(spike, refused, { identity }) };
  return { ok: true, identity };
}

/** What the stages' instructions are filled in with. */
function stageValues(spike: SpikeRun, identity: SpikeIdentity): SpikeValues {
  const { input } = spike;
  return {
    question: identity.question,
    slug: identity.slug,
    project: identity.project,
    spec: identity.spec ?? 'none',
    folder: input.folder,
    now: iso(spike.ports.clock.now()),
    max_minutes: String(MAX_TIME_BOX_MINUTES),
    hypothesis_template: fenced(input.templates.hypothesis),
    experiment_template: fenced(input.templates.experiment),
    decision_template: fenced(input.templates.decision),
  };
}

/** The design stage, unless a valid experiment on the branch is a design already made (by an earlier run, or by a person): it is run as it is. */
async function designUnlessDesigned(spike: SpikeRun, identity: SpikeIdentity, values: SpikeValues): Promise<StageEnd> {
  const { input, ports } = spike;
  const { folder } = input;
  const designed = parseKnowledge(
    'experiment',
    spikeFile(folder, SPIKE_FILES.experiment),
    (await readRecord(spike, SPIKE_FILES.experiment)) ?? '',
  ).problems.every((p) => p.severity !== 'error');
  if (designed) {
    await note(spike, `${spikeFile(folder, SPIKE_FILES.experiment)} is designed already: running it`);
    return { ok: true };
  }
  return stage(spike, {
    stage: 'design',
    identity,
    body: renderSpikeStage(input.instructions, 'design', values),
    timeoutMinutes: DESIGN_MINUTES,
    message: (commit) => ({ subject: `spike ${identity.slug}: hypothesis and experiment`, ...commit }),
    check: async () => {
      const checked = checkSpikeDesign({
        folder,
        identity,
        hypothesis: await readRecord(spike, SPIKE_FILES.hypothesis),
        experiment: await readRecord(spike, SPIKE_FILES.experiment),
        now: iso(ports.clock.now()),
        maxMinutes: MAX_TIME_BOX_MINUTES,
      });
      await keep(ports, [checked.hypothesis, checked.experiment]);
      return checked.problems;
    },
  });
}

/** The run stage: the experiment within its time box, its criteria reported and the decision written; decided when its records check. */
async function runExperiment(spike: SpikeRun, identity: SpikeIdentity, values: SpikeValues): Promise<SpikeOutcome> {
  const { input, ports } = spike;
  const { folder } = input;
  const { workspace, clock } = ports;
  const experimentText = (await readRecord(spike, SPIKE_FILES.experiment)) ?? '';
  const experiment = parseKnowledge('experiment', spikeFile(folder, SPIKE_FILES.experiment), experimentText).data;
  if (!experiment)
    return failedSpike(spike, `${spikeFile(folder, SPIKE_FILES.experiment)} no longer parses after the design stage`, { identity, stage: 'run' });
  const timeBox = Math.min(experiment.time_box_minutes, MAX_TIME_BOX_MINUTES);
  const started = iso(clock.now());
  let final: ReturnType<typeof checkSpikeDecision> | undefined;
  const run = await stage(spike, {
    stage: 'run',
    identity,
    body: renderSpikeStage(input.instructions, 'run', {
      ...values,
      criteria: experiment.criteria.map((c) => `- \`${c.id}\`: ${c.measure}; target: ${c.target}`).join('\n'),
      time_box: String(timeBox),
    }),
    timeoutMinutes: timeBox,
    message: (commit) => ({ subject: `spike ${identity.slug}: decision${final?.decision.data ? ` (${final.decision.data.outcome})` : ''}`, ...commit }),
    check: async () => {
      final = checkSpikeDecision({
        folder,
        identity,
        hypothesis: await readRecord(spike, SPIKE_FILES.hypothesis),
        experiment: await readRecord(spike, SPIKE_FILES.experiment),
        decision: await readRecord(spike, SPIKE_FILES.decision),
        results: await workspace.files(spikeFile(folder, SPIKE_FILES.results)),
        started,
        now: iso(clock.now()),
      });
      await keep(ports, [final.hypothesis, final.experiment, final.decision]);
      return final.problems;
    },
  });
  if (!run.ok) return failedSpike(spike, run.reason, { identity, stage: 'run', problems: run.problems });
  const { hypothesis, decision } = final!;
  return {
    kind: 'decided',
    already: false,
    identity,
    hypothesis: hypothesis.data!,
    experiment: final!.experiment.data!,
    decision: decision.data!,
    decisionBody: decision.body ?? '',
    experimentBody: final!.experiment.body ?? '',
    results: await workspace.files(spikeFile(folder, SPIKE_FILES.results)),
    ...spike.report,
  };
}

/** The records as checked, written back where harness set a key. */
async function keep(ports: SpikePorts, records: readonly { path: string; text?: string }[]): Promise<void> {
  for (const r of records) {
    if (r.text !== undefined && r.text !== (await ports.workspace.read(r.path))) await ports.workspace.write(r.path, r.text);
  }
}

/** A branch whose three records are valid and whose results are there: decided, nothing to run. */
async function decidedAlready(
  input: SpikeInput,
  ports: SpikePorts,
  identity: SpikeIdentity,
): Promise<Omit<Extract<SpikeOutcome, { kind: 'decided' }>, keyof SpikeReport> | undefined> {
  const { folder } = input;
  const { workspace } = ports;
  const parse = async <K extends 'hypothesis' | 'experiment' | 'decision'>(kind: K, name: string) => {
    const path = spikeFile(folder, name);
    const text = await workspace.read(path);
    if (text === undefined) return undefined;
    const parsed = parseKnowledge(kind, path, text);
    return parsed.problems.some((p) => p.severity === 'error') ? undefined : parsed;
  };
  const decision = await parse('decision', SPIKE_FILES.decision);
  if (!decision?.data) return undefined;
  const [hypothesis, experiment] = [await parse('hypothesis', SPIKE_FILES.hypothesis), await parse('experiment', SPIKE_FILES.experiment)];
  const results = await workspace.files(spikeFile(folder, SPIKE_FILES.results));
  if (!hypothesis?.data || !experiment?.data || results.length === 0) return undefined;
  await ports.progress.event({ kind: 'progress', message: `${spikeFile(folder, SPIKE_FILES.decision)} is written already: the spike is decided` });
  return {
    kind: 'decided',
    already: true,
    identity,
    hypothesis: hypothesis.data,
    experiment: experiment.data,
    decision: decision.data,
    decisionBody: decision.body ?? '',
    experimentBody: experiment.body ?? '',
    results,
  };
}

interface StageSpec {
  stage: SpikeStage;
  identity: SpikeIdentity;
  /** The stage's instructions, filled in. */
  body: string;
  timeoutMinutes: number;
  /** The stage's commit, given the body and trailers harness writes. */
  message: (commit: Omit<CommitMessage, 'subject'>) => CommitMessage;
  /** Set harness's keys in the records, write them back, and say what is still wrong. */
  check: () => Promise<Problem[]>;
}

/** One stage as it runs: where it started on the branch. */
interface StageRun extends SpikeRun {
  spec: StageSpec;
  /** The branch's head before the stage: what undoing it goes back to. */
  since: string;
}

/** One stage: the agent, its writes confined and committed, the records checked, given back once when they have problems. */
async function stage(spike: SpikeRun, spec: StageSpec): Promise<StageEnd> {
  const { workspace } = spike.ports;
  const since = await workspace.head();
  await workspace.begin(spec.stage, since);
  const run: StageRun = { ...spike, spec, since };
  let problems: Problem[] = [];
  for (const fix of [false, true]) {
    const ran = await stageAgent(run, fix, problems);
    if (!ran.ok) return ran;
    problems = await commitAndCheck(run);
    if (problems.length === 0) break;
    if (fix) {
      await undo(run);
      return {
        ok: false,
        reason: `the ${spec.stage} stage's records still have ${problems.length} problem${problems.length === 1 ? '' : 's'} after the agent's second try; the stage was undone`,
        problems,
      };
    }
    await giveBack(run, problems);
  }
  return keepStage(run);
}

/** The stage undone: the branch back where it started, the stage over. */
async function undo(run: StageRun): Promise<void> {
  await run.ports.workspace.reset(run.since);
  await run.ports.workspace.end();
}

/** The stage's agent, once, or again to fix the records' problems; a stage whose agent did not complete is undone. */
async function stageAgent(run: StageRun, fix: boolean, problems: readonly Problem[]): Promise<StageEnd> {
  const { input, ports, spec } = run;
  const { folder, agent } = input;
  const { identity } = spec;
  const body = fix ? `${spec.body}\n${fixSection(problems)}` : spec.body;
  const plan = spikeStagePlan({
    stage: spec.stage,
    fix,
    question: identity.question,
    folder,
    file: input.instructions.file,
    body,
    timeoutMinutes: fix ? Math.min(FIX_MINUTES, spec.timeoutMinutes) : spec.timeoutMinutes,
  });
  const base = await ports.workspace.head();
  const result = await ports.progress.stage(`spike ${identity.slug}: ${spec.stage}${fix ? ' (fixing the records)' : ''}, by ${agent}`, () =>
    runAgent(
      {
        spec: `spike/${identity.slug}`,
        plan,
        agent,
        session: `spike-${identity.slug}-${plan.id}`,
        base,
        resume: false,
        prompt: async () => body,
        env: { ...input.env, HARNESS_SPIKE: identity.slug, HARNESS_SPIKE_FOLDER: folder, HARNESS_SPIKE_STAGE: spec.stage },
        logDir: `${input.logDir.replace(/\/+$/, '')}/${plan.id}`,
        signal: input.signal,
      },
      { ...ports, answers: NOBODY },
    ),
  );
  if (result.kind === 'completed') return { ok: true };
  await undo(run);
  const error = result.kind === 'failed' ? result.error : `it stopped to ask "${result.checkpoint.prompt.split('\n')[0]}", and nobody answers a spike's agent`;
  const timedOut = result.kind === 'failed' && result.timedOut;
  return {
    ok: false,
    reason: `${agentFailure(agent, error)}${timedOut ? ` (the ${spec.stage} stage's limit is ${plan.timeoutMinutes} minutes)` : ''}; the ${spec.stage} stage was undone`,
    problems: [],
  };
}

/** What the agent wrote outside the folder put back, the stage committed, its records checked: what is still wrong with them. */
async function commitAndCheck(run: StageRun): Promise<Problem[]> {
  const { input, ports, report, spec, since } = run;
  const { folder, agent } = input;
  const { workspace, progress } = ports;
  const outside = await confine(workspace, since, folder);
  if (outside.length > 0) {
    for (const p of outside) if (!report.discarded.includes(p)) report.discarded.push(p);
    await progress.event({ kind: 'progress', message: `put back what the agent wrote outside ${folder}/: ${outside.join(', ')}` });
  }
  const message = (): CommitMessage =>
    spec.message({
      body: [
        `The ${spec.stage} stage of the spike "${spec.identity.question}", by the ${agent} agent.`,
        ...(outside.length > 0 ? [`Put back as they were (written outside the spike's folder): ${outside.join(', ')}.`] : []),
      ].join('\n\n'),
      trailers: [
        { key: 'Spike', value: spec.identity.slug },
        { key: 'Spike-Stage', value: spec.stage },
      ],
    });
  // Committed before the checks, so that they read what was made safe and what will be kept; then again with harness's keys set.
  const first = await workspace.commit(since, message(), folder);
  const problems = await spec.check();
  const second = await workspace.commit(since, message(), folder);
  for (const made of [first, second]) countMadeSafe(report, made);
  return problems;
}

/** What a commit took out of the stage's files, in the report; a retry commits the stage again: what was taken out before is counted once. */
function countMadeSafe(report: SpikeReport, made: SpikeCommit | undefined): void {
  for (const r of made?.redactions ?? [])
    if (!report.redactions.some((x) => x.path === r.path && x.line === r.line && x.rule === r.rule)) report.redactions.push(r);
  for (const d of made?.dropped ?? []) if (!report.dropped.some((x) => x.path === d.path)) report.dropped.push(d);
}

/** The records' problems, reported, go back to the agent once. */
async function giveBack(run: StageRun, problems: readonly Problem[]): Promise<void> {
  const { spec } = run;
  run.report.retries.push(
    `${spec.stage}: the records had ${problems.length} problem${problems.length === 1 ? '' : 's'} (${problems.map((p) => formatProblem(p)).join('; ')}); the agent was given them to fix`,
  );
  await run.ports.progress.event({
    kind: 'progress',
    message: `the records have ${problems.length} problem${problems.length === 1 ? '' : 's'}: giving them back to the agent once`,
  });
}

/** A stage whose records check is kept, as its commit; one that changed nothing is undone. */
async function keepStage(run: StageRun): Promise<StageEnd> {
  const { workspace } = run.ports;
  const sha = await workspace.head();
  if (sha === run.since) {
    await undo(run);
    return { ok: false, reason: `the ${run.spec.stage} stage changed nothing in ${run.input.folder}/`, problems: [] };
  }
  await workspace.end();
  run.report.commits.push(sha);
  return { ok: true };
}

/**
 * Put back everything that differs from `since` outside the folder, until nothing does: a
 * write can surface only once another is undone (a file the agent hid with its own .gitignore
 * rule shows when the rule is put back). The paths put back, in order.
 */
async function confine(workspace: SpikePorts['workspace'], since: string, folder: string): Promise<string[]> {
  const all: string[] = [];
  for (let round = 0; round < 5; round++) {
    const outside = (await workspace.changedSince(since)).filter((p) => !inSpikeFolder(p, folder) && !all.includes(p));
    if (outside.length === 0) return all;
    await workspace.restore(since, outside);
    all.push(...outside);
  }
  return all;
}

function fixSection(problems: readonly Problem[]): string {
  return [
    '## First, fix these',
    '',
    'harness checked the records you wrote and found these problems. Fix them, and change nothing else:',
    '',
    ...problems.map((p) => `- ${formatProblem(p)}`),
    '',
  ].join('\n');
}
