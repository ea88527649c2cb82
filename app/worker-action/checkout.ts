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
    /**
     * The token git pushes with. The checkout keeps no credentials (persist-credentials: false),
     * so the agent and the plan's commands, which run in it, never hold a write token: it is
     * handed to the one `git push` process, in that process's environment only.
     */
    private readonly pushToken?: string,
  ) {
    this.git = new Git(root);
  }

  /** The commit checked out. */
  async head(): Promise<string> {
    return (await this.git.run(['rev-parse', 'HEAD'])).trim();
  }

  /** What is changed and not committed (porcelain lines); empty when the tree is clean. */
  async uncommitted(): Promise<string[]> {
    return (await this.git.status()).map((e) => `${e.code} ${e.path}`);
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

  /**
   * Push what is committed to the plan branch; never forced: a branch that moved elsewhere is a
   * conflict to see. `replacing` is the one exception, a wip commit this run folded away: the
   * push replaces exactly that commit (--force-with-lease), and fails if anything else moved
   * the branch meanwhile.
   */
  async push(branch: string, replacing?: string): Promise<void> {
    const lease = replacing ? [`--force-with-lease=refs/heads/${branch}:${replacing}`] : [];
    await this.pusher().run(['push', '--quiet', ...lease, this.remote, `HEAD:refs/heads/${branch}`]);
  }

  private pusher(): Git {
    if (!this.pushToken) return this.git;
    // GIT_CONFIG_* reach this process only, unlike `git config`, which the agent could read back.
    const basic = Buffer.from(`x-access-token:${this.pushToken}`).toString('base64');
    return new Git(this.root, {
      env: { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.https://github.com/.extraheader', GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${basic}` },
    });
  }
}
