import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Checkpoint, OrchestratorMessage, WorkerMessage } from '../../app/engine/core/protocol/messages.js';
import type { Plan } from '../../app/engine/core/spec/model.js';
import { parsePlan } from '../../app/engine/core/spec/plan.js';
import { firstCommit } from './git-batch.js';
import type { WorkerContext } from '../../app/engine/core/agents/agent.js';

const run = promisify(execFile);

export const NOW = '2024-05-01T12:00:00.000Z';
export const SESSION = 'sess-1';
export const SPEC = 'SPC-007';

export async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd })).stdout;
}

/** A repository with one commit, and a log directory beside it (outside the worktree). */
export async function makeRepo(files: Record<string, string> = { 'README.md': '# demo\n' }): Promise<{ repo: string; logDir: string; base: string }> {
  const root = await mkdtemp(join(tmpdir(), 'harness-agent-'));
  const repo = join(root, 'repo');
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), text);
  }
  await mkdir(repo, { recursive: true });
  const base = firstCommit(
    repo,
    { name: 'Harness Test', email: 'test@harness.invalid' },
    'initial',
    [['commit.gpgsign', 'false']],
    ['rev-parse', 'HEAD'],
  ).trim();
  return { repo, logDir: join(root, 'logs'), base };
}

export function planFrom(markdown: string): Plan {
  const parsed = parsePlan('planning/plans/01-core/01-02-PLAN.md', markdown, '01');
  if (!parsed.plan) throw new Error(`test plan does not parse: ${JSON.stringify(parsed.problems)}`);
  return parsed.plan;
}

/** Commits after `base`, oldest first: sha and full message. */
export async function commitsSince(repo: string, base: string): Promise<{ sha: string; message: string }[]> {
  const out = await git(repo, 'log', '--reverse', '--format=%H%x1f%B%x1e', `${base}..HEAD`);
  return out
    .split('\x1e')
    .map((r) => r.replace(/^\n/, ''))
    .filter((r) => r.includes('\x1f'))
    .map((r) => {
      const [sha, message] = r.split('\x1f');
      return { sha: sha!, message: message! };
    });
}

export interface TestWorker {
  context: WorkerContext;
  messages: WorkerMessage[];
  controller: AbortController;
  /** Checkpoints the worker waited on. */
  asked: Checkpoint[];
  /** Resolves with the first message of a type (already emitted or still to come). */
  waitFor(type: WorkerMessage['type'], where?: (m: WorkerMessage) => boolean): Promise<WorkerMessage>;
  /** Answer the checkpoint the worker waits on. */
  respond(message: OrchestratorMessage): void;
  /** Resolves once the agent waits for an answer (it called awaitResponse): the checkpoint it waits on. */
  waiting(): Promise<Checkpoint>;
}

export interface TestWorkerOptions {
  repo: string;
  logDir: string;
  plan: Plan;
  resume?: boolean;
  env?: Record<string, string>;
  base?: string;
  /** Answer checkpoints at once with this; else respond() must be called. */
  answer?: (checkpoint: Checkpoint) => OrchestratorMessage;
}

export function testWorker(o: TestWorkerOptions): TestWorker {
  const messages: WorkerMessage[] = [];
  const asked: Checkpoint[] = [];
  const waiters: { type: string; where: (m: WorkerMessage) => boolean; resolve: (m: WorkerMessage) => void }[] = [];
  const pending: ((m: OrchestratorMessage) => void)[] = [];
  // The worker emits decision_needed before it waits: an answer may arrive in between.
  const early: OrchestratorMessage[] = [];
  const controller = new AbortController();
  const waitingFor: ((checkpoint: Checkpoint) => void)[] = [];
  const context: WorkerContext = {
    task: {
      session: SESSION,
      at: NOW,
      type: 'assign_task',
      spec: SPEC,
      plan: o.plan.id,
      resume: o.resume ?? false,
      worktree: o.repo,
      prompt: o.plan.body,
      timeout_minutes: o.plan.timeoutMinutes,
    },
    plan: o.plan,
    spec: SPEC,
    emit(message) {
      messages.push(message);
      for (const w of [...waiters]) {
        if (w.type === message.type && w.where(message)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(message);
        }
      }
    },
    awaitResponse(checkpoint) {
      asked.push(checkpoint);
      for (const w of waitingFor.splice(0)) w(checkpoint);
      if (o.answer) return Promise.resolve(o.answer(checkpoint));
      const ready = early.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve) => pending.push(resolve));
    },
    signal: controller.signal,
    env: o.env ?? {},
    logDir: o.logDir,
    now: () => new Date(NOW),
  };
  if (o.base !== undefined) context.base = o.base;
  return {
    context,
    messages,
    controller,
    asked,
    waitFor(type, where = () => true) {
      const found = messages.find((m) => m.type === type && where(m));
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ type, where, resolve }));
    },
    waiting() {
      const already = asked.at(-1);
      if (already && pending.length > 0) return Promise.resolve(already);
      return new Promise((resolve) => waitingFor.push(resolve));
    },
    respond(message) {
      const next = pending.shift();
      if (next) next(message);
      else early.push(message);
    },
  };
}

/** The envelope every message of the test worker carries. */
export const ENVELOPE = { session: SESSION, at: NOW } as const;
