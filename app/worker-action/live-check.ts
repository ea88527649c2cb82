import type { AttemptEvent } from '../engine/lifecycle/ports.js';
import type { CheckConclusion, CheckOutput, CheckRunAction } from '../gateway/check-runs.js';
import type { Gateway } from '../gateway/gateway.js';
import type { WorkerLog } from './job-log.js';
import { CONCLUDED_BY_WORKER } from '../engine/forge/worker-outcome.js';
import { PROGRESS_INTERVAL_MIN_MS, progressIntervalMs } from '../gateway/limit-model.js';

/** A check run's output fields hold 65,535 characters (REST: create a check run, `output.summary` and `output.text`). */
export const CHECK_OUTPUT_MAX = 65_535;
/** The fewest milliseconds between two progress writes of a worker alone: a chatty agent must not spend the API's rate on its check run. */
export const CHECK_WRITE_INTERVAL_MS = PROGRESS_INTERVAL_MIN_MS;
const MESSAGES_SHOWN = 10;
const MESSAGE_MAX = 300;

export type CheckForge = Pick<Gateway, 'checkRuns' | 'createCheckRun' | 'updateCheckRun'>;

/**
 * Whose check run the worker writes. `app`: the job holds the App's installation token (minted
 * in the workflow), so it takes over the check run the App created at dispatch and its buttons
 * come back to the App. `actions`: only `GITHUB_TOKEN`, so the check run is GitHub Actions' own,
 * and a click on a button would reach nobody: it gets none, and its summary says so.
 */
export type CheckOwner = 'app' | 'actions';

export interface LiveCheckOptions {
  forge: CheckForge;
  owner: CheckOwner;
  name: string;
  externalId: string;
  detailsUrl?: string;
  log: WorkerLog;
  /** Milliseconds, monotonic. */
  now: () => number;
  /** The fewest milliseconds between two progress writes; by default what `sharing` leaves each worker. */
  intervalMs?: number;
  /** Plans that may run at once under the same token (the dispatch's `running`): 1 unless told. */
  sharing?: number;
  /** Where paced writes wait: Node's timers unless given (a simulation of many workers gives its own). */
  timer?: Timer;
}

/** Timers, as setTimeout and clearTimeout. */
export interface Timer {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const nodeTimer: Timer = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** What the check run shows at the end; the worker always writes it. */
export interface FinalCheck {
  conclusion: CheckConclusion;
  title: string;
  summary: string;
  text?: string;
  actions?: CheckRunAction[];
}

/**
 * The plan's check run, owned by the worker while it runs: `in_progress` from the start, then
 * task N of M and the agent's last messages, written at most once per interval however often
 * the agent reports (the last state is never lost: a write is scheduled for the end of the
 * interval), and the final state written by `finish`, on the commit the job started from and,
 * when it pushed, on the branch's new head too, where the pull request shows its checks.
 *
 * The interval is what all running plans' workers leave each other (progressIntervalMs: 3 s
 * alone, 3.2 min for 64): their progress together stays within GitHub's limits. The start, a
 * checkpoint's question and its answer, and the final state are written at once.
 */
export class LiveCheck {
  /** When the App dispatched the worker: its check run's start, when this job took that check run over. */
  dispatchedAt: Date | undefined;
  private id: number | undefined;
  private sha: string | undefined;
  private heading = '';
  private task: { task: number; total: number; title: string } | undefined;
  private stage = 'The agent is starting';
  private readonly messages: string[] = [];
  private lastWrite = Number.NEGATIVE_INFINITY;
  private timer: unknown;
  private readonly timers: Timer;
  private writing: Promise<void> = Promise.resolve();
  private finished = false;
  /** Progress writes made, for the figures of a run. */
  writes = 0;
  /** The fewest milliseconds between two progress writes. */
  readonly intervalMs: number;

  constructor(private readonly o: LiveCheckOptions) {
    this.intervalMs = o.intervalMs ?? progressIntervalMs(o.sharing ?? 1);
    this.timers = o.timer ?? nodeTimer;
  }

  /** Take over the App's check run on `sha` (or create one), `in_progress`, naming the plan. */
  async start(sha: string, heading: string): Promise<void> {
    this.sha = sha;
    this.heading = heading;
    const { forge, owner, name, externalId } = this.o;
    const mine = owner === 'app' ? (await forge.checkRuns(sha, name)).find((r) => r.externalId === externalId && r.status !== 'completed') : undefined;
    const output = this.output();
    if (mine) {
      await forge.updateCheckRun(mine.id, { status: 'in_progress', output, actions: [] });
      this.id = mine.id;
      // The App created it as it dispatched the worker: from then to now the plan waited for a runner.
      const at = mine.startedAt === undefined ? Number.NaN : Date.parse(mine.startedAt);
      if (!Number.isNaN(at)) this.dispatchedAt = new Date(at);
    } else {
      const created = await forge.createCheckRun({
        name,
        head_sha: sha,
        status: 'in_progress',
        external_id: externalId,
        ...(this.o.detailsUrl ? { details_url: this.o.detailsUrl } : {}),
        output,
      });
      this.id = created.id;
    }
    this.lastWrite = this.o.now();
    this.writes++;
  }

  /**
   * A resumed job settles what the waiting one left: the plan's check runs on `shas` (the commit
   * the App dispatched on, the wip commit the checkpoint pushed) that still ask a person for
   * action, now that the person answered and this job took over. Left as they were, they would
   * show "action required" on those commits for good.
   */
  async settleAnswered(shas: readonly string[]): Promise<number> {
    const { forge, name, externalId } = this.o;
    let settled = 0;
    for (const sha of [...new Set(shas)]) {
      for (const run of await forge.checkRuns(sha, name)) {
        if (run.id === this.id || run.externalId !== externalId || run.status !== 'completed' || run.conclusion !== 'action_required') continue;
        const summary = `The checkpoint was answered and the plan went on${this.o.detailsUrl ? ` in [a later run](${this.o.detailsUrl})` : ' in a later run'}: its state is on the plan branch's newest commit.`;
        await forge.updateCheckRun(run.id, {
          status: 'completed',
          conclusion: 'neutral',
          output: { title: 'Answered: the plan went on', summary },
          actions: [],
        });
        settled++;
      }
    }
    return settled;
  }

  /** An event of the attempt: kept, and shown at the next paced write. */
  event(e: AttemptEvent): void {
    switch (e.kind) {
      case 'agent-started':
        this.stage = `Agent ${e.agent} at work`;
        break;
      case 'task-started':
        this.task = { task: e.task, total: e.total, title: e.title };
        this.push(`task ${e.task}/${e.total}: ${e.title}`);
        break;
      case 'progress':
        if (e.task !== undefined && e.total !== undefined && this.task?.task !== e.task)
          this.task = { task: e.task, total: e.total, title: this.task?.title ?? '' };
        this.push(e.message);
        break;
      case 'agent-waiting':
        this.push(`asks (${e.checkpoint.kind}): ${e.checkpoint.prompt.split('\n')[0]}`);
        // A question a person must see is never held back by the pace.
        this.writeNow();
        return;
      case 'agent-answered':
        this.push(`checkpoint ${e.checkpoint.id} answered: ${e.answer.answer}`);
        this.writeNow();
        return;
      case 'agent-finished':
        // The agent's last task is over: from here the title says what the worker does (its own commits, verification).
        this.task = undefined;
        this.stage = 'The agent finished';
        break;
      case 'agent-failed':
        this.task = undefined;
        this.stage = 'The agent failed';
        this.push(e.error.split('\n')[0] ?? '');
        break;
      case 'verifying':
        this.stage = `Verifying the ${e.level}`;
        break;
      case 'check-started':
        // Said when it ends, with its verdict.
        return;
      case 'tool':
        // The progress line said it already; the call itself is for traces.
        return;
      case 'check':
        this.push(`${e.result.status} ${e.result.id} (${e.result.type})`);
        break;
    }
    this.schedule();
  }

  /** Write the final state (cancelling any paced write), and on `head` too when the job pushed a new head. */
  async finish(final: FinalCheck, head?: string): Promise<void> {
    this.finished = true;
    if (this.timer !== undefined) this.timers.clear(this.timer);
    await this.writing;
    // The marker first: the App's check_run.completed handler knows a worker's final word by it (worker-outcome.ts).
    const output: CheckOutput = {
      title: final.title,
      summary: clip(final.summary),
      text: `${CONCLUDED_BY_WORKER}\n${clip(final.text ?? '').slice(0, CHECK_OUTPUT_MAX - CONCLUDED_BY_WORKER.length - 1)}`,
    };
    const actions = this.o.owner === 'app' ? (final.actions ?? []) : [];
    if (this.id !== undefined) await this.o.forge.updateCheckRun(this.id, { status: 'completed', conclusion: final.conclusion, output, actions });
    if (head !== undefined && head !== this.sha) {
      await this.o.forge.createCheckRun({
        name: this.o.name,
        head_sha: head,
        status: 'completed',
        conclusion: final.conclusion,
        external_id: this.o.externalId,
        ...(this.o.detailsUrl ? { details_url: this.o.detailsUrl } : {}),
        output,
        ...(actions.length > 0 ? { actions } : {}),
      });
    }
  }

  /** Once the writes made so far are answered (a simulation of many workers steps time after each). */
  settled(): Promise<void> {
    return this.writing;
  }

  get started(): boolean {
    return this.id !== undefined;
  }

  private push(message: string): void {
    const line = message.replace(/\s+/g, ' ').trim();
    if (!line) return;
    this.messages.push(line.length > MESSAGE_MAX ? `${line.slice(0, MESSAGE_MAX - 1)}…` : line);
    if (this.messages.length > MESSAGES_SHOWN) this.messages.shift();
  }

  private schedule(): void {
    if (this.id === undefined || this.finished || this.timer !== undefined) return;
    const wait = Math.max(0, this.lastWrite + this.intervalMs - this.o.now());
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      this.write();
    }, wait);
  }

  /** Write the state now, whatever the pace, in place of any write it scheduled. */
  private writeNow(): void {
    if (this.id === undefined || this.finished) return;
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
    this.write();
  }

  private write(): void {
    if (this.finished) return;
    this.lastWrite = this.o.now();
    this.writes++;
    const id = this.id!;
    const output = this.output();
    // A progress write that fails costs a stale line, never the run: the final write says what matters.
    this.writing = this.writing
      .then(() => this.o.forge.updateCheckRun(id, { output }))
      .catch((e: unknown) => this.o.log.warning(`could not update the check run: ${e instanceof Error ? e.message : String(e)}`));
  }

  private output(): CheckOutput {
    const title = this.task ? `Task ${this.task.task} of ${this.task.total}${this.task.title ? `: ${this.task.title}` : ''}` : this.stage;
    const summary = `**${this.heading}**\n\n${this.stage}${this.task ? ` — task ${this.task.task} of ${this.task.total}` : ''}.`;
    const text = this.messages.length > 0 ? `### Last messages\n\n${this.messages.map((m) => `- ${m.replace(/</g, '&lt;')}`).join('\n')}` : undefined;
    return { title: title.length > 255 ? `${title.slice(0, 254)}…` : title, summary, ...(text ? { text } : {}) };
  }
}

function clip(text: string): string {
  return text.length > CHECK_OUTPUT_MAX ? `${text.slice(0, CHECK_OUTPUT_MAX - 20)}\n\n…(cut)` : text;
}
