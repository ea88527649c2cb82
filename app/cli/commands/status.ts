import { spendJson, spendOf } from '../../engine/core/run/spend.js';
import { plural } from '../../engine/core/plural.js';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { progressCounts, progressOf, type Progress } from '../../engine/core/run/status-document.js';
import { DONE_BEFORE_IMPORT, doneBeforeImport, type DoneBeforeImport } from '../../engine/core/run/done-before-import.js';
import type { Spec } from '../../engine/core/spec/model.js';
import { RunError, RunRepo } from '../../runner/repo.js';
import { emptyRunState, markBlocked, readRunState, type RunState } from '../../runner/run-state.js';
import { OrchestrationStore, type CheckpointRecord, type RunRecord } from '../../runner/store.js';
import { liveRunHolder } from '../../runner/lock.js';
import { formatMinutes } from '../../engine/core/run/duration.js';
import { ASKS } from '../../runner/progress.js';
import { nextSteps } from '../../runner/next-steps.js';
import { EXIT, selfCommand, UsageError, type CliIO } from '../io.js';
import { displayPath, loadSpecDir, specDirArg, specDirOf } from '../spec-input.js';
import { oneLine } from '../../engine/core/spec/problem.js';

export const usage = `Usage: harness status <spec-dir> [--json]

Progress at a glance: each phase and plan with its state, what runs, what waits for
a person (and how to answer), what failed and why. A run whose process is gone (killed,
crashed, the machine restarted) shows as stopped, with the command that resumes it.

Options:
  --json     the same as stable JSON (see docs/cli.md: JSON output)
  -h, --help show this help

Exit: 0.
`;

export async function statusCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const dir = await specDirOf(specDirArg(positionals), io);
  const loaded = await loadSpecDir(dir, io);
  if (!loaded.spec) throw new UsageError(`${displayPath(dir)}: cannot read the spec (harness validate ${displayPath(dir)})`);
  const view = await readStatus(dir, loaded.spec, io);
  if (values.json) {
    io.stdout(`${JSON.stringify(statusJson(view), null, 2)}\n`);
    return EXIT.ok;
  }
  io.stdout(`${(await statusLines(view, io)).join('\n')}\n`);
  return EXIT.ok;
}

/** What `harness status` shows: the spec, and what its run's records say of it. */
interface StatusView {
  /** The spec directory, as given. */
  dir: string;
  spec: Spec;
  repo: RunRepo | undefined;
  store: OrchestrationStore | undefined;
  run: RunRecord | undefined;
  state: RunState;
  /** The run's process is gone (killed, crashed) before it ended. */
  stopped: boolean;
  /** The command that resumes a stopped run. */
  resume: string | undefined;
  /** Done before harness (imported as completed): never shown as harness's verified. */
  before: DoneBeforeImport;
  progress: Progress;
  specStatus: string;
  /** The plans left to run. */
  left: string[];
  /** The last run was asked for some plans (--plan, --phase), and they are done: what it finished. */
  finished: { plan?: string; phase?: string } | undefined;
  checkpoints: { session: string; kind: CheckpointRecord['kind']; prompt: string; options: string[]; askedAt: CheckpointRecord['askedAt'] }[];
  planState(id: string): string;
  phaseState(id: string): string;
}

/** The spec's run as its records say it, and whether it still runs. */
async function readStatus(dir: string, spec: Spec, io: CliIO): Promise<StatusView> {
  // Not in a git repository: nothing has run.
  const repo = await RunRepo.open(resolve(io.cwd, dir)).catch((e: unknown) => {
    if (!(e instanceof RunError)) throw e;
    return undefined;
  });
  const store = repo ? OrchestrationStore.for(repo.root, spec.id) : undefined;
  const run = await store?.readRun();
  const state = store ? await readRunState(store, spec) : emptyRunState();
  markBlocked(spec, state);
  // What the files say is running runs only while a run holds the lock: a killed run's plans are stopped, not running.
  // A run that ended by itself is not stopped, though nothing runs: a `--plan` run leaves the other plans to a later one.
  const stopped = run !== undefined && store !== undefined && run.ended === undefined && (await liveRunHolder(store.root)) === undefined;
  // A stopped `--plan` run resumes as it was asked: the other plans are not its to run.
  const resume = stopped
    ? `harness run ${displayPath(dir)}${run.scope?.phase !== undefined ? ` --phase ${run.scope.phase}` : ''}${run.scope?.plan !== undefined ? ` --plan ${run.scope.plan}` : ''}`
    : undefined;
  const before = doneBeforeImport(spec);
  const { planState, phaseState } = shownStates(state, before, stopped);
  const progress = progressOf(spec, {
    spec: spec.id,
    title: spec.title,
    plans: new Map(spec.plans.map((p) => [p.id, state.plans.get(p.id) ?? 'pending'])),
    phases: new Map(spec.phases.map((p) => [p.id, state.phases.get(p.id) ?? 'pending'])),
    minutes: state.minutes,
    reasons: state.reasons,
    activity: [],
    now: new Date(),
  });
  const active = progress.status === 'executing' || progress.status === 'verifying';
  const specStatus = stopped && (active || spec.plans.some((p) => planState(p.id) === 'stopped')) ? 'stopped' : progress.status;
  const left = spec.plans.filter((p) => planState(p.id) === 'pending').map((p) => p.id);
  const finished = run?.ended !== undefined && run.scope !== undefined && specStatus === 'executing' && left.length > 0 ? run.scope : undefined;
  const checkpoints = [...state.checkpoints.values()].map((c) => ({
    session: c.plan,
    kind: c.kind,
    prompt: c.prompt,
    options: c.options ?? [],
    askedAt: c.askedAt,
  }));
  return { dir, spec, repo, store, run, state, stopped, resume, before, progress, specStatus, left, finished, checkpoints, planState, phaseState };
}

/** Each plan's and phase's state as status shows it: done before import, paused, or stopped with its run, where the records say otherwise. */
function shownStates(state: RunState, before: DoneBeforeImport, stopped: boolean): Pick<StatusView, 'planState' | 'phaseState'> {
  const recorded = (id: string) => state.plans.get(id) ?? 'pending';
  // A plan paused at the model's usage limit is held as a checkpoint; it is shown as what it is.
  const planState = (id: string) =>
    before.plans.has(id) && recorded(id) === 'verified'
      ? DONE
      : state.paused.has(id)
        ? PAUSED
        : stopped && recorded(id) === 'running'
          ? 'stopped'
          : recorded(id);
  const phaseState = (id: string) => {
    const s = state.phases.get(id) ?? 'pending';
    if (before.phases.has(id) && s === 'verified') return DONE;
    return stopped && s === 'verifying' ? 'stopped' : s;
  };
  return { planState, phaseState };
}

/** `harness status --json` (docs/cli.md: JSON output). */
function statusJson({ spec, run, state, resume, progress, specStatus, checkpoints, planState, phaseState }: StatusView): object {
  return {
    spec: spec.id,
    title: spec.title,
    status: run ? specStatus : 'planning',
    progress: { ...progress, status: run ? specStatus : progress.status },
    integrationBranch: run?.integrationBranch ?? null,
    resume: resume ?? null,
    lastRun: run ? { plan: run.scope?.plan ?? null, phase: run.scope?.phase ?? null, ended: run.ended ?? null } : null,
    phases: spec.phases.map((p) => ({ id: p.id, title: p.title, state: phaseState(p.id) })),
    plans: spec.plans.map((p) => {
      const status = state.statuses.get(p.id);
      return {
        id: p.id,
        title: p.title,
        phase: p.phase,
        state: planState(p.id),
        task: status?.currentTask ?? null,
        tasks: status?.totalTasks ?? null,
        message: status?.message ?? null,
        reason: state.reasons.get(p.id) ?? state.paused.get(p.id)?.reason ?? null,
        resumeAt: state.paused.get(p.id)?.resumeAt ?? null,
        minutes: state.minutes.get(p.id) ?? null,
      };
    }),
    checkpoints,
    // What the agents reported they used: the spec's total, by phase, by engine, by plan (docs/cli.md).
    spend: spendJson(spendOf(spec, state.uses)),
  };
}

/** `harness status` for a person: the spec's state, each phase with its plans, who waits for a person, and what next. */
async function statusLines(view: StatusView, io: CliIO): Promise<string[]> {
  const { dir, spec, repo, store, run, state, resume, before, progress, specStatus, left, finished, checkpoints, phaseState } = view;
  const out: string[] = [];
  out.push(`${spec.id} ${oneLine(spec.title)}`);
  out.push(
    run
      ? `${specStatus === 'stopped' ? 'stopped (its harness run is no longer running)' : finished ? `${scopeWords(finished)} finished, ${plural(left.length, 'plan')} left` : specStatus} · ${progressCounts(progress, '')} · ${progress.percent}% · ${formatMinutes(progress.totalMinutes)} of work`
      : `not run yet: harness run ${displayPath(dir)}${before.plans.size > 0 ? ` (${before.plans.size} of ${plural(spec.plans.length, 'plan')} ${DONE_BEFORE_IMPORT}, which it will not run)` : ''}`,
  );
  for (const phase of spec.phases) {
    out.push('', `Phase ${phase.id} · ${oneLine(phase.title)} — ${words(phaseState(phase.id))}`);
    for (const id of phase.plans) out.push(planLine(view, id));
  }
  if (checkpoints.length > 0) {
    out.push('', 'Waiting for a person:');
    for (const c of checkpoints) {
      out.push(`  ${c.session} asks you ${ASKS[c.kind]}: ${oneLine(c.prompt.split('\n')[0] ?? '')}`);
      out.push(`    harness respond ${displayPath(dir)} ${c.session} <answer>${c.options.length ? `   (${c.options.map(oneLine).join(' | ')})` : ''}`);
    }
  }
  const steps =
    store && repo ? await nextSteps(spec, state, store, { repoRoot: repo.root, specArg: displayPath(dir), cwd: io.cwd, self: selfCommand(io) }) : [];
  if (steps.length > 0) out.push('', 'Next:', ...steps.map((l) => `  ${oneLine(l)}`));
  if (run) out.push('', `Integration branch: ${oneLine(run.integrationBranch)}`);
  if (specStatus === 'stopped') out.push(`Resume: ${resume}`);
  if (finished)
    out.push(
      `Left to run: ${left.length > MAX_LEFT_LISTED ? `${left.slice(0, MAX_LEFT_LISTED).join(', ')} and ${left.length - MAX_LEFT_LISTED} more` : left.join(', ')} (harness run ${displayPath(dir)})`,
    );
  return out;
}

/** One plan's line: its mark, id, title and state, and what its state needs said (its step, its reason, when it resumes, how long it took). */
function planLine({ spec, state, planState }: StatusView, id: string): string {
  const plan = spec.planById.get(id)!;
  const s = planState(id);
  const status = state.statuses.get(id);
  const detail =
    s === 'running' && status?.currentTask
      ? `step ${status.currentTask}/${status.totalTasks}: ${oneLine(status.message ?? '')}`
      : s === 'failed' || s === 'blocked'
        ? (state.reasons.get(id) ?? '')
        : s === PAUSED
          ? pausedDetail(state.paused.get(id)!)
          : s === 'verified'
            ? formatMinutes(state.minutes.get(id) ?? 0)
            : s === DONE
              ? doneDetail(spec.planById.get(id)!.completed)
              : '';
  // Step output and reasons can run over lines; their continuation stays under the plan, not at the margin.
  return `  ${mark(s)} ${id} ${oneLine(plan.title)}  ${words(s)}${detail ? ` · ${detail.trimEnd().replace(/\n/g, '\n      ')}` : ''}`;
}

/** Plans left to run named in the last line of `harness status`; the rest are counted. */
const MAX_LEFT_LISTED = 10;

/** What a run was asked to run: `harness run --plan 01-01` is "plan 01-01". */
function scopeWords(scope: { plan?: string; phase?: string }): string {
  if (scope.plan !== undefined) return `plan ${scope.plan}`;
  return scope.phase !== undefined ? `phase ${scope.phase}` : 'the run';
}

/** A plan paused at the model's usage limit (runner/usage-pause.ts): its state in `harness status`, text and JSON. */
const PAUSED = 'paused';

function pausedDetail(pause: { resumeAt: string; resetsAt?: string }): string {
  return `the model's usage limit; ${pause.resetsAt ? 'it resets' : 'tried again'} at ${pause.resumeAt}, when harness run goes on with it`;
}

/** A plan or phase done before harness: its state in `harness status`, text and JSON. */
const DONE = 'done-before-import';

function words(state: string): string {
  return state === DONE ? DONE_BEFORE_IMPORT : state;
}

function doneDetail(completed: string | true | undefined): string {
  return `${typeof completed === 'string' ? `completed ${completed}; ` : ''}not run or checked by harness`;
}

function mark(state: string): string {
  switch (state) {
    case DONE:
      return '≡';
    case 'verified':
      return '✓';
    case 'failed':
      return '✗';
    case 'blocked':
      return '⊘';
    case 'running':
      return '▶';
    case 'stopped':
      return '■';
    case 'checkpoint':
      return '?';
    case PAUSED:
      return '‖';
    default:
      return '·';
  }
}
