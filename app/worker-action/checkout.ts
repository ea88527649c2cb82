import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Workspace } from '../engine/lifecycle/ports.js';
import { isDirectory } from '../machine/files.js';
import { readImports } from '../machine/source-imports.js';
import { Git, GitError, type CommitInfo } from '../machine/git.js';

/** Who commits when the workflow configured nobody: the identity GitHub shows as github-actions. */
export const BOT_NAME = 'github-actions[bot]';
export const BOT_EMAIL = '41898282+github-actions[bot]@users.noreply.github.com';

/** How the worker's own git processes reach the remote. */
export interface RemoteAccess {
  /** The remote's name in the checkout; `origin` by default. */
  remote?: string;
  /**
   * The token every git process that talks to the remote gets (fetch, ls-remote, push). The
   * checkout keeps no credentials (persist-credentials: false), so the agent and the plan's
   * commands, which run in it, never hold a token: it is handed to those processes alone, in
   * their environment only. Private repositories need it for reading too.
   */
  token?: string;
  /**
   * The server the token is for ($GITHUB_SERVER_URL: https://github.com, a GHES host, or a
   * ghe.com tenant); the token is sent to URLs under it and to no other host.
   */
  serverUrl?: string;
}

/** GitHub.com, when the runner names no server. */
export const DEFAULT_SERVER_URL = 'https://github.com';

/**
 * The environment that gives one git process the token for the server, as actions/checkout's
 * `http.<server>/.extraheader` does, but in that process's environment: GIT_CONFIG_* is never
 * written to a config file the agent could read back.
 */
export function remoteAuthEnv(token: string, serverUrl = DEFAULT_SERVER_URL): Record<string, string> {
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  // git matches http.<url>.* by prefix on whole path segments: the server with a trailing slash.
  const server = `${serverUrl.replace(/\/+$/, '')}/`;
  return {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: `http.${server}.extraheader`,
    GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${basic}`,
    GIT_TERMINAL_PROMPT: '0',
  };
}

/**
 * The runner's checkout of the plan branch (actions/checkout put it there, without credentials):
 * what the worker does with Git besides what the agent does, and the plan's workspace for its
 * attempt.
 */
export class Checkout implements Workspace {
  readonly git: Git;
  /** Learnt with the first HEAD (one process for both): whether planBase must deepen the checkout. */
  private shallow: boolean | undefined;
  private readonly remote: string;

  constructor(
    readonly root: string,
    private readonly access: RemoteAccess = {},
  ) {
    this.git = new Git(root);
    this.remote = access.remote ?? 'origin';
  }

  /** The commit checked out. */
  async head(): Promise<string> {
    return (await this.git.run(['rev-parse', 'HEAD'])).trim();
  }

  /** What is changed and not committed (porcelain lines); empty when the tree is clean. */
  async uncommitted(): Promise<string[]> {
    return (await this.git.status()).map((e) => `${e.code} ${e.path}`);
  }

  /**
   * The commit checked out when the job starts, and whether the checkout is shallow, asked of
   * one git process: start-up time on a runner is mostly processes started.
   */
  async startingHead(): Promise<string> {
    const [head, shallow] = (await this.git.run(['rev-parse', 'HEAD', '--is-shallow-repository'])).trim().split('\n');
    this.shallow = shallow?.trim() === 'true';
    return head!.trim();
  }

  /** Commit as github-actions unless the workflow (or the runner) set an identity. */
  async ensureIdentity(): Promise<{ name: string; email: string }> {
    // GIT_AUTHOR_* and GIT_COMMITTER_* in the environment still win over this, as git has it.
    const set = await this.identity();
    const name = set.get('user.name');
    const email = set.get('user.email');
    const missing = [...(name ? [] : [['name', BOT_NAME]]), ...(email ? [] : [['email', BOT_EMAIL]])];
    if (missing.length > 0) await this.setIdentity(missing as [string, string][]);
    return { name: name ?? BOT_NAME, email: email ?? BOT_EMAIL };
  }

  /** user.name and user.email as every level of config has them, in one process (exit 1: neither is set). */
  private async identity(): Promise<Map<string, string>> {
    const out = await this.git.run(['config', '--get-regexp', '^user\\.(name|email)$']).catch((e: unknown) => {
      if (e instanceof GitError && e.code === 1) return '';
      throw e;
    });
    const found = new Map<string, string>();
    // Later lines are the more specific levels (global, then local), which git lets win.
    for (const line of out.split('\n').filter(Boolean)) {
      const space = line.indexOf(' ');
      if (space > 0) found.set(line.slice(0, space).toLowerCase(), line.slice(space + 1));
    }
    return found;
  }

  /**
   * The missing keys in the checkout's own config: appended as a [user] section, which git reads
   * like any other, when .git is a directory (actions/checkout makes one); else through git config.
   */
  private async setIdentity(missing: [string, string][]): Promise<void> {
    const dotGit = join(this.root, '.git');
    if (await isDirectory(dotGit)) {
      await appendFile(join(dotGit, 'config'), `[user]\n${missing.map(([k, v]) => `\t${k} = ${JSON.stringify(v)}\n`).join('')}`);
      return;
    }
    for (const [key, value] of missing) await this.git.run(['config', `user.${key}`, value]);
  }

  /**
   * Where the plan's own commits start: the merge base with the base branch. A shallow checkout
   * (actions/checkout's default depth 1) has no history to find it in, so it is deepened first.
   */
  async planBase(base: string): Promise<string> {
    const shallow = this.shallow ?? (await this.git.run(['rev-parse', '--is-shallow-repository'])).trim() === 'true';
    const fetch = [
      'fetch',
      '--quiet',
      '--no-tags',
      ...(shallow ? ['--unshallow'] : []),
      this.remote,
      `+refs/heads/${base}:refs/remotes/${this.remote}/${base}`,
    ];
    await this.remoteGit().run(fetch);
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

  diffSince(from: string): Promise<string | undefined> {
    return this.git.diffSince(from);
  }

  /** When HEAD was committed: answers given before it are about other work. */
  async headDate(): Promise<Date> {
    return new Date((await this.git.run(['log', '-1', '--format=%cI', 'HEAD'])).trim());
  }

  imports(files: readonly string[]): Promise<string[]> {
    return readImports(this.root, files);
  }

  /**
   * Push what is committed to the plan branch; never forced: a branch that moved elsewhere is a
   * conflict to see. `replacing` is the one exception, a wip commit this run folded away: the
   * push replaces exactly that commit (--force-with-lease), and fails if anything else moved
   * the branch meanwhile.
   */
  async push(branch: string, replacing?: string): Promise<void> {
    const lease = replacing ? [`--force-with-lease=refs/heads/${branch}:${replacing}`] : [];
    await this.remoteGit().run(['push', '--quiet', ...lease, this.remote, `HEAD:refs/heads/${branch}`]);
  }

  /** Delete a branch of the remote (a planning job's claim, once its documents are on the PR's branch); one already gone is fine. */
  async deleteRemote(branch: string): Promise<void> {
    // Already gone is what was wanted. Any other refusal leaves a claim branch behind, which the
    // App releases after its grace period: not worth failing a job whose work is pushed.
    await this.remoteGit()
      .run(['push', '--quiet', this.remote, `:refs/heads/${branch}`])
      .catch((e: unknown) => {
        if (e instanceof GitError) return;
        throw e;
      });
  }

  /** The commit a branch of the remote is at, or undefined when the remote has no such branch. */
  async remoteHead(branch: string): Promise<string | undefined> {
    const out = await this.remoteGit().run(['ls-remote', this.remote, `refs/heads/${branch}`]);
    return out.split('\t')[0]?.trim() || undefined;
  }

  /** Git for the processes that talk to the remote: with the token in their environment alone. */
  private remoteGit(): Git {
    if (!this.access.token) return this.git;
    return new Git(this.root, { env: remoteAuthEnv(this.access.token, this.access.serverUrl) });
  }
}
