import type { Ticker } from '../core/clock.js';
import { formatDuration } from '../core/run/duration.js';
import type { Check } from '../core/spec/model.js';
import { oneLine } from '../core/spec/problem.js';
import type { Answers, Progress } from './ports.js';

/**
 * The heartbeat: when nothing has been printed for a while and something is running, a line
 * says what and for how long, so that a quiet run never looks like a hung one. Locally and on a
 * runner alike (one lifecycle runs a plan in both), it follows an attempt or a phase's
 * verification through its ports, and it hears every line the runtime prints:
 *
 *     still running: 01-02 (claude, 2.2 min): "Running the test suite"
 *     still verifying phase 01: check tests "npm test" (25 s)
 *
 * The first line comes after 10 s of silence, then one every further 10 s while it lasts (its
 * own lines are output too); any other output starts the silence again. Nothing is said of what
 * waits for a person: the question printed last says that. Its lines go out where the runtime's
 * other lines go (the run's reporter, the job's log), through the same filters.
 */

/** Silence this long, with something running, is broken by a line saying what. */
export const HEARTBEAT_QUIET_MS = 10_000;
/** How often the silence is looked at: a line comes at most this much after its time. */
const LOOK_MS = 1_000;
/** An agent's words or a command, cut to this many characters in a line. */
const SHOWN = 100;

/** What is followed: a plan's attempt (its agent, then its checks), or a phase's verification. */
export type Followed = { plan: string; agent: string } | { phase: string };

/** The ports the heartbeat follows an attempt or a verification through. */
interface Watched {
  progress: Progress;
  answers: Answers;
}

interface Running {
  followed: Followed;
  /** The agent at work (with its last task), or the verification (with the check it runs). */
  doing: { kind: 'agent'; task?: string } | { kind: 'verifying'; check?: { name: string; since: number } };
  /** When what it is doing began. */
  since: number;
  /** Questions to a person not yet answered: while one waits, nothing is said of it. */
  asking: number;
}

export class Heartbeat {
  readonly #running = new Set<Running>();
  #heard: number;
  #cancel: (() => void) | undefined;

  constructor(
    private readonly say: (line: string) => void,
    private readonly ticker: Ticker,
    private readonly quietMs = HEARTBEAT_QUIET_MS,
  ) {
    this.#heard = ticker.monotonic();
    this.#cancel = ticker.every(Math.min(LOOK_MS, quietMs), () => this.look());
  }

  /** Something was printed: the silence starts again. */
  heard(): void {
    this.#heard = this.ticker.monotonic();
  }

  /**
   * Follow an attempt (or a phase's verification) from now until `end` is called: the ports
   * returned are `ports` with their progress and answers watched, and are what it runs on.
   */
  follow<P extends Watched>(followed: Followed, ports: P): { ports: P; end(): void } {
    const now = this.ticker.monotonic();
    const running: Running = { followed, doing: 'plan' in followed ? { kind: 'agent' } : { kind: 'verifying' }, since: now, asking: 0 };
    this.#running.add(running);
    const { progress, answers } = ports;
    return {
      ports: {
        ...ports,
        progress: {
          event: (e) => {
            this.note(running, e);
            return progress.event(e);
          },
          ...(progress.record ? { record: (m) => progress.record!(m) } : {}),
          stage: (title, work) => progress.stage(title, work),
        } satisfies Progress,
        answers: {
          given: (checkpoint) => answers.given(checkpoint),
          ask: async (checkpoint, origin) => {
            running.asking++;
            try {
              return await answers.ask(checkpoint, origin);
            } finally {
              running.asking--;
            }
          },
        } satisfies Answers,
      },
      end: () => void this.#running.delete(running),
    };
  }

  /** The run is over: no more lines, and no timer left behind. */
  stop(): void {
    this.#cancel?.();
    this.#cancel = undefined;
    this.#running.clear();
  }

  private note(running: Running, e: Parameters<Progress['event']>[0]): void {
    const now = this.ticker.monotonic();
    switch (e.kind) {
      case 'task-started':
        if (running.doing.kind === 'agent') running.doing.task = e.title;
        return;
      case 'progress':
        if (running.doing.kind === 'agent') running.doing.task = e.message;
        return;
      case 'verifying':
        running.doing = { kind: 'verifying' };
        running.since = now;
        return;
      case 'check-started':
        if (running.doing.kind === 'verifying') running.doing.check = { name: checkName(e.check, e.plan), since: now };
        return;
      case 'check':
        if (running.doing.kind === 'verifying') delete running.doing.check;
        return;
      default:
        return;
    }
  }

  private look(): void {
    const now = this.ticker.monotonic();
    if (now - this.#heard < this.quietMs) return;
    const lines = [...this.#running].filter((r) => r.asking === 0).map((r) => line(r, now));
    if (lines.length === 0) return;
    for (const l of lines) this.say(l);
    this.#heard = now;
  }
}

/** Follow with the heartbeat when there is one; else the ports as they are. */
export function follow<P extends Watched>(heartbeat: Heartbeat | undefined, followed: Followed, ports: P): { ports: P; end(): void } {
  return heartbeat ? heartbeat.follow(followed, ports) : { ports, end: () => undefined };
}

function line(r: Running, now: number): string {
  const f = r.followed;
  const what = 'plan' in f ? f.plan : `phase ${f.phase}`;
  if (r.doing.kind === 'agent') {
    const agent = 'plan' in f ? `${f.agent}, ` : '';
    return `still running: ${what} (${agent}${seconds(now - r.since)})${r.doing.task === undefined ? '' : `: "${shown(r.doing.task)}"`}`;
  }
  const check = r.doing.check;
  return check ? `still verifying ${what}: check ${check.name} (${seconds(now - check.since)})` : `still verifying ${what} (${seconds(now - r.since)})`;
}

/** A check as a line names it: its id (with its plan's at phase level), then its command or its type. */
function checkName(check: Check, plan: string | undefined): string {
  const id = plan === undefined ? check.id : `${plan}/${check.id}`;
  return 'command' in check && typeof check.command === 'string' ? `${id} "${shown(check.command)}"` : `${id} (${check.type})`;
}

function seconds(ms: number): string {
  return formatDuration(ms / 1000);
}

/** On one line, and cut. */
function shown(text: string): string {
  const one = oneLine(text.trim());
  return one.length > SHOWN ? `${one.slice(0, SHOWN - 1)}…` : one;
}
