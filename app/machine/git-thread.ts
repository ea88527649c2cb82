import { SHARE_ENV, Worker } from 'node:worker_threads';
import { gitEnv } from './git-env.js';
import { headOfFiles } from './git-head.js';

/**
 * Where harness's git commands are started: one helper thread for the process, which has
 * them started by a small long-lived starter process of its own. Starting a process blocks
 * the thread that starts it for milliseconds (fork and exec, more the more memory the
 * process has), and reading its output, building its environment and waiting for it to
 * close is more work again; a local run starts several git commands per plan. On the helper
 * thread and the starter all of that leaves the main thread free to schedule and render
 * documents; the few small files a run reads and writes per plan (HEAD, state files, its
 * documents) are read and written on the helper thread too, a request each. The helper
 * shares the process's environment (SHARE_ENV), so a variable set before a command reaches
 * it as it would a command started here; it keeps the process alive only while a request
 * is under way.
 *
 * The thread's code is a string, not a module of its own, so that it is the same from the
 * sources, from dist/ and from a bundled action.
 */
const threadSource = () => `
const { parentPort } = require('node:worker_threads');
const { spawn } = require('node:child_process');
const { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { dirname, isAbsolute, join, resolve } = require('node:path');

// The environment of harness's git commands (git-env.ts).
const gitEnv = ${gitEnv.toString()};

// The starter: a small process of its own that starts the git commands. Forking copies the
// forking process's page tables, and this process's are large: a fork here took milliseconds
// of CPU and, while it ran, stalled the main thread whenever it touched new memory. Forking
// the starter's small ones costs a fraction. It reads one request a line and writes one
// answer a line; it ends when its input does (this process is gone).
const STARTER = ${JSON.stringify(STARTER)};
let starter;
const asked = new Set();
const headAfter = new Map();

function startStarter() {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, ['-e', STARTER, '${STARTER_MARK}'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\\n'); nl >= 0; nl = buffer.indexOf('\\n')) {
      const reply = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      asked.delete(reply.id);
      // Asked for HEAD once the command succeeded (a commit): read here, the same request.
      const after = headAfter.get(reply.id);
      headAfter.delete(reply.id);
      if (after !== undefined && reply.code === 0) {
        try {
          reply.head = headOfFiles(after, io);
        } catch {
          // Left to the caller, who asks git.
        }
      }
      parentPort.postMessage(reply);
    }
  });
  const gone = (why) => {
    if (starter !== child) return;
    starter = undefined;
    for (const id of asked) parentPort.postMessage({ id, error: "harness's git starter stopped: " + why });
    asked.clear();
    headAfter.clear();
  };
  child.on('error', (e) => gone(e.message));
  child.on('exit', (code, signal) => gone(signal ?? 'exit ' + code));
  child.stdin.on('error', () => undefined);
  if (child.pid !== undefined) parentPort.postMessage({ id: -1, starter: child.pid });
  return child;
}

function git({ id, args, cwd, extra, input, head }) {
  starter ??= startStarter();
  asked.add(id);
  if (head) headAfter.set(id, cwd);
  starter.stdin.write(JSON.stringify({ id, args, cwd, env: gitEnv(process.env, extra), input }) + '\\n');
}

// The commit HEAD points at, from the repository's files (git-head.ts).
const headOfFiles = ${headOfFiles.toString()};

const io = {
  read(path) {
    try {
      return readFileSync(path, 'utf8');
    } catch (e) {
      if (e.code === 'EISDIR') return null;
      if (e.code === 'ENOENT') return undefined;
      throw e;
    }
  },
  join,
  resolve,
  isAbsolute,
  env: process.env,
};

function head({ id, cwd }) {
  try {
    parentPort.postMessage({ id, value: headOfFiles(cwd, io) });
  } catch (e) {
    parentPort.postMessage({ id, error: e.message, code: e.code });
  }
}

// A file written whole or not at all (runner/atomic.ts): a sibling temporary file renamed over it.
function write({ id, path, tmp, content }) {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, content);
    renameSync(tmp, path);
    parentPort.postMessage({ id });
  } catch (e) {
    parentPort.postMessage({ id, error: e.message, code: e.code });
  }
}

// Files written (or appended to) as they are, their directories made first: a batch in one request.
function files({ id, entries }) {
  try {
    for (const { path, content, append } of entries) {
      mkdirSync(dirname(path), { recursive: true });
      if (append) appendFileSync(path, content);
      else writeFileSync(path, content);
    }
    parentPort.postMessage({ id });
  } catch (e) {
    parentPort.postMessage({ id, error: e.message, code: e.code });
  }
}

function empty({ id, dir, keep }) {
  try {
    for (const name of readdirSync(dir)) if (name !== keep) rmSync(join(dir, name), { recursive: true, force: true });
    parentPort.postMessage({ id });
  } catch (e) {
    parentPort.postMessage({ id, error: e.message, code: e.code });
  }
}

const KINDS = { git, head, write, files, empty };
parentPort.on('message', (m) => KINDS[m.kind](m));
`;

/** What the starter process (see the thread's comment on it) runs. */
const STARTER = `
const { spawn } = require('node:child_process');
const reply = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
function run({ id, args, cwd, env, input }) {
  let child;
  try {
    child = spawn('git', args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (e) {
    reply({ id, error: e.message });
    return;
  }
  const stdout = [];
  const stderr = [];
  let failed;
  child.stdout.on('data', (d) => stdout.push(d));
  child.stderr.on('data', (d) => stderr.push(d));
  child.on('error', (e) => (failed = e.message));
  child.on('close', (code) => {
    if (failed !== undefined && code === null) reply({ id, pid: child.pid, error: failed });
    else reply({ id, pid: child.pid, code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
  });
  // A git that exits before reading stdin must not end the starter with EPIPE.
  child.stdin.on('error', () => undefined);
  child.stdin.end(input ?? '');
}
let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let nl = buffer.indexOf('\\n'); nl >= 0; nl = buffer.indexOf('\\n')) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    if (line) run(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));
process.stdout.on('error', () => process.exit(0));
`;

/** In the starter's command line, so that it can be told apart (test/helpers/kill-git.ts finds the run through it). */
export const STARTER_MARK = 'harness-git-starter';

interface Reply {
  id: number;
  value?: string;
  /** HEAD once the command succeeded, when asked for (and the files settle it). */
  head?: string;
  /** The starter process started (its id). */
  starter?: number;
  pid?: number;
  code?: number | null | string;
  stdout?: string;
  stderr?: string;
  error?: string;
}

export interface GitOutcome {
  /** HEAD after the command, when it succeeded and `head` was asked for (undefined when the files do not settle it). */
  head?: string;
  /** The process's id, when it started. */
  pid?: number;
  /** Its exit code (null when a signal ended it); undefined when it never ran. */
  code?: number | null;
  stdout: string;
  stderr: string;
  /** Why it could not be started (or failed as it started). */
  error?: string;
}

/** Told of every git process the helper thread started: its arguments and id (for counting them, as bench/process-census.ts does). */
export type GitProcessListener = (args: readonly string[], pid: number) => void;

class HelperThread {
  #worker: Worker | undefined;
  #next = 0;
  readonly #waiting = new Map<number, (reply: Reply) => void>();
  readonly listeners = new Set<GitProcessListener>();
  readonly starters = new Set<(pid: number) => void>();

  #thread(): Worker {
    if (!this.#worker) {
      const worker = new Worker(threadSource(), { eval: true, env: SHARE_ENV, stdout: false, stderr: false });
      worker.unref();
      worker.on('message', (reply: Reply) => {
        if (reply.starter !== undefined) {
          for (const listener of this.starters) listener(reply.starter);
          return;
        }
        const settle = this.#waiting.get(reply.id);
        this.#waiting.delete(reply.id);
        if (this.#waiting.size === 0) worker.unref();
        settle?.(reply);
      });
      worker.on('error', (e) => this.#lost(e));
      worker.on('exit', (code) => this.#lost(new Error(`harness's git helper thread stopped (exit ${code})`)));
      this.#worker = worker;
    }
    return this.#worker;
  }

  /** The thread is gone (it never should be): what waited on it fails, and the next request starts a new one. */
  #lost(e: Error): void {
    this.#worker = undefined;
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const settle of waiting) settle({ id: -1, error: e.message });
  }

  request(message: Record<string, unknown>): Promise<Reply> {
    const worker = this.#thread();
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      worker.ref();
      worker.postMessage({ ...message, id });
    });
  }
}

const helper = new HelperThread();

/** Run git on the helper thread with the given extra environment (see git-env.ts for the rest). */
export async function gitOnThread(args: readonly string[], cwd: string, extra: Record<string, string>, input?: string, options: { head?: boolean } = {}): Promise<GitOutcome> {
  const reply = await helper.request({ kind: 'git', args, cwd, extra, input, ...(options.head ? { head: true } : {}) });
  if (reply.pid !== undefined) for (const listener of helper.listeners) listener(args, reply.pid);
  return {
    ...(reply.head === undefined ? {} : { head: reply.head }),
    ...(reply.pid === undefined ? {} : { pid: reply.pid }),
    ...(typeof reply.code === 'number' || reply.code === null ? { code: reply.code } : {}),
    stdout: reply.stdout ?? '',
    stderr: reply.stderr ?? '',
    ...(reply.error === undefined ? {} : { error: reply.error }),
  };
}

/** headOfFiles (git-head.ts) on the helper thread: the few files it reads, read there in one request. */
export async function headOnThread(cwd: string): Promise<string | undefined> {
  const reply = await helper.request({ kind: 'head', cwd });
  if (reply.error !== undefined) throw failure(`reading HEAD under ${cwd}: ${reply.error}`, reply);
  return reply.value;
}

/** Write `content` to `tmp` and rename it over `path` (its directory made first), on the helper thread: one request for what is four file operations. */
export async function writeThenRename(path: string, tmp: string, content: string): Promise<void> {
  const reply = await helper.request({ kind: 'write', path, tmp, content });
  if (reply.error !== undefined) throw failure(`writing ${path}: ${reply.error}`, reply);
}

/**
 * Write (or append to) files, each in place, their directories made first, on the helper
 * thread: one request for a batch (a plan's documents) that is a dozen file operations.
 */
export async function writeFiles(entries: readonly { path: string; content: string; append?: boolean }[]): Promise<void> {
  if (entries.length === 0) return;
  const reply = await helper.request({ kind: 'files', entries });
  if (reply.error !== undefined) throw failure(`writing ${entries.map((e) => e.path).join(', ')}: ${reply.error}`, reply);
}

function failure(message: string, reply: Reply): Error {
  return Object.assign(new Error(message), typeof reply.code === 'string' ? { code: reply.code } : {});
}

/** Remove everything in `dir` but `keep`, on the helper thread (a worktree's files can be many). */
export async function emptyDirectory(dir: string, keep: string): Promise<void> {
  const reply = await helper.request({ kind: 'empty', dir, keep });
  if (reply.error !== undefined) throw failure(`emptying ${dir}: ${reply.error}`, reply);
}

/** Be told of each starter process the helper thread starts (one for its life, unless one dies); returns how to stop. */
export function onStarterProcess(listener: (pid: number) => void): () => void {
  helper.starters.add(listener);
  return () => helper.starters.delete(listener);
}

/** Be told of each git process the helper thread starts; returns how to stop. */
export function onGitProcess(listener: GitProcessListener): () => void {
  helper.listeners.add(listener);
  return () => helper.listeners.delete(listener);
}
