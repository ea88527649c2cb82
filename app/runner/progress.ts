import type { Checkpoint } from '../engine/core/protocol/messages.js';
import { oneLine } from '../engine/core/spec/problem.js';
import { formatDuration } from '../engine/core/run/duration.js';
import { liveLines } from './live-area.js';

/** What a run tells the person watching it. */
export type RunEvent =
  | { kind: 'plan-started'; plan: string; title: string; attempt: number; resumed: boolean }
  | { kind: 'plan-progress'; plan: string; message: string; task?: number; total?: number }
  | { kind: 'plan-checkpoint'; plan: string; checkpoint: Checkpoint; respond: string }
  | { kind: 'plan-verifying'; plan: string }
  | { kind: 'plan-verified'; plan: string; minutes: number; seconds?: number }
  | { kind: 'plan-failed'; plan: string; reason: string }
  /** Stopped at the model's usage limit: not failed, started again after `until` (runner/usage-pause.ts). */
  | { kind: 'plan-paused'; plan: string; reason: string; until: string }
  | { kind: 'plan-blocked'; plan: string; because: string }
  | { kind: 'phase-verifying'; phase: string }
  | { kind: 'phase-verified'; phase: string }
  | { kind: 'phase-failed'; phase: string; reason: string }
  | { kind: 'research'; phase: string; path: string }
  | { kind: 'info'; text: string }
  /** What runs, said after a silence (engine/lifecycle/heartbeat.ts). */
  | { kind: 'heartbeat'; text: string };

export interface Totals {
  plansVerified: number;
  plansTotal: number;
  phasesVerified: number;
  phasesTotal: number;
}

export interface RunReporter {
  event(event: RunEvent): void;
  totals(totals: Totals): void;
  close(): void;
}

/**
 * Text an agent or its output wrote, over several lines: each line after the first indented,
 * so that none can stand at the start of a line as the run's own (a forged verdict).
 */
function indented(text: string): string {
  return text
    .split('\n')
    .map((line, i) => (i === 0 ? line : `    ${line}`))
    .join('\n');
}

/** What a checkpoint asks of the person, once: the prompt itself names the check ("Visual quality: …"). */
export const ASKS: Record<Checkpoint['kind'], string> = { verification: 'to check', decision: 'to decide', action: 'to act' };

function describe(e: RunEvent): string {
  switch (e.kind) {
    case 'plan-started':
      return `${e.plan} ${e.resumed ? 'resumed' : 'started'}: ${e.title}${e.attempt > 1 ? ` (attempt ${e.attempt})` : ''}`;
    case 'plan-progress':
      // The agent's words: on one line, whatever they hold.
      return `${e.plan} ${e.task !== undefined && e.total !== undefined ? `[${e.task}/${e.total}] ` : ''}${oneLine(e.message)}`;
    case 'plan-checkpoint':
      return `${e.plan} waits for a person ${ASKS[e.checkpoint.kind]}: ${e.checkpoint.prompt.split('\n')[0]}\n    answer with: ${e.respond}`;
    case 'plan-verifying':
      return `${e.plan} verifying`;
    case 'plan-verified':
      return `${e.plan} verified and merged (${formatDuration(e.seconds ?? e.minutes * 60)})`;
    case 'plan-failed':
      return `${e.plan} FAILED: ${indented(e.reason)}`;
    case 'plan-paused':
      return `${e.plan} paused at the model's usage limit until ${e.until}: ${indented(e.reason)}`;
    case 'plan-blocked':
      return `${e.plan} blocked: ${e.because}`;
    case 'phase-verifying':
      return `phase ${e.phase} verifying on the merged work`;
    case 'phase-verified':
      return `phase ${e.phase} verified`;
    case 'phase-failed':
      return `phase ${e.phase} FAILED: ${indented(e.reason)}`;
    case 'research':
      return `phase ${e.phase} researched ahead: ${e.path}`;
    case 'info':
    case 'heartbeat':
      return e.text;
  }
}

/** One timestamped line per event: logs, CI, pipes. */
export class PlainReporter implements RunReporter {
  constructor(
    private readonly write: (text: string) => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  event(e: RunEvent): void {
    if (e.kind === 'plan-progress') return void this.write(`${this.stamp()} ${describe(e)}\n`);
    this.write(`${this.stamp()} ${describe(e)}\n`);
  }

  totals(): void {}

  close(): void {}

  private stamp(): string {
    return this.now().toISOString().slice(11, 19);
  }
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * A live view for a terminal: finished events scroll up as lines, and below them one
 * line per running plan and a bar for the spec, redrawn in place (runner/live-area.ts).
 */
export class TtyReporter implements RunReporter {
  private readonly running = new Map<string, { title: string; detail: string; since: number; waiting: boolean }>();
  private drawn = 0;
  private frame = 0;
  private holds = 0;
  /** A question's input line is open: the next event starts on a line of its own. */
  private midLine = false;
  private current: Totals = { plansVerified: 0, plansTotal: 0, phasesVerified: 0, phasesTotal: 0 };
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly write: (text: string) => void,
    private readonly columns: () => number = () => process.stdout.columns ?? 100,
    private readonly rows: () => number = () => process.stdout.rows ?? 24,
  ) {
    this.timer = setInterval(() => this.draw(), 120);
    this.timer.unref();
  }

  /**
   * Stop drawing until the returned function is called: a question typed at the terminal
   * sits below the area, and a redraw (which moves the cursor up over what it drew last)
   * would erase the question instead of the area.
   */
  hold(): () => void {
    this.clear();
    this.holds++;
    this.midLine = true;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.midLine = false;
      this.draw();
    };
  }

  event(e: RunEvent): void {
    switch (e.kind) {
      case 'plan-started':
        this.running.set(e.plan, { title: e.title, detail: e.resumed ? 'resuming' : 'starting', since: Date.now(), waiting: false });
        break;
      case 'plan-progress': {
        const r = this.running.get(e.plan);
        if (r) r.detail = `${e.task !== undefined && e.total !== undefined ? `step ${e.task}/${e.total} ` : ''}${e.message}`;
        this.draw();
        return;
      }
      case 'plan-checkpoint': {
        const r = this.running.get(e.plan);
        if (r) {
          r.detail = `waiting for a person: ${e.checkpoint.prompt.split('\n')[0]}`;
          r.waiting = true;
        }
        break;
      }
      case 'plan-verifying': {
        const r = this.running.get(e.plan);
        if (r) {
          r.detail = 'verifying';
          r.waiting = false;
        }
        this.draw();
        return;
      }
      case 'plan-verified':
      case 'plan-failed':
      case 'plan-paused':
        this.running.delete(e.plan);
        break;
      case 'heartbeat':
        // Not over a question being typed: the question is what the person looks at then.
        if (this.holds > 0) return;
        break;
      default:
        break;
    }
    this.clear();
    this.write(`${this.midLine ? '\n' : ''}${describe(e)}\n`);
    this.midLine = false;
    this.draw();
  }

  totals(totals: Totals): void {
    this.current = totals;
    this.draw();
  }

  close(): void {
    clearInterval(this.timer);
    this.clear();
  }

  private clear(): void {
    if (this.drawn > 0) this.write(`\x1b[${this.drawn}A\x1b[0J`);
    this.drawn = 0;
  }

  private draw(): void {
    if (this.holds > 0) return;
    this.clear();
    this.frame = (this.frame + 1) % FRAMES.length;
    const now = Date.now();
    const lines = liveLines({
      plans: [...this.running].map(([plan, r]) => ({
        plan,
        title: r.title,
        detail: r.detail,
        seconds: Math.round((now - r.since) / 1000),
        waiting: r.waiting,
      })),
      totals: this.current,
      columns: this.columns(),
      rows: this.rows(),
      frame: FRAMES[this.frame]!,
    });
    if (lines.length > 0) this.write(`${lines.join('\n')}\n`);
    this.drawn = lines.length;
  }
}

/** Collects events: for tests, and for the status a run prints at its end. */
export class RecordingReporter implements RunReporter {
  readonly events: RunEvent[] = [];
  last: Totals | undefined;

  event(e: RunEvent): void {
    this.events.push(e);
  }

  totals(t: Totals): void {
    this.last = t;
  }

  close(): void {}
}
