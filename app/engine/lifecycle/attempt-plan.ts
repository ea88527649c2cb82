import type { AgentSandbox, BlockedHost } from '../core/agents/sandbox.js';
import type { Clock } from '../core/clock.js';
import type { AgentFacts, Checkpoint, Insight, Usage } from '../core/protocol/messages.js';
import { strictFilesReason, undeclaredWrites, type Deviation } from '../core/run/deviations.js';
import type { Plan } from '../core/spec/model.js';
import { verifyPlan, type VerificationReport } from '../core/verify/levels.js';
import type { SignalDraft } from '../knowledge/documents/loop.js';
import type { HumanCheckRef } from './answers.js';
import { agentFailure, verificationFailure } from './failure-reason.js';
import type { AttemptPorts, PlanCommit, Workspace } from './ports.js';
import { type AgentResult, type AgentRun } from './run-agent.js';
import { runEngines, totalOf, type EngineShare } from './fallback.js';
import { importedFrom } from '../knowledge/documents/plan-profile.js';
import { attemptFailure, attemptSignals, type AttemptFailure, type AttemptHistory } from './signals.js';
import { usagePauseOf, type UsagePause } from './usage-pause.js';
import { verifyWithPeople } from './verify-with-people.js';

export interface AttemptInput extends AgentRun {
  /** Which attempt at the plan this is, where the runtime counts them (1 for the first). */
  attempt?: number;
  /** The agent finished in an earlier run of this attempt: only verification is left. */
  agentDone?: boolean;
  /**
   * The plan's previous attempt when it failed, as the knowledge store remembers it: asked once
   * the attempt has ended, to tell a repair or a plan stuck on the same failure. Must not
   * reject: a runtime that cannot tell answers undefined.
   */
  history?: () => Promise<AttemptHistory | undefined>;
  /** What the configuration asks of the agent, to notice when it ran otherwise. */
  expects?: { model?: string };
  /** The engines that take the plan over at its agent's usage limit, in order (assignment.ts fallbackEngines). */
  fallback?: readonly string[];
}

/** What the knowledge loop learns from an attempt, whatever its end. */
export interface AttemptFacts {
  attempt?: number;
  /** The engine that ended the attempt: the plan's agent, or the fallback that took it over. */
  agent: string;
  /** Every engine that worked on the attempt, in order, when a fallback took it over (fallback.ts); `usage` is theirs together. */
  engines?: EngineShare[];
  /** Files the plan changed outside its files_modified. */
  undeclaredWrites: Deviation[];
  /** The plan's timeout_minutes stopped the agent. */
  timedOut: boolean;
  /** Turns and cost, only as the agent reported them. */
  usage?: Usage;
  /** What the agent counted of its own work (tool calls, failures, its model), when it reported any. */
  agentFacts?: AgentFacts;
  /** What the agent reported it learned, when it did. */
  insights?: Insight[];
  /** How it failed, in a form that stays the same when it fails the same way again. */
  failure?: AttemptFailure;
  /** The agent could not start on this machine: not an attempt at the plan, and never a signal of it. */
  environment?: boolean;
  /** Hosts the sandbox refused the agent, when it ran in one and any were. */
  blocked?: BlockedHost[];
}

interface Ended {
  /** The plan's commits since its base, oldest first. */
  commits: PlanCommit[];
  facts: AttemptFacts;
  /** Milliseconds spent in the agent and in verification (not waiting for people). */
  timing: { agentMs: number; verifyMs: number };
  /** What the knowledge loop captures of the attempt (engine/lifecycle/signals.ts), for the runtime to file. */
  signals: SignalDraft[];
}

export type AttemptOutcome =
  | (Ended & { kind: 'verified'; report: VerificationReport; /** What the agent said it did. */ summary?: string })
  | (Ended & { kind: 'failed'; reason: string; report?: VerificationReport })
  /** A person must answer first, and this runtime cannot wait: the question is for the caller to put where people see it. */
  | (Ended & { kind: 'checkpoint'; checkpoint: Checkpoint; report?: VerificationReport })
  /**
   * The agent stopped at the model's usage limit (usage-pause.ts): the same attempt, to go on
   * after the reset. No failure, no signal (`signals` is empty); what it used is in the facts.
   */
  | (Ended & { kind: 'paused'; pause: UsagePause });

/**
 * `strict_files: true` (.github/harness.yml): a verified attempt that wrote outside its plan's
 * files_modified fails instead, before anything is merged or a pull request opened, and what
 * said it passed is no longer a signal of it. Without it, the writes stay a deviation, said in
 * the summary, the status and the pull request. The same rule for both runtimes: each calls it
 * once it knows every write of the attempt (the local run adds what its agent wrote in other
 * plans' worktrees first).
 */
export function underStrictFiles(outcome: AttemptOutcome, strict: boolean): AttemptOutcome {
  const outside = outcome.facts.undeclaredWrites.flatMap((d) => d.files);
  if (!strict || outcome.kind !== 'verified' || outside.length === 0) return outcome;
  const { summary: _summary, ...ended } = outcome;
  return { ...ended, kind: 'failed', reason: strictFilesReason(outside), signals: outcome.signals.filter((s) => s.type !== 'use' && s.type !== 'repair') };
}

/** The commit a failed attempt ended on: its last commit, else the base when that is a commit id. */
function headOf(commits: readonly PlanCommit[], base: string): { head?: string } {
  const head = commits.at(-1)?.sha ?? (/^[0-9a-f]{40}$/.test(base) ? base : undefined);
  return head === undefined ? {} : { head };
}

async function repairDiff(workspace: Workspace, failedHead: string | undefined, base: string): Promise<string | undefined> {
  return (failedHead === undefined ? undefined : await workspace.diffSince(failedHead)) ?? (await workspace.diffSince(base));
}

/** The plan's human checks, as plan-level verification names them. */
export function planHumanChecks(plan: Plan): HumanCheckRef[] {
  return plan.mustPass.flatMap((check) => (check.type === 'human' ? [{ key: check.id, check }] : []));
}

/**
 * One attempt at a plan, the same on this machine and on a runner: the agent on the plan's
 * checkout, then plan-level verification (human checks answered through the answers port),
 * then what came of it. Merging, pull requests and records are the caller's.
 */
export async function attemptPlan(input: AttemptInput, ports: AttemptPorts): Promise<AttemptOutcome> {
  const ran = await runAttemptAgent(input, ports);
  const { agent } = ran;
  if (agent?.kind === 'checkpoint') return { kind: 'checkpoint', checkpoint: agent.checkpoint, ...(await ended(ran, { end: 'checkpoint', verifyMs: 0 })) };
  if (agent?.kind === 'failed') return agentFailed(ran, agent, ports.clock);
  return verifyAttempt(ran, ports);
}

/** What the attempt holds once its agent has run (or had, in an earlier run): what its end reads. */
interface AgentStage {
  input: AttemptInput;
  workspace: Workspace;
  /** One sandbox for the attempt, whichever engines work on it: what it refused is the attempt's. */
  sandbox?: AgentSandbox;
  /** Undefined when the agent finished in an earlier run (`agentDone`). */
  agent?: AgentResult;
  /** The engine that ended the attempt, and every one that worked on it (a fallback at a usage limit). */
  engine: string;
  engines: EngineShare[];
  agentMs: number;
}

/** How the attempt ends: a pause is the same attempt, still going (see `ended`). */
type End = { verifyMs: number; reason?: string; report?: VerificationReport } & ({ end: 'paused' } | Ending);
type Ending = { end: 'verified' | 'failed' | 'checkpoint' };

/** The agent on the plan's checkout (its engines in turn at a usage limit), unless it finished in an earlier run. */
async function runAttemptAgent(input: AttemptInput, ports: AttemptPorts): Promise<AgentStage> {
  const { plan } = input;
  const { workspace, progress, clock } = ports;
  const sandbox = ports.sandboxes?.forAttempt({ spec: input.spec, plan: plan.id, worktree: workspace.root, logDir: input.logDir });
  const stage: AgentStage = { input, workspace, ...(sandbox ? { sandbox } : {}), engine: input.agent, engines: [], agentMs: 0 };
  if (input.agentDone) return stage;
  const started = clock.monotonic();
  const ran = await progress
    .stage(`agent ${input.agent}: ${plan.id} ${plan.title}`, () => runEngines(sandbox ? { ...input, sandbox } : input, ports))
    .finally(() => {
      stage.agentMs = clock.monotonic() - started;
    });
  ({ result: stage.agent, agent: stage.engine, engines: stage.engines } = ran);
  return stage;
}

/** The agent failed: a pause at the model's usage limit, else the plan's failure with the agent's reason. */
async function agentFailed(ran: AgentStage, agent: Extract<AgentResult, { kind: 'failed' }>, clock: Clock): Promise<AttemptOutcome> {
  // The model's usage limit is time to wait, not the plan's failure: both runtimes pause on it (usage-pause.ts).
  const pause = usagePauseOf(agent, clock.now());
  if (pause) return { kind: 'paused', pause, ...(await ended(ran, { end: 'paused', verifyMs: 0 })) };
  const reason = agentFailure(ran.engine, agent.error);
  return { kind: 'failed', reason, ...(await ended(ran, { end: 'failed', verifyMs: 0, reason })) };
}

/** Plan-level verification, people answering its human checks, and the attempt's end by its report. */
async function verifyAttempt(ran: AgentStage, ports: AttemptPorts): Promise<AttemptOutcome> {
  const { input, workspace, agent } = ran;
  const { plan } = input;
  await ports.progress.event({ kind: 'verifying', level: 'plan' });
  const { report, waiting, verifyMs } = await verifyWithPeople(
    {
      title: `plan-level verification of ${plan.id}`,
      humanChecks: planHumanChecks(plan),
      since: () => workspace.headDate(),
      run: (verifyPorts, options) => verifyPlan(plan, verifyPorts, { ...options, spec: input.spec }),
    },
    ports,
  );
  const failed = report.status !== 'pass' && !waiting;
  const reason = failed ? verificationFailure(report) : undefined;
  const end = await ended(ran, { end: waiting ? 'checkpoint' : failed ? 'failed' : 'verified', verifyMs, report, ...(reason === undefined ? {} : { reason }) });
  if (waiting) return { kind: 'checkpoint', checkpoint: waiting, report, ...end };
  if (failed) return { kind: 'failed', reason: reason!, report, ...end };
  return { kind: 'verified', report, ...(agent?.kind === 'completed' && agent.summary !== undefined ? { summary: agent.summary } : {}), ...end };
}

/** A failed attempt's checkout that cannot say what it holds must not hide why it failed: it says nothing instead. */
function lookAt<T>(how: End, p: Promise<T[]>): Promise<T[]> {
  return how.end === 'failed' ? p.catch((): T[] => []) : p;
}

/** What the branch holds when the attempt ends, the facts of the attempt, and the signals captured from them. */
async function ended(ran: AgentStage, how: End): Promise<Ended> {
  const { workspace, input } = ran;
  const [commits, changed] = await Promise.all([lookAt(how, workspace.commits(input.base)), lookAt(how, workspace.changedFiles(input.base))]);
  const facts = attemptFacts(ran, how, commits, changed);
  // A pause is the same attempt, still going, and says nothing about the plan: nothing for the knowledge loop.
  if (how.end === 'paused') return { commits, facts, timing: { agentMs: ran.agentMs, verifyMs: how.verifyMs }, signals: [] };
  const signals = await capturedSignals(ran, how, facts, changed);
  return { commits, facts, timing: { agentMs: ran.agentMs, verifyMs: how.verifyMs }, signals };
}

/** The facts the knowledge loop learns from the attempt, whatever its end. */
function attemptFacts(ran: AgentStage, how: End, commits: PlanCommit[], changed: string[]): AttemptFacts {
  const { input, agent, engines } = ran;
  const handedOn = engines.length > 1;
  const usage = handedOn ? totalOf(engines) : agent?.kind !== 'checkpoint' ? agent?.usage : undefined;
  const timedOut = agent?.kind === 'failed' && agent.timedOut;
  const seen = agent?.seen;
  const blocked = ran.sandbox?.blocked() ?? [];
  return {
    ...(input.attempt === undefined ? {} : { attempt: input.attempt }),
    agent: ran.engine,
    ...(handedOn ? { engines } : {}),
    undeclaredWrites: undeclaredWrites(changed, input.plan.filesModified),
    timedOut,
    ...(agent?.kind !== 'checkpoint' && usage ? { usage } : {}),
    ...(seen?.facts ? { agentFacts: seen.facts } : {}),
    ...(seen && seen.insights.length > 0 ? { insights: seen.insights } : {}),
    ...(agent?.kind === 'failed' && agent.environment ? { environment: true } : {}),
    ...(blocked.length > 0 ? { blocked } : {}),
    ...(how.end === 'failed'
      ? {
          failure: {
            ...attemptFailure({ ...(agent?.kind === 'failed' ? { agentError: agent.error } : {}), timedOut, ...(how.report ? { report: how.report } : {}) }),
            ...headOf(commits, input.base),
          },
        }
      : {}),
  };
}

/** What the knowledge loop captures of an attempt that ended or stopped at a checkpoint, looking back at the plan's earlier failure. */
async function capturedSignals(ran: AgentStage, how: End & Ending, facts: AttemptFacts, changed: string[]): Promise<SignalDraft[]> {
  const { input, workspace, agent } = ran;
  const { plan, base } = input;
  // Only an attempt that ended looks back: a checkpoint is the same attempt, still going.
  const previous = how.end === 'checkpoint' ? undefined : await input.history?.();
  const failedBefore = Math.max(previous?.attempt ?? 0, (input.attempt ?? 1) - 1);
  // A repair: what its diff adds since the failed attempt's head (since the base when that is not known or not here).
  const diff = how.end === 'verified' && failedBefore > 0 ? await repairDiff(workspace, previous?.failure?.head, base) : undefined;
  // A failure and a repair record the plan's profile (the modules its files import among it): what reflection learns when such knowledge applies.
  const imports = how.end === 'failed' || (how.end === 'verified' && failedBefore > 0) ? await lookAt(how, workspace.imports(importedFrom(plan))) : undefined;
  // This machine's problem (an agent that cannot start) says nothing about the plan: no knowledge comes of it.
  if (facts.environment) return [];
  return attemptSignals({
    spec: input.spec,
    plan,
    agent: ran.engine,
    attempt: failedBefore + 1,
    failedBefore,
    ...(previous ? { previous } : {}),
    end: how.end,
    ...(how.reason === undefined ? {} : { reason: how.reason }),
    ...(facts.failure ? { failure: facts.failure } : {}),
    timedOut: facts.timedOut,
    undeclaredWrites: facts.undeclaredWrites,
    ...(agent?.seen ? { seen: agent.seen } : {}),
    ...(input.expects ? { expects: input.expects } : {}),
    ...(input.knowledge ? { knowledge: input.knowledge } : {}),
    changed,
    ...(imports === undefined ? {} : { imports }),
    ...(agent?.kind === 'completed' && agent.summary !== undefined ? { summary: agent.summary } : {}),
    ...(diff === undefined ? {} : { diff }),
  });
}
