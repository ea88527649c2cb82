import { ProcessRegistry } from '../machine/process-registry.js';
import type { Usage } from '../engine/core/protocol/messages.js';
import { rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Checkpoint, WorkerMessage } from '../engine/core/protocol/messages.js';
import type { VerificationReport } from '../engine/core/verify/levels.js';
import { LatestFile, readJson, writeAtomic, writeJsonAtomic } from './atomic.js';
import { listIfExists, writeFiles } from '../machine/files.js';

/**
 * The `.orchestration/` file protocol: everything a run knows, on disk, one small JSON
 * file per fact, each written atomically. A run killed at any moment is resumed by
 * reading these back; nothing lives only in memory.
 *
 *   .orchestration/<spec>/
 *     run.json                    base and integration branch, slots, who holds the run
 *     dependency-graph.json       the graph as validated at the start of the run
 *     active-files.json           files_modified of the plans running now
 *     sessions/<plan>/
 *       status.json               the worker: state, current task, process group
 *       checkpoint.json           a question waiting for a person
 *       checkpoint_response.json  the person's answer (harness respond writes it)
 *       result.json               verification and merge outcome
 *       messages.jsonl            every protocol message, in order
 *       logs/                     agent output
 *     phases/<NN>.json            phase-level verification outcome
 */

export type WorkerState = 'initializing' | 'running' | 'checkpoint' | 'completed' | 'failed' | 'paused';

/** A plan paused at the model's usage limit (state `paused`): the same attempt, started again at `resumeAt`. */
export interface PauseRecord {
  /** The agent's failure, in a line. */
  reason: string;
  /** When the limit resets, where the agent said (ISO). */
  resetsAt?: string;
  /** When a run starts the plan again (ISO): the reset, else a wait of its own (engine/lifecycle/usage-pause.ts). */
  resumeAt: string;
  at: string;
}

export interface SessionStatus {
  sessionId: string;
  plan: string;
  phase: string;
  attempt: number;
  state: WorkerState;
  currentTask?: number;
  totalTasks?: number;
  message?: string;
  /** Process group of the agent's running process, to stop it after a crash. */
  pgid?: number;
  branch: string;
  worktree: string;
  /** The integration commit the plan's branch started from. */
  base: string;
  /** The agent doing the work. */
  agent: string;
  startedAt: string;
  timestamp: string;
  error?: string;
  /** Set while the plan is paused at the model's usage limit. */
  pause?: PauseRecord;
}

export interface CheckpointRecord extends Checkpoint {
  plan: string;
  /** Where the question came from: the worker (a step) or verification (a human check). */
  origin: 'worker' | 'verification';
  askedAt: string;
}

export interface CheckpointResponse {
  checkpoint: string;
  answer: string;
  respondedAt: string;
  by?: string;
}

export interface SessionResult {
  plan: string;
  outcome: 'verified' | 'failed';
  /** Why it failed, in one line. */
  reason?: string;
  verification?: VerificationReport;
  commits: string[];
  /** The integration commit that merged the plan. */
  mergedAs?: string;
  startedAt: string;
  finishedAt: string;
  durationMinutes: number;
  /** What the agent reported it used (cost, turns, tokens). */
  usage?: Usage;
  /** What every attempt at the plan so far used together, this one's included (engine/core/run/spend.ts). */
  spent?: Usage;
  /** Which attempt this was (1 for the first). */
  attempt?: number;
  /** The engines that worked on this attempt, the one that ended it last (more than one when a fallback took over). */
  engines?: string[];
  /** The agent could not start on this machine: not an attempt at the plan. */
  environment?: true;
  /** How long the attempt's agent and its verification took, in this process (STATUS.md's timeline draws them). */
  timing?: { agentMs: number; verifyMs: number };
}

export interface PhaseRecord {
  phase: string;
  outcome: 'verified' | 'failed';
  verification: VerificationReport;
  at: string;
}

export interface RunRecord {
  spec: string;
  specDir: string;
  baseBranch: string;
  baseSha: string;
  integrationBranch: string;
  integrationWorktree: string;
  createdAt: string;
  updatedAt: string;
  holder?: { pid: number; since: string };
  /** The agent the run was started with (`--agent`): a retry or a resume uses it unless told otherwise. */
  agent?: string;
  /** What the last run was asked to run (`--plan`, `--phase`); absent: the whole spec. */
  scope?: { plan?: string; phase?: string };
  /**
   * When the last run ended by itself: all it was asked to run done, or failed. Absent while it
   * runs, and when it was killed or stopped (Ctrl-C, a fault of the machine): `harness status`
   * then shows it stopped, with the command that resumes it.
   */
  ended?: string;
}

/** How long a change people only read (a plan's step, its message) may wait to be written with the next ones. */
const DISPLAY_DELAY_MS = 200;

export class OrchestrationStore {
  /** Each plan's status.json: written in order, a burst of changes as one write. */
  readonly #statuses = new Map<string, LatestFile>();
  /** active-files.json as last written: the loop asks for it every round, and it changes far less often. */
  #activeFiles: string | undefined;

  constructor(readonly root: string) {}

  static for(repoRoot: string, spec: string): OrchestrationStore {
    return new OrchestrationStore(join(repoRoot, '.orchestration', spec));
  }

  sessionDir(plan: string): string {
    return join(this.root, 'sessions', plan);
  }

  logDir(plan: string): string {
    return join(this.sessionDir(plan), 'logs');
  }

  readRun(): Promise<RunRecord | undefined> {
    return readJson(join(this.root, 'run.json'));
  }

  writeRun(run: RunRecord): Promise<void> {
    return writeJsonAtomic(join(this.root, 'run.json'), run);
  }

  writeGraph(graph: unknown): Promise<void> {
    return writeJsonAtomic(join(this.root, 'dependency-graph.json'), graph);
  }

  /** The run's recent activity (STATUS.md's list): kept with the run so a resumed run shows it. */
  async readActivity(): Promise<{ at: string; text: string }[]> {
    let read: unknown;
    try {
      read = await readJson<unknown>(join(this.root, 'activity.json'));
    } catch (e) {
      // A list for people to read, never worth failing a run over.
      if (e instanceof SyntaxError) return [];
      throw e;
    }
    if (!Array.isArray(read)) return [];
    return read.filter(
      (a): a is { at: string; text: string } => typeof (a as { at?: unknown })?.at === 'string' && typeof (a as { text?: unknown })?.text === 'string',
    );
  }

  writeActivity(activity: readonly { at: string; text: string }[]): Promise<void> {
    return writeJsonAtomic(join(this.root, 'activity.json'), activity);
  }

  /** The process groups (check servers) this spec's runs have running: see ProcessRegistry. */
  processes(): ProcessRegistry {
    return new ProcessRegistry(join(this.root, 'processes'));
  }

  async writeActiveFiles(active: Record<string, string[]>): Promise<void> {
    const text = `${JSON.stringify(active, null, 2)}\n`;
    if (text === this.#activeFiles) return;
    await writeAtomic(join(this.root, 'active-files.json'), text);
    this.#activeFiles = text;
  }

  readStatus(plan: string): Promise<SessionStatus | undefined> {
    return readJson(join(this.sessionDir(plan), 'status.json'));
  }

  /** On disk when it resolves. */
  writeStatus(status: SessionStatus): Promise<void> {
    return this.#status(status.plan).now(`${JSON.stringify(status, null, 2)}\n`);
  }

  /** A change only people read (the current step, a message): written shortly, with whatever else changes meanwhile. */
  writeStatusSoon(status: SessionStatus): void {
    this.#status(status.plan).soon(`${JSON.stringify(status, null, 2)}\n`);
  }

  #status(plan: string): LatestFile {
    let file = this.#statuses.get(plan);
    if (!file) {
      file = new LatestFile(join(this.sessionDir(plan), 'status.json'), DISPLAY_DELAY_MS);
      this.#statuses.set(plan, file);
    }
    return file;
  }

  readCheckpoint(plan: string): Promise<CheckpointRecord | undefined> {
    return readJson(join(this.sessionDir(plan), 'checkpoint.json'));
  }

  writeCheckpoint(record: CheckpointRecord): Promise<void> {
    return writeJsonAtomic(join(this.sessionDir(record.plan), 'checkpoint.json'), record);
  }

  readResponse(plan: string): Promise<CheckpointResponse | undefined> {
    return readJson(join(this.sessionDir(plan), 'checkpoint_response.json'));
  }

  writeResponse(plan: string, response: CheckpointResponse): Promise<void> {
    return writeJsonAtomic(join(this.sessionDir(plan), 'checkpoint_response.json'), response);
  }

  /** The question is answered and acted on: neither file stays behind to be answered twice. */
  async clearCheckpoint(plan: string): Promise<void> {
    await unlink(join(this.sessionDir(plan), 'checkpoint_response.json')).catch(ignoreMissing);
    await unlink(join(this.sessionDir(plan), 'checkpoint.json')).catch(ignoreMissing);
  }

  readResult(plan: string): Promise<SessionResult | undefined> {
    return readJson(join(this.sessionDir(plan), 'result.json'));
  }

  writeResult(result: SessionResult): Promise<void> {
    return writeJsonAtomic(join(this.sessionDir(result.plan), 'result.json'), result);
  }

  /** Appended, its directory made first. */
  appendMessage(plan: string, message: WorkerMessage): Promise<void> {
    return writeFiles([{ path: join(this.sessionDir(plan), 'messages.jsonl'), content: `${JSON.stringify(message)}\n`, append: true }]);
  }

  readPhase(phase: string): Promise<PhaseRecord | undefined> {
    return readJson(join(this.root, 'phases', `${phase}.json`));
  }

  writePhase(record: PhaseRecord): Promise<void> {
    return writeJsonAtomic(join(this.root, 'phases', `${record.phase}.json`), record);
  }

  async forgetPhase(phase: string): Promise<void> {
    await unlink(join(this.root, 'phases', `${phase}.json`)).catch(ignoreMissing);
  }

  async sessions(): Promise<string[]> {
    return ((await listIfExists(join(this.root, 'sessions'))) ?? []).map((e) => e.name);
  }

  /** Forget a plan's attempt (retry): its worktree and branch are the caller's business. */
  async resetSession(plan: string): Promise<void> {
    await rm(this.sessionDir(plan), { recursive: true, force: true });
  }
}

function ignoreMissing(e: NodeJS.ErrnoException): void {
  if (e.code !== 'ENOENT') throw e;
}
