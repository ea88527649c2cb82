import { existsSync } from 'node:fs';
import { join } from 'node:path';
import picomatch from 'picomatch';
import type { Clock } from '../engine/core/clock.js';
import { PICOMATCH_OPTIONS } from '../engine/core/graph/glob.js';
import { MAX_DOCUMENT_BYTES } from '../engine/core/spec/limits.js';
import { loadSpec, type LoadedSpec } from '../engine/core/spec/load.js';
import { formatProblem, type Problem } from '../engine/core/spec/problem.js';
import type { SpecFile } from '../engine/core/spec/text.js';
import { PLAN_READING } from '../engine/importers/dialects.js';
import { agentFailure } from '../engine/lifecycle/failure-reason.js';
import type { Answers, Progress } from '../engine/lifecycle/ports.js';
import { runAgent, type AgentResult } from '../engine/lifecycle/run-agent.js';
import { agentPromptOverride, parseAgentPrompt, type AgentPrompt } from '../engine/planning/agent-prompt.js';
import { planningStagePlan } from '../engine/planning/planning-brief.js';
import { checkPlanningStage } from '../engine/planning/planning-check.js';
import { planningWords, type PlanningCommand } from '../engine/planning/planning-command.js';
import { planningPrecondition } from '../engine/planning/planning-precondition.js';
import {
  discussPaths,
  planningStages,
  planningSubject,
  type DiscussState,
  type PlanningAgentName,
  type PlanningStage,
} from '../engine/planning/planning-steps.js';
import type { Plan, Spec } from '../engine/core/spec/model.js';
import { KNOWLEDGE_ROOT } from '../engine/forge/knowledge-draft.js';
import type { SurfacedEntry } from '../engine/knowledge/documents/loop.js';
import { DEFAULT_SURFACE, surface, type SurfaceOptions } from '../engine/knowledge/surfacing/surface.js';
import { planningSurfaceSubject } from '../engine/planning/planning-knowledge.js';
import { secretValues, type SafetyOptions } from '../machine/content-safety.js';
import { loadSurfacingIndex, safeSurfaced } from '../machine/surfacing-store.js';
import { readTextIfExists } from '../machine/files.js';
import { readCapped, readSpecFiles } from '../machine/spec-files.js';
import { loadTemplate } from '../machine/templates.js';
import { agentFor, type AgentsConfig } from './registry.js';
import { SpikeCheckout } from './spike-checkout.js';

export interface PlanningHere {
  /** A git checkout to work in, absolute: the runner's checkout, or a throwaway worktree of this machine. */
  root: string;
  /** The spec directory, relative to root ("." when the spec is the repository). */
  specDir: string;
  command: PlanningCommand;
  agent: string;
  agents: AgentsConfig;
  env: Record<string, string>;
  /** Outside the checkout: the agent's logs. */
  logDir: string;
  progress: Progress;
  clock: Clock;
  /** discuss-phase: the answers people gave to the phase's questions, as Markdown, written to the discussion before the agent runs. */
  answers?: string;
  /** Other directories that stand for the project, made ${PROJECT_ROOT} in what is committed. */
  roots?: readonly string[];
  /** How much surfaced knowledge a brief takes (config knowledge.surface); the store is the checkout's `.harness/knowledge/`. */
  surface?: SurfaceOptions;
  signal?: AbortSignal;
}

export interface PlanningReport {
  /** Stages whose first try was refused, with the problems the agent was given. */
  retries: { stage: string; problems: string[] }[];
  /** Paths the agent wrote outside what its stage may change, put back. */
  discarded: string[];
  /** Secrets taken out of what was committed (path:line). */
  redactions: string[];
  /** Problems that were so before the command ran, in what was written before it (planning-check.ts): the person's, not the agent's. */
  earlier: string[];
  /** The lessons, skills and genes put in the agent's brief (planning-knowledge.ts), for the trajectory and the reply. */
  surfaced: SurfacedEntry[];
  /** The command as the plan its last stage's agent was given, named `planning/<command>[-PP]`: what the trajectory records the knowledge against. */
  brief?: Plan;
  /** The spec's id, once SPEC.md was read. */
  spec?: string;
}

export type PlanningOutcome =
  | (PlanningReport & { kind: 'committed'; sha: string; subject: string; files: string[]; stages: string[] })
  | (PlanningReport & { kind: 'failed'; reason: string; problems: string[] });

/** Nobody answers a planning agent mid-stage: its questions belong in the documents. */
const NOBODY: Answers = { given: () => undefined, ask: async () => undefined };

function inDir(dir: string, path: string): string {
  return dir === '.' || dir === '' ? path : `${dir.replace(/\/+$/, '')}/${path}`;
}

/**
 * One planning command on a checkout, the same for `harness plan-phase` and for the worker on
 * a runner: the agent's instructions (the repository's `.github/harness/agents/<agent>.md`,
 * else the shipped templates/agents/<agent>.md), each stage run by the agent, confined to the
 * documents it may write, made safe, and judged by the spec model (engine/planning/planning-check.ts).
 * A stage that does not pass is undone and given back once with its problems; a second refusal
 * undoes the whole command. What passes becomes one commit.
 */
export async function runPlanningHere(options: PlanningHere): Promise<PlanningOutcome> {
  const { command, specDir, agent } = options;
  const report: PlanningReport = { retries: [], discarded: [], redactions: [], earlier: [], surfaced: [] };
  const failed = (reason: string, problems: string[] = []): PlanningOutcome => failure(report, reason, problems);

  if (agent === 'script') {
    return failed(
      'the script agent cannot plan: it runs the shell steps a plan spells out, and planning writes the plans. ' +
        'Use claude or command: --agent claude, or planning: { agent: claude } in .github/harness.yml',
    );
  }
  const specRoot = join(options.root, specDir);
  const before = loadSpec(await readSpecFiles(specRoot), PLAN_READING);
  if (!before.spec)
    return failed(
      `the spec in ${specDir} cannot be read, so there is nothing to plan from`,
      before.problems.map((p) => formatProblem(p, specDir === '.' ? '' : specDir)),
    );
  report.spec = before.spec.id;
  const refused = planningPrecondition(command, before.spec);
  if (refused) return failed(refused);

  const stages = planningStages(command, discussState(options, specRoot));
  const prompts = await loadPrompts(options.root, stages);
  if (!prompts.ok) return failed(prompts.reason, prompts.problems);
  const run = await startPlanning({ options, before, spec: before.spec, specRoot, prompts: prompts.prompts, report });
  for (const stage of stages) {
    const refusal = await runStage(run, stage);
    if (refusal) return refusal;
  }
  return commitPlanning(run, stages);
}

/** What the stages of one planning command share. */
interface PlanningRun {
  options: PlanningHere;
  /** The spec before the command ran. */
  before: LoadedSpec;
  spec: Spec;
  /** The spec directory, absolute. */
  specRoot: string;
  prompts: Map<PlanningAgentName, AgentPrompt>;
  checkout: SpikeCheckout;
  /** The checkout's head before the command: what a refusal resets it to. */
  since: string;
  /** discuss-phase: the answers harness wrote (repository-relative), which the stages may change too. */
  answersFile?: string;
  report: PlanningReport;
}

/** One try at a stage. */
interface StageTry {
  stage: PlanningStage;
  /** The checkout's head before the try. */
  base: string;
  /** The second try, given `problems` (the first try's). */
  retry: boolean;
  problems: string[];
}

/** The outcome of a command that failed, with what the report holds so far. */
function failure(report: PlanningReport, reason: string, problems: string[] = []): PlanningOutcome {
  return { kind: 'failed', reason, problems, ...report };
}

/** Which of discuss-phase's documents are there already: the questions, and the answers (given now, or written earlier). */
function discussState(options: PlanningHere, specRoot: string): DiscussState {
  const paths = 'phase' in options.command ? discussPaths(options.command.phase) : undefined;
  return {
    questions: paths !== undefined && existsSync(join(specRoot, paths.questions)),
    answers: options.answers !== undefined || (paths !== undefined && existsSync(join(specRoot, paths.answers))),
  };
}

/** The instructions of each agent the stages name, with the sections its stages use. */
async function loadPrompts(
  root: string,
  stages: readonly PlanningStage[],
): Promise<{ ok: true; prompts: Map<PlanningAgentName, AgentPrompt> } | { ok: false; reason: string; problems: string[] }> {
  const prompts = new Map<PlanningAgentName, AgentPrompt>();
  for (const name of new Set(stages.map((s) => s.agent))) {
    const loaded = await loadPrompt(
      root,
      name,
      stages.filter((s) => s.agent === name).map((s) => s.section),
    );
    if (!loaded.ok) return loaded;
    prompts.set(name, loaded.prompt);
  }
  return { ok: true, prompts };
}

/** The checkout made ready for the stages: the knowledge for the brief surfaced, and discuss-phase's answers written and committed. */
async function startPlanning(run: Omit<PlanningRun, 'checkout' | 'since' | 'answersFile'>): Promise<PlanningRun> {
  const { options, spec, report } = run;
  const { command, specDir } = options;
  const safety = { roots: [options.root, ...(options.roots ?? []), options.logDir], secrets: secretValues({ ...process.env, ...options.env }) };
  const checkout = new SpikeCheckout(options.root, {
    journal: join(options.logDir, 'planning-stage.json'),
    safety,
    env: options.env,
  });
  report.surfaced = await planningKnowledge(options, spec, safety);
  const since = await checkout.head();
  const answersFile = command.name === 'discuss-phase' && options.answers !== undefined ? inDir(specDir, discussPaths(command.phase).answers) : undefined;
  if (answersFile !== undefined) {
    // harness writes the answers it gathered, for the agent to read and for the record; the agent starts from a clean checkout.
    await checkout.write(answersFile, options.answers!);
    await checkout.commit(since, { subject: `${planningWords(command)}: the answers given`, trailers: [] }, specDir);
  }
  return { ...run, checkout, since, answersFile };
}

/** One stage, given back once with its problems when it does not pass. A failure undoes the whole command and is the outcome; undefined when the stage passed. */
async function runStage(run: PlanningRun, stage: PlanningStage): Promise<PlanningOutcome | undefined> {
  const { options, checkout, since, report } = run;
  let problems: string[] = [];
  for (const retry of [false, true]) {
    const base = await checkout.head();
    const result = await runStageAgent(run, { stage, base, retry, problems });
    if (result.kind !== 'completed') {
      await checkout.reset(since);
      const error =
        result.kind === 'failed'
          ? result.error
          : `it stopped to ask "${result.checkpoint.prompt.split('\n')[0]}", and nobody answers a planning agent mid-stage`;
      return failure(report, `${agentFailure(options.agent, error)}; nothing was committed`);
    }
    problems = await commitAndCheck(run, stage, base);
    if (problems.length === 0) break;
    await checkout.reset(base);
    if (retry) {
      await checkout.reset(since);
      return failure(report, `what the agent wrote for ${stage.title} still does not pass after its second try; nothing was committed`, problems);
    }
    report.retries.push({ stage: stage.id, problems });
    await options.progress.event({
      kind: 'progress',
      message: `${stage.title}: ${problems.length} problem${problems.length === 1 ? '' : 's'}; giving them back to the agent once`,
    });
  }
  return undefined;
}

/** The agent's run at one try of a stage, given the stage as its plan (recorded as the report's brief). */
async function runStageAgent(run: PlanningRun, { stage, base, retry, problems }: StageTry): Promise<AgentResult> {
  const { options, spec, prompts, checkout, report } = run;
  const { command, specDir, agent, progress } = options;
  const plan = planningStagePlan({
    command,
    stage,
    prompt: prompts.get(stage.agent)!,
    spec,
    specId: spec.id,
    specDir,
    ...(retry ? { problems } : {}),
    now: options.clock.now(),
  });
  report.brief = { ...plan, id: `planning/${command.name}${'phase' in command ? `-${command.phase}` : ''}` };
  return progress.stage(`${planningWords(command)}: ${stage.title}${retry ? ' (second try)' : ''}, by ${agent}`, () =>
    runAgent(
      {
        spec: spec.id,
        plan,
        agent,
        session: `planning-${spec.id}-${plan.id}`,
        base,
        resume: false,
        prompt: async () => plan.body,
        env: {
          ...options.env,
          HARNESS_PLANNING_COMMAND: command.name,
          HARNESS_PLANNING_STAGE: stage.id,
          HARNESS_PLANNING_TRY: retry ? '2' : '1',
          HARNESS_SPEC_DIR: specDir,
          ...('phase' in command ? { HARNESS_PHASE: command.phase } : {}),
          ...(command.name === 'add-phase' ? { HARNESS_GOAL: command.goal } : {}),
        },
        logDir: join(options.logDir, plan.id),
        signal: options.signal,
        ...(report.surfaced.length > 0 ? { knowledge: report.surfaced } : {}),
      },
      { agent: (name) => agentFor(name, options.agents), workspace: checkout, answers: NOBODY, progress, clock: options.clock },
    ),
  );
}

/** What a try wrote, confined to the stage's documents, committed (made safe) and checked: the problems found, none when it passes. */
async function commitAndCheck(run: PlanningRun, stage: PlanningStage, base: string): Promise<string[]> {
  const { options, before, specRoot, checkout, answersFile, report } = run;
  const { command, specDir } = options;
  const allowed = [...stage.may.map((g) => inDir(specDir, g)), ...(answersFile ? [answersFile] : [])];
  const outside = await confine(checkout, base, allowed);
  for (const p of outside) if (!report.discarded.includes(p)) report.discarded.push(p);
  if (outside.length > 0)
    await options.progress.event({ kind: 'progress', message: `put back what the agent wrote outside its documents: ${outside.join(', ')}` });

  // Committed before the checks, so that they judge what was made safe: what will be kept.
  const made = await checkout.commit(base, { subject: `${planningWords(command)}: ${stage.title}`, trailers: [] }, specDir);
  for (const r of made?.redactions ?? []) {
    const at = `${r.path}:${r.line}`;
    if (!report.redactions.includes(at)) report.redactions.push(at);
  }
  const check = checkPlanningStage({ command, stage, before, after: await afterFiles(specRoot, stage), specDir });
  for (const p of check.earlier) if (!report.earlier.includes(p)) report.earlier.push(p);
  return check.problems;
}

/** The stages' commits made one commit of the command. */
async function commitPlanning(run: PlanningRun, stages: readonly PlanningStage[]): Promise<PlanningOutcome> {
  const { options, spec, checkout, since, report } = run;
  const { command, specDir, agent } = options;
  const subject = planningSubject(command, spec.id, stages);
  const body = [
    `Written by the ${agent} agent for \`${planningWords(command)}\`, and checked by harness before this commit.`,
    ...(report.retries.length > 0 ? [`First tries refused and written again: ${report.retries.map((r) => r.stage).join(', ')}.`] : []),
    ...(report.discarded.length > 0 ? [`Put back as they were (outside the documents of the command): ${report.discarded.join(', ')}.`] : []),
  ].join('\n\n');
  const commit = await checkout.commit(
    since,
    {
      subject,
      body,
      trailers: [
        { key: 'Spec', value: spec.id },
        { key: 'Planning', value: command.name },
      ],
    },
    specDir,
  );
  if (!commit) return failure(report, `the agent changed nothing in ${specDir}; nothing was committed`);
  const files = (await checkout.git.run(['diff', '--name-only', '--no-renames', since, commit.sha])).split('\n').filter(Boolean);
  return { kind: 'committed', sha: commit.sha, subject, files, stages: stages.map((s) => s.id), ...report };
}

/**
 * The knowledge that applies to the command (planning-knowledge.ts), from the checkout's store:
 * on a runner the base branch's, which is what people merged; here what the person's HEAD
 * holds. Knowledge helps the planning and never stops it: a store that cannot be read is said
 * in the progress and the agent plans without it.
 */
async function planningKnowledge(options: PlanningHere, spec: Spec, safety: SafetyOptions): Promise<SurfacedEntry[]> {
  const dir = join(options.root, KNOWLEDGE_ROOT);
  try {
    const index = await loadSurfacingIndex(dir);
    const specText = await readTextIfExists(join(options.root, options.specDir, 'SPEC.md'));
    const entries = await safeSurfaced(surface(index, planningSurfaceSubject(options.command, spec, specText), options.surface ?? DEFAULT_SURFACE), safety);
    if (entries.length > 0)
      await options.progress.event({ kind: 'progress', message: `the brief holds ${entries.map((e) => `${e.kind} ${KNOWLEDGE_ROOT}/${e.path}`).join(', ')}` });
    return entries;
  } catch (e) {
    await options.progress.event({
      kind: 'progress',
      message: `${KNOWLEDGE_ROOT} could not be read (${(e as Error).message}); planning without surfaced knowledge`,
    });
    return [];
  }
}

type LoadedPrompt = { ok: true; prompt: AgentPrompt } | { ok: false; reason: string; problems: string[] };

/** The agent's instructions: the repository's own, else the shipped ones. */
export async function loadPrompt(root: string, name: PlanningAgentName, sections: readonly string[]): Promise<LoadedPrompt> {
  const override = agentPromptOverride(name);
  const own = await readTextIfExists(join(root, override));
  const file = own === undefined ? `templates/agents/${name}.md` : override;
  const parsed = parseAgentPrompt(file, own ?? (await loadTemplate(`agents/${name}.md`)), sections);
  if (parsed.ok) return parsed;
  return {
    ok: false,
    reason: `the ${name}'s instructions in ${file} cannot be used; fix them${own === undefined ? '' : ', or delete the file to use the shipped ones'}`,
    problems: parsed.problems.map((p) => formatProblem(p as unknown as Problem)),
  };
}

/** The spec's files as the model reads them, and the stage's own documents besides. */
async function afterFiles(specRoot: string, stage: PlanningStage): Promise<SpecFile[]> {
  const files = await readSpecFiles(specRoot);
  const have = new Set(files.map((f) => f.path));
  for (const path of stage.writes) {
    if (have.has(path) || !existsSync(join(specRoot, path))) continue;
    files.push(readCapped(join(specRoot, path), path, MAX_DOCUMENT_BYTES));
  }
  return files;
}

/** Put back everything changed since `since` that no allowed glob matches, until nothing is left (a write can surface once another is undone). */
async function confine(checkout: SpikeCheckout, since: string, allowed: readonly string[]): Promise<string[]> {
  const match = picomatch([...allowed], PICOMATCH_OPTIONS);
  const all: string[] = [];
  for (let round = 0; round < 5; round++) {
    const outside = (await checkout.changedSince(since)).filter((p) => !match(p) && !all.includes(p));
    if (outside.length === 0) return all;
    await checkout.restore(since, outside);
    all.push(...outside);
  }
  return all;
}
