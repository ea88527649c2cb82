import { spawn, type ChildProcess } from 'node:child_process';
import type { LocalSpec } from './local-specs.js';
import { McpToolError } from './tool-result.js';

/** Lines of a run's output kept for the agent to read: the end is what says how it went. */
const TAIL_LINES = 200;
/** After SIGINT (the runner's Ctrl-C: it stops its agents and records where it was), how long before SIGKILL. */
const STOP_GRACE_MS = 15_000;

export interface RunFilter {
  phase?: string;
  plan?: string;
  agent?: string;
  retry?: boolean;
}

export type RunState = 'running' | 'finished' | 'stopped';

/** What the run tools report of one `harness run`. */
export interface RunView {
  run: string;
  spec: string;
  dir: string;
  command: string;
  state: RunState;
  exitCode: number | null;
  /** What the exit code means (docs/design.md's CLI table), once it ended. */
  outcome: string | null;
  startedAt: string;
  endedAt: string | null;
  /** The last lines it printed. */
  output: string[];
}

interface LocalRun {
  id: string;
  spec: LocalSpec;
  args: string[];
  child: ChildProcess;
  startedAt: Date;
  endedAt?: Date;
  exitCode: number | null;
  stopped: boolean;
  output: string[];
  ended: Promise<void>;
}

/**
 * The `harness run`s this server started, each a child process of its own, exactly as a
 * person types it. A run is a process rather than a call inside the server: it takes minutes
 * to hours, holds the spec's run lock, answers Ctrl-C by stopping cleanly, and a crash of
 * either side must not take the other down. Tool calls return at once with the run's id;
 * harness_run_status reads its state (and may wait a while for a change).
 */
export class LocalRuns {
  readonly #runs = new Map<string, LocalRun>();
  #next = 1;

  /**
   * @param harness how to start harness itself, argv before the command (node, bin/harness.js)
   * @param root the repository the runs work in
   */
  constructor(
    private readonly harness: readonly string[],
    private readonly root: string,
  ) {}

  start(spec: LocalSpec, filter: RunFilter): RunView {
    const running = [...this.#runs.values()].find((r) => r.spec.id === spec.id && r.endedAt === undefined);
    if (running) {
      throw new McpToolError(
        `${spec.id} is already being run by ${running.id} (harness ${running.args.join(' ')}): one run per spec at a time; follow it with harness_run_status, or stop it with harness_stop_run first`,
      );
    }
    const args = ['run', spec.dir];
    if (filter.phase !== undefined) args.push('--phase', filter.phase);
    if (filter.plan !== undefined) args.push('--plan', filter.plan);
    if (filter.agent !== undefined) args.push('--agent', filter.agent);
    if (filter.retry) args.push('--retry');
    const [command, ...prefix] = this.harness;
    // Its own process group: a signal meant for the server (the agent's Ctrl-C) is not the run's; stopping is harness_stop_run's.
    const child = spawn(command!, [...prefix, ...args], { cwd: this.root, env: process.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const run: LocalRun = {
      id: `run-${this.#next++}`,
      spec,
      args,
      child,
      startedAt: new Date(),
      exitCode: null,
      stopped: false,
      output: [],
      ended: Promise.resolve(),
    };
    const collect = (stream: NodeJS.ReadableStream | null) => {
      let partial = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        this.keep(run, lines);
      });
      stream?.on('end', () => partial && this.keep(run, [partial]));
    };
    collect(child.stdout);
    collect(child.stderr);
    run.ended = new Promise<void>((resolve) => {
      child.on('error', (e) => {
        this.keep(run, [`harness run could not be started: ${e.message}`]);
        run.exitCode = null;
        run.endedAt = new Date();
        resolve();
      });
      child.on('close', (code) => {
        run.exitCode = code;
        run.endedAt = new Date();
        resolve();
      });
    });
    this.#runs.set(run.id, run);
    return this.view(run);
  }

  get(id: string): RunView {
    return this.view(this.find(id));
  }

  list(): RunView[] {
    return [...this.#runs.values()].map((r) => this.view(r));
  }

  /** Wait until the run ends or `ms` passed (whichever is first); the run as it is then. */
  async waitFor(id: string, ms: number, changed: () => Promise<boolean> = async () => false): Promise<RunView> {
    const run = this.find(id);
    const deadline = Date.now() + ms;
    while (run.endedAt === undefined && Date.now() < deadline) {
      const tick = new Promise<void>((resolve) => setTimeout(resolve, Math.min(500, Math.max(0, deadline - Date.now()))));
      await Promise.race([run.ended, tick]);
      if (run.endedAt === undefined && (await changed())) break;
    }
    return this.view(run);
  }

  /** Stop a run as Ctrl-C would: the runner stops its agents and records where it was, so the next run resumes there. */
  async stop(id: string): Promise<RunView> {
    const run = this.find(id);
    await this.stopRun(run);
    return this.view(run);
  }

  /** Every run still going, stopped: when the client goes away, nobody is left to answer or follow them. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#runs.values()].map((r) => this.stopRun(r)));
  }

  private async stopRun(run: LocalRun): Promise<void> {
    if (run.endedAt !== undefined) return;
    run.stopped = true;
    run.child.kill('SIGINT');
    const timer = setTimeout(() => run.child.kill('SIGKILL'), STOP_GRACE_MS);
    await run.ended;
    clearTimeout(timer);
  }

  private find(id: string): LocalRun {
    const run = this.#runs.get(id);
    if (run) return run;
    const known = [...this.#runs.keys()];
    throw new McpToolError(
      `no run "${id}" in this session: ${known.length ? `the runs started here are ${known.join(', ')}` : 'no run was started here'}; runs are known to the server that started them — harness_status shows a spec's state whoever ran it`,
    );
  }

  private keep(run: LocalRun, lines: string[]): void {
    run.output.push(...lines);
    if (run.output.length > TAIL_LINES) run.output.splice(0, run.output.length - TAIL_LINES);
  }

  private view(run: LocalRun): RunView {
    const ended = run.endedAt !== undefined;
    return {
      run: run.id,
      spec: run.spec.id,
      dir: run.spec.dir,
      command: `harness ${run.args.join(' ')}`,
      state: !ended ? 'running' : run.stopped ? 'stopped' : 'finished',
      exitCode: run.exitCode,
      outcome: ended ? outcomeOf(run) : null,
      startedAt: run.startedAt.toISOString(),
      endedAt: run.endedAt?.toISOString() ?? null,
      output: [...run.output],
    };
  }
}

function outcomeOf(run: LocalRun): string {
  if (run.stopped) return 'stopped on request; running it again resumes where it was';
  switch (run.exitCode) {
    case 0:
      return 'every plan (and phase) it was asked to run is verified';
    case 1:
      return "it ended with failures or work left: the plans' states say which, and why";
    case 2:
      return 'harness refused the command (a usage error): the output says why';
    case 75:
      return "nothing failed, but a plan is paused at the model's usage limit: the output says when it resets; running it again after that time resumes it";
    default:
      return `it ended abnormally (exit ${run.exitCode ?? 'by a signal'}): the output says why; running it again resumes where it was`;
  }
}
