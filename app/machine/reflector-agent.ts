import { spawn } from 'node:child_process';
import { parseClaudeLine, resultFailure, type ClaudeResult } from '../engine/core/agents/claude-stream.js';
import type { HarnessConfig } from '../engine/core/config/schema.js';
import { ReflectorError, type Reflector } from '../engine/knowledge/lessons/reflector.js';
import { contain } from './containment.js';
import { killGroup, PROCESS_TAG, processTag } from './process-group.js';
import { ProcessTail } from './process-tail.js';

/**
 * The reflector agent on this machine: Claude Code headless (`claude -p <prompt> --output-format
 * stream-json --verbose`, its final result read from the stream as the plan agent's is), or any
 * command (`sh -c`, the prompt on stdin, the answer on stdout). The agent runs in its own
 * process group and container of processes (containment.ts), so a time-out or an abort ends
 * what it started in its group, and its end ends everything else it started.
 */

export const DEFAULT_REFLECTOR_MINUTES = 10;
/** After SIGTERM, how long the group has before SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** An answer longer than this is not a lesson; what is past it is dropped. */
const MAX_ANSWER_BYTES = 1024 * 1024;
const TAIL_BYTES = 4 * 1024;

export interface ReflectorAgentOptions {
  /** Where the agent runs: the repository (or the store's checkout). */
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
}

interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  error?: Error;
}

function run(command: string, args: readonly string[], input: string | undefined, timeoutMs: number, options: ReflectorAgentOptions): Promise<Spawned> {
  return new Promise((resolve) => {
    const stdout = new ProcessTail(MAX_ANSWER_BYTES);
    const stderr = new ProcessTail(TAIL_BYTES);
    const tag = processTag();
    const env = { ...Object.fromEntries(Object.entries(options.env).filter((e): e is [string, string] => e[1] !== undefined)), [PROCESS_TAG]: tag };
    const container = contain(command, args, { tag, cwd: options.cwd, env });
    const child = spawn(container.command, container.args, {
      cwd: options.cwd,
      env,
      detached: true,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let aborted = false;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const stop = () => {
      killGroup(child, 'SIGTERM');
      timers.push(setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS));
    };
    const onAbort = () => {
      aborted = true;
      stop();
    };
    const settle = (result: Omit<Spawned, 'stdout' | 'stderr' | 'timedOut' | 'aborted'>) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      options.signal?.removeEventListener('abort', onAbort);
      // Whatever it left running (holding its output open, or not) ends with its container.
      void container.end().then(() => resolve({ ...result, stdout: stdout.text(), stderr: stderr.text(), timedOut, aborted }));
    };
    child.stdout!.on('data', (c: Buffer) => stdout.push(c));
    child.stderr!.on('data', (c: Buffer) => stderr.push(c));
    child.once('error', (error) => settle({ code: null, error }));
    // Once the agent has exited, what it left holding its output is ended; its output is then complete.
    child.once('exit', () => {
      killGroup(child, 'SIGKILL');
      void container.end();
    });
    child.once('close', (code, signal) => settle({ code: container.ended(code, signal).code }));
    if (input !== undefined) {
      // An agent that exits without reading its stdin is answered by its exit, not by EPIPE.
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(input);
    }
    timers.push(
      setTimeout(() => {
        timedOut = true;
        stop();
      }, timeoutMs),
    );
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function failure(agent: string, r: Spawned, minutes: number): ReflectorError | undefined {
  const tail = r.stderr.trim().split('\n').slice(-5).join('\n');
  const said = tail ? `: ${tail}` : '';
  if (r.aborted) return new ReflectorError(`${agent} was stopped (the reflection was aborted)`);
  if (r.timedOut) return new ReflectorError(`${agent} took longer than ${minutes} minutes (knowledge.reflect.timeout_minutes)`);
  if (r.error) {
    const hint = (r.error as NodeJS.ErrnoException).code === 'ENOENT' ? '; install it on this machine, or set knowledge.reflect.agent to another agent' : '';
    return new ReflectorError(`${agent} could not start: ${r.error.message}${hint}`);
  }
  if (r.code !== 0) return new ReflectorError(`${agent} exited with ${r.code === null ? 'a signal' : `code ${r.code}`}${said}`);
  return undefined;
}

/** Claude Code, headless, asked for one lesson. */
export class ClaudeReflector implements Reflector {
  readonly name = 'claude';

  constructor(
    private readonly config: NonNullable<HarnessConfig['agents']['claude']>,
    private readonly minutes: number,
    private readonly options: ReflectorAgentOptions,
  ) {}

  async write(prompt: string): Promise<string> {
    const args = ['-p', prompt, '--output-format', 'stream-json', '--verbose'];
    if (this.config.model) args.push('--model', this.config.model);
    if (this.config.max_turns !== undefined) args.push('--max-turns', String(this.config.max_turns));
    args.push(...(this.config.extra_args ?? []));
    const r = await run(this.config.executable ?? 'claude', args, undefined, this.minutes * 60_000, this.options);
    let result: ClaudeResult | undefined;
    for (const line of r.stdout.split('\n')) for (const event of parseClaudeLine(line)) if (event.type === 'result') result = event;
    const failed = failure('claude', r, this.minutes);
    if (failed && result === undefined) throw failed;
    if (result === undefined) throw new ReflectorError('claude ended without a result in its stream-json output');
    const error = resultFailure(result);
    if (error) throw new ReflectorError(error.error);
    if (!result.result?.trim()) throw new ReflectorError('claude answered with nothing');
    return result.result;
  }
}

/** A command of the repository's choosing: the prompt on its stdin, the lesson on its stdout. */
export class CommandReflector implements Reflector {
  readonly name = 'command';

  constructor(
    private readonly command: string,
    private readonly minutes: number,
    private readonly options: ReflectorAgentOptions,
  ) {}

  async write(prompt: string): Promise<string> {
    const r = await run('sh', ['-c', this.command], prompt, this.minutes * 60_000, this.options);
    const failed = failure(`the reflector command \`${this.command}\``, r, this.minutes);
    if (failed) throw failed;
    if (r.stdout.trim() === '') throw new ReflectorError(`the reflector command \`${this.command}\` printed nothing on stdout`);
    return r.stdout;
  }
}

/**
 * The reflector `.github/harness.yml` configures (knowledge.reflect.agent), or undefined for
 * none. A command reflector needs a command: its own (knowledge.reflect.command) or the
 * command agent's; a config naming neither is an error to fix, not a silent draft.
 */
export function configuredReflector(config: HarnessConfig, options: ReflectorAgentOptions): Reflector | undefined {
  const reflect = config.knowledge.reflect;
  const minutes = reflect.timeout_minutes ?? DEFAULT_REFLECTOR_MINUTES;
  switch (reflect.agent) {
    case undefined:
      return undefined;
    case 'claude':
      return new ClaudeReflector(config.agents.claude ?? {}, minutes, options);
    case 'command': {
      const command = reflect.command ?? config.agents.command?.command;
      if (command === undefined || command.trim() === '') {
        throw new ReflectorError(
          '.github/harness.yml: knowledge.reflect.agent is command, but there is no command to run; set knowledge.reflect.command (the prompt arrives on stdin, the lesson is read from stdout) or agents.command.command',
        );
      }
      return new CommandReflector(command, minutes, options);
    }
  }
}
