import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CONFIG_PATH, parseConfig } from '../../engine/core/config/parse.js';
import { DEFAULT_CONFIG, type HarnessConfig } from '../../engine/core/config/schema.js';
import { formatProblem } from '../../engine/core/spec/problem.js';
import { planPhase } from '../../engine/core/spec/model.js';
import type { RunOptions } from '../../runner/context.js';
import { RunLockedError } from '../../runner/lock.js';
import type { RunReflection } from '../../runner/reflection.js';
import { ReflectorError } from '../../engine/knowledge/lessons/reflector.js';
import { configuredReflector } from '../../machine/reflector-agent.js';
import { PlainReporter, TtyReporter } from '../../runner/progress.js';
import { RepoStateError, RunError, RunRepo } from '../../runner/repo.js';
import { OrchestrationStore } from '../../runner/store.js';
import { runSpec, type RunOutcome } from '../../runner/runner.js';
import { nextSteps } from '../../runner/next-steps.js';
import { markBlocked, readRunState } from '../../runner/run-state.js';
import type { Spec } from '../../engine/core/spec/model.js';
import { DONE_BEFORE_IMPORT, doneBeforeImport, type DoneBeforeImport } from '../../engine/core/run/done-before-import.js';
import { KNOWLEDGE_ROOT } from '../../engine/forge/knowledge-draft.js';
import { signalEntries } from '../../engine/knowledge/documents/store-index.js';
import { holdoutSettings } from '../../engine/knowledge/holdout/holdout.js';
import { plural } from '../../engine/core/plural.js';
import { reflectLocally } from '../../machine/local-reflection.js';
import { secretValues } from '../../machine/content-safety.js';
import { agentsConfig } from '../../agents/config.js';
import { AGENT_NAMES } from '../../agents/registry.js';
import { EXIT, selfCommand, UsageError, type CliIO } from '../io.js';
import { terminalAsker } from '../terminal-ask.js';
import { displayPath, loadSpecDir, specDirArg, specDirOf } from '../spec-input.js';
import { agentProblem } from '../agent-preflight.js';
import { isDirectory, pathFrom, readTextIfExists } from '../../machine/files.js';
import { MachineSandboxes, SandboxUnavailableError } from '../../machine/sandbox.js';

export const usage = `Usage: harness run <spec-dir> [--phase P] [--plan ID] [--slots N] [--agent NAME] [--retry [--keep-base]] [--wait] [--sandbox] [--knowledge DIR]

Execute a spec locally: each plan in its own git worktree and branch
(harness/<spec>/<plan>), run by its agent, verified, and merged in dependency
order into harness/<spec>/integration, where phases are verified and SUMMARY.md,
VERIFICATION.md, STATUS.md, ROADMAP.md and execution/commits.log are written.
A run stopped at any moment (Ctrl-C, a crash, SIGKILL) resumes where it was when
started again. Checkpoints wait for "harness respond" (or an answer typed here).
A plan whose agent stops at the model's usage limit is paused, not failed: it goes
on after the limit resets, in this run with --wait, else when run again.

Options:
  --phase P    start only plans of phase P
  --plan ID    start only this plan
  --slots N    plans at once (default: slots in .github/harness.yml, else 4)
  --agent NAME run every plan with this agent: ${AGENT_NAMES.join(', ')} (a run started
               with one resumes and retries with it unless told another)
  --retry      give failed and blocked plans, and failed phases, a fresh attempt; when
               the branch the run started from has moved, its new commits are merged
               into the integration branch first, so the retry runs today's code
  --keep-base  with --retry: retry on the base the run started from
  --wait       when only plans paused at the model's usage limit are left, wait for
               the reset and go on (without it the run ends and says when to run again)
  --sandbox    run every agent in the sandbox: its connections only to its engine's API,
               GitHub and network.allowed of .github/harness.yml (blocked: refused);
               writes only to its worktree and its own folders; no credential files
               read. Needs bubblewrap, socat and ripgrep on Linux (docs/security.md)
  --knowledge DIR
               the knowledge store whose lessons, skills and genes are surfaced into
               each plan's brief (default: .harness/knowledge of the repository)
  -h, --help   show this help

Exit: 0 every plan and phase verified (with --plan or --phase: every plan it names),
1 failures or work left, 2 usage error, 74 the machine failed (a full disk, a worktree's
.git removed): one line says what to do, and the run resumes when started again,
75 nothing failed but a plan is paused at the model's usage limit: one line says
when it resets and the command that goes on then.
`;

export async function runCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseRunArgs(args);
  const dir = await specDirOf(specDirArg(positionals), io);
  const specDir = resolve(io.cwd, dir);
  const slots = slotsOf(values.slots);
  if (values.agent !== undefined && !(AGENT_NAMES as readonly string[]).includes(values.agent)) {
    throw new UsageError(`--agent must be one of ${AGENT_NAMES.join(', ')}, not "${values.agent}"`);
  }
  // Checked before git is asked: git's answer for a missing directory is "not a repository".
  if (!(await isDirectory(specDir))) throw new UsageError(`${displayPath(dir)}: no such directory`);
  const repo = await openRepo(specDir, dir);
  const config = await readConfig(repo.root, io);
  if (!config) return EXIT.problems;
  await checkKnowledgeOption(values.knowledge, config, io);
  const reflection = runReflection(config, repo.root, io);
  if (reflection === undefined) return EXIT.problems;
  const loaded = await loadSpecDir(dir, io);
  const chosen = await chooseAgent(values.agent, loaded.spec, config, repo.root, io);
  if (chosen.problem !== undefined) {
    io.stderr(`harness run: ${chosen.problem}\n`);
    return EXIT.problems;
  }
  const setup: RunSetup = { io, values, dir, specDir, slots, repo, config, reflection, spec: loaded.spec, agent: chosen.agent };

  const reporter = io.isTTY ? new TtyReporter(io.stdout) : new PlainReporter(io.stdout);
  const abort = new AbortController();
  const onSigint = interruptHandler(reporter, io, abort);
  process.on('SIGINT', onSigint);
  const options = await runOptions(setup, reporter, abort.signal);
  let sandbox: MachineSandboxes | undefined;
  if (values.sandbox) {
    const started = await startSandbox(config, io);
    if (started instanceof SandboxUnavailableError) {
      process.off('SIGINT', onSigint);
      io.stderr(`harness run: ${started.message}\n`);
      return EXIT.environment;
    }
    sandbox = started;
    runInSandbox(options, sandbox);
  }
  try {
    return await reportOutcome(setup, options, await runSpec(options));
  } catch (e) {
    if (e instanceof RunLockedError) {
      io.stderr(`harness run: ${e.message}\n`);
      return EXIT.problems;
    }
    if (e instanceof RunError && !(e instanceof RepoStateError)) throw new UsageError(e.message);
    throw e;
  } finally {
    process.off('SIGINT', onSigint);
    await sandbox?.close();
  }
}

function parseRunArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      phase: { type: 'string' },
      plan: { type: 'string' },
      slots: { type: 'string' },
      agent: { type: 'string' },
      retry: { type: 'boolean' },
      'keep-base': { type: 'boolean' },
      wait: { type: 'boolean' },
      sandbox: { type: 'boolean' },
      knowledge: { type: 'string' },
    },
  });
}

/** What `harness run` settled before the run starts. */
interface RunSetup {
  io: CliIO;
  values: ReturnType<typeof parseRunArgs>['values'];
  /** The spec directory as given, and absolute. */
  dir: string;
  specDir: string;
  slots: number | undefined;
  repo: RunRepo;
  config: HarnessConfig;
  reflection: RunReflection;
  /** The spec, where it loads (the run says its problems otherwise). */
  spec: Spec | undefined;
  agent: string | undefined;
}

/** --slots, checked. */
function slotsOf(option: string | undefined): number | undefined {
  if (option === undefined) return undefined;
  const slots = Number(option);
  if (!Number.isInteger(slots) || slots < 1 || slots > 64) throw new UsageError(`--slots must be a whole number from 1 to 64, not "${option}"`);
  return slots;
}

/** The repository the spec is in; one harness cannot run in is a usage error. */
async function openRepo(specDir: string, dir: string): Promise<RunRepo> {
  try {
    return await RunRepo.open(specDir);
  } catch (e) {
    if (e instanceof RunError) throw new UsageError(e.message);
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError(`${displayPath(dir)}: no such directory`);
    throw e;
  }
}

/** --knowledge names a directory; without it, a knowledge repository the config names is said not to be read. */
async function checkKnowledgeOption(option: string | undefined, config: HarnessConfig, io: CliIO): Promise<void> {
  if (option !== undefined && !(await isDirectory(resolve(io.cwd, option)))) {
    throw new UsageError(`--knowledge ${option}: no such directory`);
  }
  if (option === undefined && config.knowledge.repository !== undefined) {
    io.stderr(
      `harness run: knowledge.repository is ${config.knowledge.repository}; pass --knowledge <its checkout> to surface from it (the repository's own .harness/knowledge is read now)\n`,
    );
  }
}

/** The agent every plan runs with, if one is forced; a problem where this machine cannot start the agents the plans need. */
async function chooseAgent(
  option: string | undefined,
  spec: Spec | undefined,
  config: HarnessConfig,
  root: string,
  io: CliIO,
): Promise<{ agent: string | undefined; problem?: string }> {
  // A retry or a resume goes on with the agent the run was started with, unless told otherwise.
  const recorded = spec && option === undefined ? (await OrchestrationStore.for(root, spec.id).readRun())?.agent : undefined;
  const agent = option ?? recorded;
  if (recorded !== undefined) io.stderr(`harness run: each plan runs with the ${recorded} agent, as this run was started (--agent NAME for another)\n`);
  const problem = spec ? agentProblem(spec, config, agent, { path: io.env.PATH ?? process.env.PATH, cwd: root }) : undefined;
  return { agent, ...(problem === undefined ? {} : { problem }) };
}

/** Ctrl-C stops the run (its state kept, to resume); a second one quits at once. */
function interruptHandler(reporter: TtyReporter | PlainReporter, io: CliIO, abort: AbortController): () => void {
  let interrupts = 0;
  return () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    const stopping = 'stopping: running plans are stopped and their state kept; run the same command again to resume (Ctrl-C again to quit at once)';
    // Through the live area in a terminal: written past it, the next redraw would erase this line instead of the area.
    if (reporter instanceof TtyReporter) reporter.event({ kind: 'info', text: stopping });
    else io.stderr(`\n${stopping}\n`);
    abort.abort();
  };
}

/** The runner's options, from the config and the command's options. */
async function runOptions(setup: RunSetup, reporter: TtyReporter | PlainReporter, signal: AbortSignal): Promise<RunOptions> {
  const { io, values, specDir, slots, repo, config, agent } = setup;
  // knowledge.holdout: the plans that run without surfaced knowledge, for `harness retrospective` to compare.
  const holdout = holdoutSettings(config.knowledge);
  const options: RunOptions = {
    specDir,
    specArg: displayPath(pathFrom(io.cwd, specDir)),
    slots: slots ?? config.slots,
    agents: agentsConfig(config),
    ...(config.budget_usd === undefined ? {} : { budgetUsd: config.budget_usd }),
    ...(config.budget?.per_spec_usd === undefined ? {} : { perSpecUsd: config.budget.per_spec_usd }),
    ...(config.budget?.per_day_usd === undefined ? {} : { perDayUsd: config.budget.per_day_usd }),
    defaultAgent: config.agent,
    ...(config.agents.fallback ? { fallback: config.agents.fallback } : {}),
    ...(config.strict_files ? { strictFiles: true } : {}),
    reporter,
    // 10 s without output while something runs prints what runs, and for how long.
    ...(io.ticker ? { ticker: io.ticker } : {}),
    signal,
    env: { ...definedEnv(io.env), ...(await gitIdentity(repo)) },
    knowledge: {
      ...(values.knowledge === undefined ? {} : { dir: resolve(io.cwd, values.knowledge) }),
      budgetTokens: config.knowledge.surface.budget_tokens,
      maxEntries: config.knowledge.surface.max_entries,
      ...(config.knowledge.genes ? { candidateShare: config.knowledge.genes.candidate_share } : {}),
      ...(holdout ? { holdout } : {}),
    },
    capture: config.knowledge.capture,
  };
  if (agent !== undefined) options.agent = agent;
  applyFlags(options, setup, reporter);
  return options;
}

/** What the command's flags, the terminal and a test's clock add to the runner's options. */
function applyFlags(options: RunOptions, { io, values, reflection }: RunSetup, reporter: TtyReporter | PlainReporter): void {
  if (values.phase !== undefined) options.phase = values.phase.padStart(2, '0');
  if (values.plan !== undefined) options.plan = values.plan;
  if (values.retry) options.retry = true;
  if (values.wait) options.wait = true;
  // The run's wall clock and the timer --wait waits with: a test's own where it gives one.
  if (io.clock) {
    options.now = () => io.clock!.now();
    options.timers = io.clock;
  }
  if (values['keep-base']) {
    if (!values.retry) throw new UsageError('--keep-base goes with --retry: it keeps the base a retried run started from');
    options.keepBase = true;
  }
  if (io.isTTY && process.stdin.isTTY) options.ask = terminalAsker(reporter instanceof TtyReporter ? reporter : undefined);
  options.reflection = reflection;
}

/** The machine's sandboxes for --sandbox, or why this machine cannot have them. */
async function startSandbox(config: HarnessConfig, io: CliIO): Promise<MachineSandboxes | SandboxUnavailableError> {
  try {
    return await MachineSandboxes.start({ allowed: config.network?.allowed ?? [], blocked: config.network?.blocked ?? [], env: io.env });
  } catch (e) {
    if (!(e instanceof SandboxUnavailableError)) throw e;
    return e;
  }
}

function runInSandbox(options: RunOptions, sandbox: MachineSandboxes): void {
  options.sandbox = sandbox;
  // Codex's own sandbox (bubblewrap, no network for commands) would nest inside harness's: harness's holds its commands instead, unless the config chose one.
  if (options.agents?.codex?.sandbox === undefined) options.agents = { ...options.agents, codex: { ...options.agents?.codex, sandbox: 'danger-full-access' } };
}

/** What the run came to, said, and its exit code. */
async function reportOutcome(setup: RunSetup, options: RunOptions, outcome: RunOutcome): Promise<number> {
  const { io, dir } = setup;
  if (outcome.problems) {
    for (const p of outcome.problems) io.stderr(`${formatProblem(p, displayPath(dir))}\n`);
    io.stderr(`harness run: ${displayPath(dir)} has errors; nothing ran\n`);
    return EXIT.problems;
  }
  io.stdout(await outcomeText(setup, options, outcome));
  if (outcome.fault !== undefined) {
    io.stderr(`harness run: ${outcome.fault}\n`);
    return EXIT.environment;
  }
  if (sayPaused(io, options, outcome)) return EXIT.paused;
  // A limited run succeeds when what it was asked for is verified; the rest of the spec is left for later on purpose.
  const asked = Object.entries(outcome.plans).filter(
    ([id]) => (options.plan === undefined || id === options.plan) && (options.phase === undefined || planPhase(id) === options.phase),
  );
  const limited = options.plan !== undefined || options.phase !== undefined;
  return (limited ? !outcome.stopped && asked.every(([, s]) => s === 'verified') : outcome.complete) ? EXIT.ok : EXIT.problems;
}

/** The run's end for a person: what was verified, where the integration branch is, what was captured, and what next. */
async function outcomeText({ io, repo, config, spec }: RunSetup, options: RunOptions, outcome: RunOutcome): Promise<string> {
  const plans = Object.values(outcome.plans);
  const count = (list: string[], s: string) => list.filter((x) => x === s).length;
  return [
    '',
    `${outcome.spec}: ${verifiedCounts(outcome, spec ? doneBeforeImport(spec) : undefined)}${
      count(plans, 'failed') ? `, ${count(plans, 'failed')} failed` : ''
    }${count(plans, 'blocked') ? `, ${count(plans, 'blocked')} blocked` : ''}${outcome.paused ? `, ${outcome.paused.length} paused at the usage limit` : ''}${outcome.stopped ? ' (stopped; run again to resume)' : ''}`,
    `  integration branch: ${outcome.integrationBranch}`,
    `  its worktree:       ${outcome.integrationWorktree}`,
    `  status:             ${outcome.statusFile}`,
    ...(await knowledgeLines(outcome, config, io)),
    ...(outcome.waits ?? []).map((w) => `  ${w}`),
    ...(outcome.complete
      ? [`  next: review, then merge ${outcome.integrationBranch} into your branch`]
      : await failureSteps(spec, repo.root, options.specArg, io)),
    '',
  ].join('\n');
}

/** A plan paused at the usage limit: when it resumes and how, said; true when only time is missing (the run exits EXIT.paused). */
function sayPaused(io: CliIO, options: RunOptions, outcome: RunOutcome): boolean {
  const paused = outcome.paused?.[0];
  if (paused === undefined) return false;
  const more = outcome.paused!.length > 1 ? ` (and ${outcome.paused!.length - 1} more plan${outcome.paused!.length > 2 ? 's' : ''})` : '';
  const again = `${selfCommand(io)} run ${options.specArg}${options.phase !== undefined ? ` --phase ${options.phase}` : ''}${options.plan !== undefined ? ` --plan ${options.plan}` : ''}`;
  io.stderr(
    `harness run: ${paused.plan}${more} paused at the model's usage limit until ${paused.resumeAt}; resume then with: ${again} (or now with --wait, which waits for it)\n`,
  );
  // Only time is missing: a failure besides it still needs a person, and says so with 1.
  const failures = Object.values(outcome.plans).some((s) => s === 'failed' || s === 'blocked') || Object.values(outcome.phases).some((s) => s === 'failed');
  return !failures && !outcome.stopped;
}

/** After a run that did not finish: each failure's check, log and retry, else where to look. */
async function failureSteps(spec: Spec | undefined, repoRoot: string, specArg: string, io: CliIO): Promise<string[]> {
  const fallback = `  next: ${selfCommand(io)} status ${specArg}`;
  if (!spec) return [fallback];
  const store = OrchestrationStore.for(repoRoot, spec.id);
  const state = await readRunState(store, spec);
  markBlocked(spec, state);
  const steps = await nextSteps(spec, state, store, { repoRoot, specArg, cwd: io.cwd, self: selfCommand(io) });
  return steps.length > 0 ? ['  next:', ...steps.map((l) => `    ${l}`)] : [fallback];
}

/** "3/10 plans verified (7 more done before import), …": what harness verified, apart from what was done before it. */
function verifiedCounts(outcome: RunOutcome, before: DoneBeforeImport | undefined): string {
  const part = (states: Record<string, string>, kind: string, earlier: ReadonlySet<string> | undefined) => {
    const ids = Object.keys(states);
    const done = ids.filter((id) => earlier?.has(id) && states[id] === 'verified').length;
    const verified = ids.filter((id) => states[id] === 'verified').length - done;
    return `${verified}/${ids.length} ${kind} verified${done > 0 ? ` (${done} more ${DONE_BEFORE_IMPORT}, not run)` : ''}`;
  };
  return `${part(outcome.plans, 'plans', before?.plans)}, ${part(outcome.phases, 'phases', before?.phases)}`;
}

/**
 * What the run captured for the knowledge loop, and what `harness reflect` would make of the
 * store now (a dry run: no agent, nothing written): said where a person reading the run's end
 * looks, since the signals are committed on the integration branch and nowhere else.
 */
async function knowledgeLines(outcome: RunOutcome, config: HarnessConfig, io: CliIO): Promise<string[]> {
  const store = join(outcome.integrationWorktree, KNOWLEDGE_ROOT);
  const signals = signalEntries(await readTextIfExists(join(store, 'index.md'))).filter((e) => e.spec === outcome.spec);
  if (signals.length === 0) return [];
  const types = new Map<string, number>();
  for (const s of signals) types.set(s.type, (types.get(s.type) ?? 0) + 1);
  const shown = displayPath(pathFrom(io.cwd, store));
  const dry = await reflectLocally({
    store,
    root: outcome.integrationWorktree,
    config,
    today: new Date(),
    withoutAgent: 'a dry run runs no agent',
    write: false,
    safety: { roots: [outcome.integrationWorktree, io.cwd], secrets: secretValues(io.env) },
  });
  const lessons = dry.changes.length === 0 ? 'no lesson yet (a pattern needs signals that recur)' : plural(dry.changes.length, 'lesson');
  return [
    `  signals:            ${plural(signals.length, 'signal')} of ${outcome.spec} captured (${[...types].map(([t, n]) => `${n} ${t}`).join(', ')}), in ${shown}`,
    `  harness reflect:    would propose ${lessons} from them; see it with: ${selfCommand(io)} reflect --dry-run --knowledge ${shown}`,
  ];
}

/** Reflection during the run as .github/harness.yml sets it; undefined (after saying why) when its reflector cannot be set up. */
function runReflection(config: HarnessConfig, root: string, io: CliIO): RunReflection | undefined {
  try {
    const reflector = configuredReflector(config, { cwd: root, env: io.env });
    return { config, ...(reflector ? { reflector } : {}) };
  } catch (e) {
    if (!(e instanceof ReflectorError)) throw e;
    io.stderr(`harness run: ${e.message}\n`);
    return undefined;
  }
}

export async function readConfig(root: string, io: CliIO, command = 'run'): Promise<HarnessConfig | undefined> {
  const text = await readTextIfExists(join(root, CONFIG_PATH));
  if (text === undefined) return DEFAULT_CONFIG;
  const { config, problems } = parseConfig(text);
  for (const p of problems) io.stderr(`${formatProblem(p)}\n`);
  if (!config) io.stderr(`harness ${command}: ${CONFIG_PATH} has errors; nothing ran (harness validate <spec-dir> checks it with the spec)\n`);
  return config;
}

/** The CLI's environment, as agents and checks are given it (the process's own, unless a caller set another). */
export function definedEnv(env: CliIO['env']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

/** Commits need an identity; a machine with none configured gets harness's own rather than a failed run. */
export async function gitIdentity(repo: RunRepo): Promise<Record<string, string>> {
  const has = async (key: string) => (await repo.git().config(key)) !== undefined;
  const out: Record<string, string> = {};
  if (!(await has('user.name'))) out.GIT_AUTHOR_NAME = out.GIT_COMMITTER_NAME = 'harness';
  if (!(await has('user.email'))) out.GIT_AUTHOR_EMAIL = out.GIT_COMMITTER_EMAIL = 'harness@localhost';
  return out;
}
