import type { AgentSandboxes } from '../engine/core/agents/sandbox.js';
import type { GraphAnalysis } from '../engine/core/analysis/analyze.js';
import type { Clock, Ticker } from '../engine/core/clock.js';
import type { HarnessConfig } from '../engine/core/config/schema.js';
import type { Scheduler } from '../engine/core/schedule/scheduler.js';
import type { ScheduleState } from '../engine/core/schedule/state.js';
import type { Spec } from '../engine/core/spec/model.js';
import type { Heartbeat } from '../engine/lifecycle/heartbeat.js';
import type { AgentsConfig } from '../agents/registry.js';
import type { Mutex } from './mutex.js';
import type { RunReporter } from './progress.js';
import type { RunRepo } from './repo.js';
import type { RunState } from './run-state.js';
import type { CheckpointRecord, OrchestrationStore, RunRecord } from './store.js';
import type { WorktreeWatch } from './worktree-watch.js';
import type { Reflector } from '../engine/knowledge/lessons/reflector.js';
import type { HoldoutSettings } from '../engine/knowledge/holdout/holdout.js';
import type { SurfaceOptions } from '../engine/knowledge/surfacing/surface.js';

/** Reflection during a run (knowledge.reflect.on_phase, on_spec), as `harness run` was given it. */
export interface RunReflection {
  config: HarnessConfig;
  /** The reflector agent, when knowledge.reflect.agent configures one. */
  reflector?: Reflector;
}

/** Where the run reads knowledge from, and how much of it a brief takes. */
export interface RunKnowledge extends SurfaceOptions {
  /** The store, absolute; the repository's `.harness/knowledge/` when absent. */
  dir?: string;
  /** knowledge.holdout and its seed: the plans that run without surfaced knowledge. */
  holdout?: HoldoutSettings;
}

export interface RunOptions {
  /** The spec directory in the person's checkout (absolute). */
  specDir: string;
  /** How the person wrote it, for the commands we suggest. */
  specArg: string;
  slots: number;
  /** Overrides every plan's agent. */
  agent?: string;
  /** The sandbox every agent process starts in (--sandbox): its network and files limited (engine/core/agents/sandbox.ts). */
  sandbox?: AgentSandboxes;
  /** Only start plans of this phase. */
  phase?: string;
  /** Only start this plan. */
  plan?: string;
  /** Give failed and blocked plans (and failed phases) another attempt. */
  retry?: boolean;
  /** With retry: keep the base the run started from, even when the base branch moved since. */
  keepBase?: boolean;
  agents?: AgentsConfig;
  /** budget_usd of .github/harness.yml: what the spec's plans may spend together (runner/spend.ts). */
  budgetUsd?: number;
  /** budget.per_spec_usd of .github/harness.yml: at it, no new plan of the spec starts (runner/spend.ts). */
  perSpecUsd?: number;
  /** budget.per_day_usd of .github/harness.yml: no plan's agent starts once the repository's runs have spent it in 24 hours. */
  perDayUsd?: number;
  /** The agent for plans that name none. */
  defaultAgent?: string;
  /** agents.fallback of .github/harness.yml: the engines that take a plan over at its agent's usage limit. */
  fallback?: readonly string[];
  /** strict_files of .github/harness.yml: a plan that writes outside its files_modified fails instead of being merged with a deviation. */
  strictFiles?: boolean;
  reporter: RunReporter;
  /**
   * The heartbeat's timer: with one, 10 s without output while a plan or a phase's verification
   * runs prints what runs and for how long (engine/lifecycle/heartbeat.ts); without one, nothing.
   */
  ticker?: Ticker;
  /** An interactive answer to a checkpoint (a terminal prompt); the file protocol is always watched too. */
  ask?: (checkpoint: CheckpointRecord, signal: AbortSignal) => Promise<string | undefined>;
  signal?: AbortSignal;
  now?: () => Date;
  /** How often to look for `harness respond`'s answer. */
  pollMs?: number;
  /**
   * With nothing else to run, wait for a plan paused at the model's usage limit to reset and run
   * it then (`harness run --wait`); without it the run ends, the plan left paused.
   */
  wait?: boolean;
  /** The timer a run waits for a usage limit's reset with: the machine's (the run's clock) unless a test gives its own. */
  timers?: Pick<Clock, 'after'>;
  /** Extra environment for agents and checks. */
  env?: Record<string, string>;
  /** Where surfacing reads knowledge and how much a brief takes; the repository's store with the defaults when absent. */
  knowledge?: RunKnowledge;
  /** What is captured (knowledge.capture of .github/harness.yml; runner/capture.ts): its defaults when absent. */
  capture?: HarnessConfig['knowledge']['capture'];
  /** Reflection when a phase or the spec is verified (knowledge.reflect); none without it. */
  reflection?: RunReflection;
}

export interface Timing {
  startedAt: number;
  agentMs: number;
  verifyMs: number;
}

/** Everything the parts of a run share. */
export interface RunContext {
  spec: Spec;
  /** An earlier run of this spec left a record: what it did may need recognising, not redoing. */
  resumed: boolean;
  analysis: GraphAnalysis;
  /** The spec directory relative to the repository root, forward slashes. */
  specRel: string;
  repo: RunRepo;
  store: OrchestrationStore;
  record: RunRecord;
  integration: { branch: string; worktree: string; specDir: string };
  scheduler: Scheduler;
  schedule: ScheduleState;
  state: RunState;
  activity: { at: string; text: string }[];
  options: RunOptions;
  /** Everything the run prints goes through it: the heartbeat hears it. */
  reporter: RunReporter;
  /** Says what runs when nothing has been printed for a while; none without options.ticker. */
  heartbeat?: Heartbeat;
  mutex: Mutex;
  timing: Timing;
  abort: AbortController;
  now(): Date;
  /** The run's clock (its `now`) with the machine's timers: for agents and checks. */
  clock: Clock;
  /** The run's worktrees, watched for writes an agent makes in another plan's (worktree-watch.ts). */
  watch: WorktreeWatch;
  /** Set when a plan stopped the run because the machine failed (environment-fault.ts): one line. */
  fault?: string;
}
