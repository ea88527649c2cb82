import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Deviation } from '../engine/core/run/deviations.js';
import { lstatIfExists } from '../machine/files.js';
import { Git } from '../machine/git.js';
import { Mutex } from './mutex.js';

/** A worktree's uncommitted state: each changed path with its size and mtime, or its .git gone. */
interface Snapshot {
  /** When it was taken, in the run's count of agent starts and ends. */
  at: number;
  gitGone: boolean;
  paths: Map<string, { code: string; stamp: string }>;
}

interface Watched {
  worktree: string;
  /** Only whether its .git is there is watched: the integration worktree, which harness itself writes in. */
  gitOnly: boolean;
  /** Its own attempt is under way (its agent, then its checks): nothing in it can be told from that attempt's work. */
  running: boolean;
  /** What it held when its own attempt last ended (or before its agent first ran). */
  baseline?: Snapshot;
  /** Idle with no other agent running: its baseline is taken when another agent starts (nothing can change it before). */
  deferred?: boolean;
}

/** Another plan's agent wrote in a worktree: whose, where, and what was put back. */
export interface ForeignWrite {
  /** The plan whose worktree it is. */
  victim: string;
  /** The plans whose agents ran while it appeared; one when harness can tell. */
  by: string[];
  files: string[];
  gitRemoved: boolean;
}

/**
 * Writes a plan's agent makes in another plan's worktree (docs/design.md, "Writes in another
 * plan's worktree"). No process on this machine is traced: what is sound without that is time.
 * A worktree whose own plan is idle (its agent not started, waiting for a person, or its
 * attempt over) cannot change by that plan's doing, so every change that appears in it while
 * idle is another agent's, and only the agents that ran in that interval can have made it.
 * Each agent's start, stop and wait is a moment of the run's count; at each stop, end of an
 * attempt or answer, every idle worktree is compared with what it held when it became idle:
 * what changed is put back (tracked files checked out again, new files removed) and recorded
 * as the deviation of the plan whose agent ran then. A worktree whose own plan is busy at the
 * same time is not judged this way (its changes could be its own); that needs the OS to trace
 * writes.
 */
export class WorktreeWatch {
  readonly #watched = new Map<string, Watched>();
  /** Every agent run: its plan and the moments it started and (once it has) ended. */
  readonly #runs: { plan: string; from: number; to?: number }[] = [];
  readonly #found = new Map<string, ForeignWrite[]>();
  readonly #lock = new Mutex();
  #moment = 0;

  /** A plan's worktree, as it is before its agent runs. */
  watch(plan: string, worktree: string, options: { gitOnly?: boolean } = {}): Promise<void> {
    const gitOnly = options.gitOnly === true;
    return this.#lock.run(async () => {
      const w: Watched = { worktree, gitOnly, running: false };
      this.#watched.set(plan, w);
      await this.#idle(plan, w, this.#moment);
    });
  }

  /**
   * The worktree is idle from `now`: its baseline is taken at once when another agent runs, else
   * when the next one starts. With one agent at a time (one slot) a plan's worktree is never
   * read for nothing: a run costs no `git status` a plan.
   */
  async #idle(plan: string, w: Watched, now: number): Promise<void> {
    w.running = false;
    delete w.baseline;
    w.deferred = false;
    if (w.gitOnly || this.#runs.some((r) => r.plan !== plan && r.to === undefined)) w.baseline = await snapshot(w.worktree, now, w.gitOnly);
    else w.deferred = true;
  }

  /** The plan is over: its worktree goes to another plan or away. */
  forget(plan: string): void {
    this.#watched.delete(plan);
  }

  agentStarted(plan: string): Promise<void> {
    return this.#lock.run(async () => {
      const w = this.#watched.get(plan);
      if (w) {
        w.running = true;
        delete w.baseline;
        w.deferred = false;
      }
      // The idle worktrees whose baseline waited for an agent to start: nothing ran since they became idle.
      for (const [other, idle] of this.#watched) {
        if (other === plan || !idle.deferred) continue;
        idle.baseline = await snapshot(idle.worktree, this.#moment, idle.gitOnly);
        idle.deferred = false;
      }
      this.#runs.push({ plan, from: ++this.#moment });
    });
  }

  /** The plan's agent stopped: the other idle worktrees are looked at (its checks still run in its own). */
  agentEnded(plan: string): Promise<ForeignWrite[]> {
    return this.#lock.run(() => this.#look(plan, ++this.#moment));
  }

  /** The plan's attempt (agent and checks) ended: the other idle worktrees are looked at, and its own state kept. */
  attemptEnded(plan: string): Promise<ForeignWrite[]> {
    return this.#lock.run(async () => {
      const now = ++this.#moment;
      const run = this.#runs.findLast((r) => r.plan === plan && r.to === undefined);
      if (run) run.to = now;
      const found = await this.#look(plan, now);
      const own = this.#watched.get(plan);
      if (own) await this.#idle(plan, own, now);
      return found;
    });
  }

  async #look(plan: string, now: number): Promise<ForeignWrite[]> {
    const found: ForeignWrite[] = [];
    for (const [victim, w] of this.#watched) {
      if (victim === plan || w.running || !w.baseline) continue;
      const write = await this.#judge(victim, w, now);
      if (write) found.push(write);
    }
    return found;
  }

  /** What changed in an idle worktree since its baseline: put back, and recorded against the agents that ran meanwhile. */
  async #judge(victim: string, w: Watched, now: number): Promise<ForeignWrite | undefined> {
    const then = w.baseline!;
    const current = await snapshot(w.worktree, now, w.gitOnly);
    const files = changedSince(then, current);
    if (files.length === 0 && current.gitGone === then.gitGone) return undefined;
    const by = [...new Set(this.#runs.filter((r) => r.plan !== victim && r.from <= now && (r.to === undefined || r.to > then.at)).map((r) => r.plan))].sort();
    const write: ForeignWrite = { victim, by, files, gitRemoved: current.gitGone && !then.gitGone };
    if (!current.gitGone) await putBack(w.worktree, then, current, files);
    w.baseline = current.gitGone ? current : await snapshot(w.worktree, now, w.gitOnly);
    for (const culprit of by) this.#found.set(culprit, [...(this.#found.get(culprit) ?? []), write]);
    return write;
  }

  /**
   * The plan's agent stopped at a question for a person: until the answer, nothing of its own
   * plan runs in its worktree (a command or script agent has not started its step; claude
   * waits in the tool call that asked).
   */
  paused(plan: string): Promise<void> {
    return this.#lock.run(async () => {
      const w = this.#watched.get(plan);
      const now = ++this.#moment;
      // While it waits its agent does nothing: it is no suspect for writes elsewhere.
      const run = this.#runs.findLast((r) => r.plan === plan && r.to === undefined);
      if (run) run.to = now;
      if (!w) return;
      await this.#idle(plan, w, now);
    });
  }

  /** The answer came: what appeared in its worktree while it waited is another agent's, put back before its agent goes on. */
  resumed(plan: string): Promise<ForeignWrite[]> {
    return this.#lock.run(async () => {
      const now = ++this.#moment;
      const w = this.#watched.get(plan);
      if (!w || w.running || !w.baseline) {
        if (w) {
          w.running = true;
          w.deferred = false;
        }
        this.#runs.push({ plan, from: now });
        return [];
      }
      const write = await this.#judge(plan, w, now);
      this.#runs.push({ plan, from: now });
      w.running = true;
      delete w.baseline;
      return write ? [write] : [];
    });
  }

  /** The plan whose agent removed the .git of the worktree at `worktree`, when harness saw it. */
  removedGitOf(worktree: string): string[] | undefined {
    for (const writes of this.#found.values()) for (const w of writes) if (w.gitRemoved && this.#watched.get(w.victim)?.worktree === worktree) return w.by;
    return undefined;
  }

  /** What the plan's agent wrote in other plans' worktrees, as deviations of its own. */
  deviationsOf(plan: string): Deviation[] {
    return (this.#found.get(plan) ?? []).map((w) => ({
      description: `${w.by.length === 1 ? 'Its agent' : `Its agent or that of ${w.by.filter((p) => p !== plan).join(', ')}`} ${w.gitRemoved ? 'removed the .git of' : 'wrote in'} the worktree of plan ${w.victim}${w.files.length > 0 ? `: ${w.files.slice(0, 10).join(', ')}${w.files.length > 10 ? ', …' : ''}` : ''}.`,
      reason: `Another plan's worktree; ${w.gitRemoved ? 'that plan cannot go on there' : `put back there, so that plan ${w.victim} is judged on its own work`}.`,
      impact: 'high',
      files: w.files.map((f) => `../${w.victim}/${f}`),
    }));
  }
}

function changedSince(then: Snapshot, now: Snapshot): string[] {
  const files: string[] = [];
  for (const [path, entry] of now.paths) if (then.paths.get(path)?.stamp !== entry.stamp) files.push(path);
  // A file that was changed before and is back as committed: changed too.
  for (const path of then.paths.keys()) if (!now.paths.has(path)) files.push(path);
  return files.sort();
}

/** The changed files put back as they were: new ones removed, tracked ones checked out from HEAD. Changed-before ones stay (their earlier content is not kept). */
async function putBack(worktree: string, then: Snapshot, now: Snapshot, files: string[]): Promise<void> {
  const git = new Git(worktree);
  const tracked: string[] = [];
  for (const f of files) {
    if (then.paths.has(f)) continue;
    const entry = now.paths.get(f);
    if (entry?.code === '??') await rm(join(worktree, f), { recursive: true, force: true });
    else tracked.push(f);
  }
  if (tracked.length > 0) await git.run(['checkout', '--quiet', 'HEAD', '--', ...tracked]);
}

async function snapshot(worktree: string, at: number, gitOnly = false): Promise<Snapshot> {
  if (!existsSync(join(worktree, '.git'))) return { at, gitGone: true, paths: new Map() };
  const paths = new Map<string, { code: string; stamp: string }>();
  if (gitOnly) return { at, gitGone: false, paths };
  // Read only: a status must not take the index's lock while another git works in the worktree.
  for (const entry of await new Git(worktree, { env: { GIT_OPTIONAL_LOCKS: '0' } }).status()) {
    const stat = await lstatIfExists(join(worktree, entry.path));
    paths.set(entry.path, { code: entry.code, stamp: `${entry.code} ${stat ? `${stat.size} ${stat.mtimeMs}` : 'gone'}` });
  }
  return { at, gitGone: false, paths };
}
