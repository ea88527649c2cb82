import type { Agent, WorkerContext } from '../../app/engine/core/agents/agent.js';
import type { Clock } from '../../app/engine/core/clock.js';
import type { Checkpoint, OrchestratorMessage, WorkerMessage } from '../../app/engine/core/protocol/messages.js';
import type { VerifyPorts } from '../../app/engine/core/verify/ports.js';
import type { GivenAnswer } from '../../app/engine/lifecycle/answers.js';
import type { Answers, AttemptEvent, AttemptPorts, PlanCommit, Progress, Workspace } from '../../app/engine/lifecycle/ports.js';
import { importsOf } from '../../app/engine/knowledge/documents/plan-profile.js';

/**
 * Ports for driving the plan lifecycle in memory: a checkout that is a map of files with a list
 * of commits, verification that reads that map, answers from a table, a progress log and a clock
 * that moves only when told. The lifecycle cannot tell them from a worktree or a runner.
 */

export const START = new Date('2024-05-01T12:00:00.000Z');

/** A clock a test moves by hand; timers never fire (no check here waits on one). */
export function manualClock(): Clock & { advance(ms: number): void } {
  let ms = 0;
  return {
    now: () => new Date(START.getTime() + ms),
    monotonic: () => ms,
    after: () => () => undefined,
    advance(by) {
      ms += by;
    },
  };
}

export interface MemoryWorkspace extends Workspace {
  files: Map<string, string>;
  /** Write files and commit them; the commit is dated by the clock. */
  commit(subject: string, files: Record<string, string>): PlanCommit;
  /** How often each method was called: what the attempt asked of the checkout. */
  calls: Record<'commits' | 'changedFiles' | 'headDate', number>;
}

export function memoryWorkspace(clock: Clock, files: Record<string, string> = {}): MemoryWorkspace {
  const all = new Map(Object.entries(files));
  const history: { commit: PlanCommit; paths: string[]; changed: Record<string, string>; at: Date }[] = [
    { commit: { sha: 'base', subject: 'base', trailers: [] }, paths: [], changed: { ...files }, at: clock.now() },
  ];
  /** The files as they were at a commit, or undefined for one this checkout does not have. */
  const at = (sha: string): Map<string, string> | undefined => {
    const end = history.findIndex((h) => h.commit.sha === sha);
    if (end < 0) return undefined;
    const out = new Map<string, string>();
    for (const h of history.slice(0, end + 1)) for (const [path, text] of Object.entries(h.changed)) out.set(path, text);
    return out;
  };
  const after = (base: string) => history.slice(history.findIndex((h) => h.commit.sha === base) + 1);
  const calls = { commits: 0, changedFiles: 0, headDate: 0 };
  return {
    root: '/checkout',
    files: all,
    calls,
    commit(subject, changed) {
      for (const [path, text] of Object.entries(changed)) all.set(path, text);
      const commit = { sha: `c${history.length}`, subject, trailers: [] };
      history.push({ commit, paths: Object.keys(changed), changed: { ...changed }, at: clock.now() });
      return commit;
    },
    async commits(base) {
      calls.commits++;
      return after(base).map((h) => h.commit);
    },
    async changedFiles(base) {
      calls.changedFiles++;
      return [...new Set(after(base).flatMap((h) => h.paths))].sort();
    },
    async diffSince(from) {
      const before = at(from);
      if (before === undefined) return undefined;
      // A file's lines that were not there before, as `git diff --unified=0` lists them added.
      return [...all]
        .filter(([path, text]) => before.get(path) !== text)
        .map(([path, text]) => {
          const old = new Set((before.get(path) ?? '').split('\n'));
          const added = text.split('\n').filter((l) => l !== '' && !old.has(l));
          return [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`, ...added.map((l) => `+${l}`)].join('\n');
        })
        .join('\n');
    },
    async headDate() {
      calls.headDate++;
      return history.at(-1)!.at;
    },
    async imports(paths) {
      return [...new Set(paths.flatMap((p) => (all.has(p) ? importsOf(p, all.get(p)!) : [])))].sort();
    },
  };
}

/** Verification against the workspace's files; every opening is counted and must be closed. */
export function memoryVerifyPorts(workspace: MemoryWorkspace, clock: Clock): { open: AttemptPorts['verifyPorts']; opened: () => number; closed: () => number } {
  let opened = 0;
  let closed = 0;
  const none = (what: string) => () => Promise.reject(new Error(`no ${what} in memory`));
  const open = (): VerifyPorts & { close(): Promise<void> } => {
    opened++;
    return {
      readFile: async (path) => workspace.files.get(path),
      exists: async (path) => (workspace.files.has(path) ? 'file' : undefined),
      exec: none('processes'),
      http: none('network'),
      serve: none('servers'),
      browser: none('browser'),
      clock,
      close: async () => void closed++,
    };
  };
  return { open, opened: () => opened, closed: () => closed };
}

export interface TableAnswers extends Answers {
  /** Questions put to a person, in order. */
  asked: { checkpoint: Checkpoint; origin: 'agent' | 'verification' }[];
}

/**
 * Answers given before, by checkpoint id; `person` answers what is asked (a runtime that can
 * wait) or, absent, nobody does (a job on a runner).
 */
export function tableAnswers(given: Record<string, GivenAnswer> = {}, person?: (checkpoint: Checkpoint) => string): TableAnswers {
  const asked: TableAnswers['asked'] = [];
  return {
    asked,
    given: (id) => given[id],
    async ask(checkpoint, origin) {
      asked.push({ checkpoint, origin });
      return person ? { answer: person(checkpoint) } : undefined;
    },
  };
}

export function recordingProgress(): Progress & { events: AttemptEvent[]; stages: string[]; messages: WorkerMessage[] } {
  const events: AttemptEvent[] = [];
  const stages: string[] = [];
  const messages: WorkerMessage[] = [];
  return {
    events,
    stages,
    messages,
    event: (e) => void events.push(e),
    record: (m) => void messages.push(m),
    async stage(title, work) {
      stages.push(title);
      return work();
    },
  };
}

/** An agent that does what the test says with the context it is given; `contexts` keeps each. */
export function testAgent(name: string, work: (context: WorkerContext, say: Say) => Promise<void>): Agent & { contexts: WorkerContext[] } {
  const contexts: WorkerContext[] = [];
  return {
    name,
    contexts,
    async run(context) {
      contexts.push(context);
      await work(context, say(context));
    },
  };
}

export interface Say {
  ready(): Promise<void>;
  started(task: number, total: number, title: string): Promise<void>;
  progress(message: string): Promise<void>;
  ask(checkpoint: Checkpoint): Promise<OrchestratorMessage>;
  completed(extra?: Partial<Extract<WorkerMessage, { type: 'task_completed' }>>): Promise<void>;
  failed(error: string, extra?: Partial<Extract<WorkerMessage, { type: 'task_failed' }>>): Promise<void>;
}

function say(context: WorkerContext): Say {
  const envelope = () => ({ session: context.task.session, at: context.now().toISOString() });
  const plan = context.plan.id;
  return {
    ready: async () => context.emit({ ...envelope(), type: 'session_ready', agent: 'test' }),
    started: async (task, total, title) => context.emit({ ...envelope(), type: 'task_started', plan, task, total, title }),
    progress: async (message) => context.emit({ ...envelope(), type: 'progress_update', plan, message }),
    async ask(checkpoint) {
      const type = checkpoint.kind === 'decision' ? 'decision_needed' : checkpoint.kind === 'verification' ? 'verification_needed' : 'action_needed';
      await context.emit({ ...envelope(), type, plan, checkpoint });
      return context.awaitResponse(checkpoint);
    },
    completed: async (extra = {}) => context.emit({ ...envelope(), type: 'task_completed', plan, commits: [], ...extra }),
    failed: async (error, extra = {}) => context.emit({ ...envelope(), type: 'task_failed', plan, error, retryable: false, ...extra }),
  };
}
