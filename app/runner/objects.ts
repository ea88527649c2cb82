import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { gitEnv } from '../machine/git-env.js';

/** A git object as `git cat-file --batch` gives it. */
export interface GitObject {
  type: string;
  body: Buffer;
}

/** The reader cannot be used (its process would not start, ended, or was closed): ask git another way. */
export class ObjectReaderError extends Error {}

interface Waiting {
  resolve: (object: GitObject | undefined) => void;
  reject: (e: Error) => void;
}

/**
 * One long-lived `git cat-file --batch` for a run: objects (commits, trees) read by id over
 * its pipes, as many as the run asks, for the one process. A run reads what its plans
 * committed this way instead of starting a `git log` per plan (RunRepo.attemptHistory).
 * Started on first use; ended by close(), or when the run's process ends (its input closes).
 */
export class ObjectReader {
  #child: ChildProcessByStdio<Writable, Readable, null> | undefined;
  #broken: Error | undefined;
  readonly #waiting: Waiting[] = [];
  #pending: Buffer = Buffer.alloc(0);
  /** The object being read: its header, and how many bytes of it (and its newline) are still to come. */
  #current: { type: string; size: number } | undefined;

  constructor(private readonly cwd: string) {}

  /** The object with this id, or undefined when the repository has none. Rejects when the reader cannot be used (the caller asks git otherwise). */
  read(id: string): Promise<GitObject | undefined> {
    if (this.#broken) return Promise.reject(this.#broken);
    if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(id)) return Promise.reject(new ObjectReaderError(`not an object id: ${id}`));
    const child = this.#start();
    if (this.#waiting.length === 0) hold(child, true);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      child.stdin.write(`${id}\n`);
    });
  }

  /** Ends the process, and resolves once it has exited: a run that ends leaves no git behind it. */
  close(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    const exited =
      child === undefined || child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((resolve) => child.once('close', () => resolve()));
    // Held while it ends: an unreferenced child would let the process leave before its exit is heard.
    if (child) hold(child, true);
    child?.stdin.end();
    this.#fail(new ObjectReaderError('the object reader was closed'), false);
    return exited;
  }

  #start(): ChildProcessByStdio<Writable, Readable, null> {
    if (this.#child) return this.#child;
    const child = spawn('git', ['cat-file', '--batch'], { cwd: this.cwd, env: gitEnv(process.env), stdio: ['pipe', 'pipe', 'ignore'] });
    child.stdout.on('data', (chunk: Buffer) => this.#receive(chunk));
    child.stdin.on('error', (e) => this.#fail(e));
    child.on('error', (e) => this.#fail(e));
    child.on('exit', () => {
      if (this.#child === child) this.#fail(new ObjectReaderError('git cat-file --batch ended'));
    });
    this.#child = child;
    return child;
  }

  #receive(chunk: Buffer): void {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    for (;;) {
      if (this.#current === undefined) {
        const end = this.#pending.indexOf(10);
        if (end < 0) return;
        const header = this.#pending.subarray(0, end).toString('utf8');
        this.#pending = this.#pending.subarray(end + 1);
        const [, type, size] = header.split(' ');
        if (type === 'missing' || size === undefined) {
          this.#waiting.shift()?.resolve(undefined);
          if (this.#waiting.length === 0 && this.#child) hold(this.#child, false);
          continue;
        }
        this.#current = { type: type!, size: Number(size) };
      }
      const { type, size } = this.#current;
      if (this.#pending.length < size + 1) return;
      const body = Buffer.from(this.#pending.subarray(0, size));
      this.#pending = this.#pending.subarray(size + 1);
      this.#current = undefined;
      this.#waiting.shift()?.resolve({ type, body });
      if (this.#waiting.length === 0 && this.#child) hold(this.#child, false);
    }
  }

  #fail(cause: Error, broken = true): void {
    const e = cause instanceof ObjectReaderError ? cause : new ObjectReaderError(`git cat-file --batch: ${cause.message}`, { cause });
    if (broken) this.#broken = e;
    this.#child = undefined;
    this.#current = undefined;
    this.#pending = Buffer.alloc(0);
    for (const w of this.#waiting.splice(0)) w.reject(e);
  }
}

/** The reader keeps the process alive only while it is asked something. */
function hold(child: ChildProcessByStdio<Writable, Readable, null>, on: boolean): void {
  for (const handle of [child, child.stdout as unknown as { ref(): void; unref(): void }, child.stdin as unknown as { ref(): void; unref(): void }]) {
    if (on) handle.ref();
    else handle.unref();
  }
}

export interface CommitObject {
  tree: string;
  parents: string[];
  /** The message as stored (what `git log --format=%B` prints for it). */
  message: string;
  /** An encoding header: the message is not UTF-8 as stored. */
  encoding?: string;
}

export function parseCommit(body: Buffer): CommitObject {
  const text = body.toString('utf8');
  const split = text.indexOf('\n\n');
  const headers = (split < 0 ? text : text.slice(0, split)).split('\n');
  const parents: string[] = [];
  let tree = '';
  let encoding: string | undefined;
  for (const line of headers) {
    // Continuation lines of a multi-line header (gpgsig, mergetag) start with a space.
    if (line.startsWith('tree ')) tree = line.slice(5);
    else if (line.startsWith('parent ')) parents.push(line.slice(7));
    else if (line.startsWith('encoding ')) encoding = line.slice(9);
  }
  return { tree, parents, message: split < 0 ? '' : text.slice(split + 2), ...(encoding === undefined ? {} : { encoding }) };
}

export interface TreeEntry {
  mode: string;
  id: string;
}

/** A tree's entries by name. */
export function parseTree(body: Buffer, idBytes: number): Map<string, TreeEntry> {
  const entries = new Map<string, TreeEntry>();
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(32, at);
    const nul = body.indexOf(0, space);
    const mode = body.subarray(at, space).toString('latin1');
    const name = body.subarray(space + 1, nul).toString('utf8');
    entries.set(name, { mode, id: body.subarray(nul + 1, nul + 1 + idBytes).toString('hex') });
    at = nul + 1 + idBytes;
  }
  return entries;
}
