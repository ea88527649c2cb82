import type { Agent } from '../core/agents/agent.js';
import type { AgentSandboxes } from '../core/agents/sandbox.js';
import type { Trailer } from '../core/agents/commit-message.js';
import type { Clock } from '../core/clock.js';
import type { Checkpoint, WorkerMessage } from '../core/protocol/messages.js';
import type { Check } from '../core/spec/model.js';
import type { LevelResult } from '../core/verify/levels.js';
import type { VerifyPorts } from '../core/verify/ports.js';
import type { GivenAnswer } from './answers.js';

/**
 * What a plan's lifecycle needs from the runtime it runs in. The local runner and the Actions
 * worker differ only here: where the checkout is, where answers come from, who watches.
 */

/** One of the plan's commits. */
export interface PlanCommit {
  sha: string;
  subject: string;
  trailers: readonly Trailer[];
}

/** The checkout the plan's agent works in: a worktree of its branch locally, the job's checkout on a runner. */
export interface Workspace {
  /** Absolute. */
  readonly root: string;
  /** The commits after `base`, oldest first. */
  commits(base: string): Promise<PlanCommit[]>;
  /** Files that differ between `base` and HEAD. */
  changedFiles(base: string): Promise<string[]>;
  /**
   * The unified diff (no context lines) from `from` to HEAD, or undefined when `from` is not a
   * commit of this checkout: what a passing attempt added since a failed one.
   */
  diffSince(from: string): Promise<string | undefined>;
  /** When HEAD was committed. */
  headDate(): Promise<Date>;
  /** The modules these files of the checkout import (knowledge/documents/plan-profile.ts): what the plan's profile records. */
  imports(files: readonly string[]): Promise<string[]>;
}

/** Verification ports on the checkout for one run of the checks; closed after it (servers, browser). */
export type OpenVerifyPorts = () => VerifyPorts & { close(): Promise<void> };

/** Where a person's answers come from. */
export interface Answers {
  /** An answer already given to this checkpoint, looked up without asking anyone. */
  given(checkpoint: string): GivenAnswer | undefined;
  /**
   * Ask a person and wait for the answer. Undefined when this runtime cannot wait (a job on a
   * runner, which ends and is started again when the answer comes): the attempt then ends at the
   * checkpoint, and the caller puts the question where a person will see it.
   */
  ask(checkpoint: Checkpoint, origin: 'agent' | 'verification'): Promise<GivenAnswer | undefined>;
}

/** What happens in an attempt, for whoever watches it (a terminal, the run's records, a job log). */
export type AttemptEvent =
  | { kind: 'agent-started'; agent: string }
  | { kind: 'task-started'; task: number; total: number; title: string }
  | { kind: 'progress'; message: string; task?: number; total?: number }
  /** A tool call the agent's stream reported, as it starts and as it ends (traces make a span of it). */
  | { kind: 'tool'; id: string; name?: string; phase: 'start' | 'end'; error?: boolean }
  | { kind: 'agent-waiting'; checkpoint: Checkpoint }
  | { kind: 'agent-answered'; checkpoint: Checkpoint; answer: GivenAnswer }
  | { kind: 'agent-finished' }
  | { kind: 'agent-failed'; error: string }
  | { kind: 'verifying'; level: 'plan' | 'phase' }
  /** A check starts; at phase level `plan` says whose check it is (absent for the phase's own). */
  | { kind: 'check-started'; check: Check; plan?: string }
  | { kind: 'check'; result: LevelResult };

export interface Progress {
  event(event: AttemptEvent): void | Promise<void>;
  /** Every message the agent sends, as it sent it, before its event: for a runtime that keeps them. */
  record?(message: WorkerMessage): void | Promise<void>;
  /** Run one stage of the attempt (the agent, a verification); a job log folds the stage's lines under its title. */
  stage<T>(title: string, work: () => Promise<T>): Promise<T>;
}

export interface AttemptPorts {
  /** The agent of this name; throws for one that does not exist or is not configured, which fails the attempt. */
  agent(name: string): Agent;
  workspace: Workspace;
  verifyPorts: OpenVerifyPorts;
  answers: Answers;
  progress: Progress;
  clock: Clock;
  /** The sandbox agents start in, when this run has one (`harness run --sandbox`, a runner with `network:`). */
  sandboxes?: AgentSandboxes;
}

/** What verifying a phase needs: no agent and no workspace of its own (the checkout is the merged work). */
export type PhasePorts = Pick<AttemptPorts, 'verifyPorts' | 'answers' | 'progress' | 'clock'>;
