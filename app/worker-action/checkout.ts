import type { Workspace } from '../engine/lifecycle/ports.js';
import { Git, type CommitInfo } from '../workers/git.js';

/** Who commits when the workflow configured nobody: the identity GitHub shows as github-actions. */
export const BOT_NAME = 'github-actions[bot]';
export const BOT_EMAIL = '41898282+github-actions[bot]@users.noreply.github.com';

/**
 * The runner's checkout of the plan branch (actions/checkout put it there, with credentials
 * for `origin`): what the worker does with Git besides what the agent does, and the plan's
 * workspace for its attempt.
 */
export class Checkout implements Workspace {
  readonly git: Git;

  constructor(
    readonly root: string,
    private readonly remote = 'origin',
  ) {
    this.git = new Git(root);
  }

  /** Commit as github-actions unless the workflow (or the runner) set an identity. */
  async ensureIdentity(): Promise<{ name: string; email: string }> {
    // GIT_AUTHOR_* and GIT_COMMITTER_* in the environment still win over this, as git has it.
    const name = await this.git.config('user.name');
    const email = await this.git.config('user.email');
    if (!name) await this.git.run(['config', 'user.name', BOT_NAME]);
    if (!email) await this.git.run(['config', 'user.email', BOT_EMAIL]);
    return { name: name ?? BOT_NAME, email: email ?? BOT_EMAIL };
  }

  /**
   * Where the plan's own commits start: the merge base with the base branch. A shallow checkout
   * (actions/checkout's default depth 1) has no history to find it in, so it is deepened first.
   */
  async planBase(base: string): Promise<string> {
    const shallow = (await this.git.run(['rev-parse', '--is-shallow-repository'])).trim() === 'true';
    const fetch = ['fetch', '--quiet', '--no-tags', ...(shallow ? ['--unshallow'] : []), this.remote, `+refs/heads/${base}:refs/remotes/${this.remote}/${base}`];
    await this.git.run(fetch);
    return (await this.git.run(['merge-base', 'HEAD', `refs/remotes/${this.remote}/${base}`])).trim();
  }

  /** The plan's commits since `base`, oldest first. */
  commits(base: string): Promise<CommitInfo[]> {
    return this.git.log({ base });
  }

  /** Files that differ between `base` and HEAD. */
  async changedFiles(base: string): Promise<string[]> {
    return (await this.git.run(['diff', '--name-only', '--no-renames', `${base}...HEAD`])).split('\n').filter(Boolean);
  }

  /** When HEAD was committed: answers given before it are about other work. */
  async headDate(): Promise<Date> {
    return new Date((await this.git.run(['log', '-1', '--format=%cI', 'HEAD'])).trim());
  }

  /** Push what is committed to the plan branch; never forced: a branch that moved elsewhere is a conflict to see. */
  async push(branch: string): Promise<void> {
    await this.git.run(['push', '--quiet', this.remote, `HEAD:refs/heads/${branch}`]);
  }
}
