import type { CommitMessage } from '../core/agents/commit-message.js';
import type { SpikeStage } from '../knowledge/spikes/spike-instructions.js';
import type { AttemptPorts, Workspace } from './ports.js';

/**
 * What a spike needs from the runtime it runs in (this machine, or a worker on a runner): the
 * checkout of its branch with the few git operations that keep the agent's writes inside the
 * spike's folder, and every file it commits made safe. Both runtimes use the same
 * implementation (app/agents/spike-checkout.ts); the port keeps the lifecycle pure.
 */

export interface SpikeCommit {
  sha: string;
  /** Secrets taken out of the committed files. */
  redactions: { path: string; rule: string; line: number }[];
  /** Files left out of the commit (and removed), with the reason: too large, or a binary holding a secret. */
  dropped: { path: string; why: string }[];
}

export interface SpikeWorkspace extends Workspace {
  head(): Promise<string>;
  /** A file of the checkout (repository-relative), or undefined when there is none. */
  read(path: string): Promise<string | undefined>;
  write(path: string, text: string): Promise<void>;
  /** The committed files under a folder, repository-relative, sorted. */
  files(folder: string): Promise<string[]>;
  /**
   * Paths that differ from `since`: changed by commits after it, or in the checkout (changed,
   * added or removed; untracked files that are not ignored count).
   */
  changedSince(since: string): Promise<string[]>;
  /** Put paths back as they were at `since`: restored, or removed where `since` did not have them. */
  restore(since: string, paths: readonly string[]): Promise<void>;
  /**
   * Everything since `since` as one commit on top of it (commits made meanwhile folded in),
   * each file made safe first; only what is under `folder` when one is given. Undefined when
   * nothing differs from `since`.
   */
  commit(since: string, message: CommitMessage, folder?: string): Promise<SpikeCommit | undefined>;
  /** Back to `since`, committed or not; the paths that were thrown away. */
  reset(since: string): Promise<string[]>;
  /** A stage begins from `since`: recorded, so that a stage cut off by a crash is found and undone on the next start. */
  begin(stage: SpikeStage, since: string): Promise<void>;
  end(): Promise<void>;
  /** The stage that began and never ended, if any. */
  interrupted(): Promise<{ stage: string; since: string } | undefined>;
}

export type SpikePorts = Pick<AttemptPorts, 'agent' | 'progress' | 'clock'> & { workspace: SpikeWorkspace };
