import { lstat, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { CommitMessage } from '../engine/core/agents/commit-message.js';
import type { SpikeStage } from '../engine/knowledge/spikes/spike-instructions.js';
import type { SpikeCommit, SpikeWorkspace } from '../engine/lifecycle/spike-ports.js';
import { makeSafe, type SafetyOptions } from '../machine/content-safety.js';
import { isMissing, readTextIfExists, removeIfExists } from '../machine/files.js';
import { Git, GitError, type CommitInfo } from '../machine/git.js';
import { readImports } from '../machine/source-imports.js';

/** A file larger than this is no reviewable result: it is left out of the spike's commit, and said so. */
export const MAX_SPIKE_FILE_BYTES = 2 * 1024 * 1024;

export interface SpikeCheckoutOptions {
  /** The stage journal: a file outside the checkout (the spike's log directory). */
  journal: string;
  /** What content safety takes out of every file before it is committed. */
  safety: SafetyOptions;
  /** Extra environment for git (an identity where none is configured). */
  env?: Record<string, string>;
}

function lines(out: string): string[] {
  return out.split('\0').filter((p) => p !== '');
}

/**
 * A checkout of a spike's branch: a worktree of this machine, or the runner's checkout. It
 * keeps the agent to the spike's folder with git alone (what differs from a stage's start is
 * put back, or folded into one commit), and puts every file it commits through the
 * content-safety pass (app/machine/content-safety.ts): secrets become [REDACTED], this
 * machine's paths become ${PROJECT_ROOT}-relative.
 */
export class SpikeCheckout implements SpikeWorkspace {
  readonly git: Git;

  constructor(
    readonly root: string,
    private readonly options: SpikeCheckoutOptions,
  ) {
    this.git = new Git(root, options.env ? { env: options.env } : {});
  }

  async head(): Promise<string> {
    return this.git.head();
  }

  read(path: string): Promise<string | undefined> {
    return readTextIfExists(join(this.root, path));
  }

  async write(path: string, text: string): Promise<void> {
    const full = join(this.root, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, text);
  }

  async files(folder: string): Promise<string[]> {
    const listed = lines(await this.git.run(['ls-files', '--cached', '--others', '--exclude-standard', '-z', '--', folder]));
    const present: string[] = [];
    for (const path of new Set(listed)) if (await this.exists(path)) present.push(path);
    return present.sort();
  }

  async changedSince(since: string): Promise<string[]> {
    const changed = lines(await this.git.run(['diff', '--name-only', '--no-renames', '-z', since, '--']));
    const untracked = lines(await this.git.run(['ls-files', '--others', '--exclude-standard', '-z']));
    return [...new Set([...changed, ...untracked])].sort();
  }

  async restore(since: string, paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    const had = new Set(lines(await this.git.run(['ls-tree', '-r', '-z', '--name-only', since, '--', ...paths])));
    const back = paths.filter((p) => had.has(p));
    const gone = paths.filter((p) => !had.has(p));
    if (back.length > 0) await this.git.run(['checkout', since, '--', ...back]);
    for (const path of gone) await rm(join(this.root, path), { force: true, recursive: true });
    if (gone.length > 0) await this.git.run(['rm', '--cached', '--quiet', '--ignore-unmatch', '-r', '--', ...gone]);
  }

  async commit(since: string, message: CommitMessage, folder?: string): Promise<SpikeCommit | undefined> {
    const redactions: SpikeCommit['redactions'] = [];
    const dropped: SpikeCommit['dropped'] = [];
    for (const path of await this.changedSince(since)) {
      const full = join(this.root, path);
      const info = await lstat(full).catch((e: unknown) => {
        if (isMissing(e)) return undefined;
        throw e;
      });
      if (!info?.isFile()) continue;
      if (info.size > MAX_SPIKE_FILE_BYTES) {
        await rm(full, { force: true });
        dropped.push({
          path,
          why: `${Math.round(info.size / 1024)} KiB is more than a spike's file may hold (${MAX_SPIKE_FILE_BYTES / 1024 / 1024} MiB); keep a summary or a sample in results/`,
        });
        continue;
      }
      const bytes = await readFile(full);
      if (bytes.includes(0)) {
        // A binary file cannot be redacted without breaking it: one that holds a secret is not committed at all.
        const safe = await makeSafe(bytes.toString('latin1'), this.options.safety);
        if (safe.redactions.length > 0) {
          await rm(full, { force: true });
          dropped.push({ path, why: `a binary file holding what looks like a secret (${[...new Set(safe.redactions.map((r) => r.rule))].join(', ')})` });
        }
        continue;
      }
      const text = bytes.toString('utf8');
      const safe = await makeSafe(text, this.options.safety);
      if (safe.text !== text) await writeFile(full, safe.text);
      for (const r of safe.redactions) redactions.push({ path, rule: r.rule, line: r.line });
    }
    const subject = (await makeSafe(message.subject, this.options.safety)).text;
    const body = message.body === undefined ? undefined : (await makeSafe(message.body, this.options.safety)).text;
    await this.git.run(['reset', '--soft', '--quiet', since]);
    if (folder === undefined) await this.git.addAll();
    else await this.git.run(['add', '-A', '--', folder]);
    if ((await this.git.stagedFiles()).length === 0) return undefined;
    const sha = await this.git.commit({ subject, ...(body === undefined ? {} : { body }), trailers: message.trailers }, { noVerify: true });
    return { sha, redactions, dropped };
  }

  async reset(since: string): Promise<string[]> {
    const thrown = await this.changedSince(since);
    await this.git.resetHard(since);
    await this.git.clean();
    return thrown;
  }

  async begin(stage: SpikeStage, since: string): Promise<void> {
    const path = this.options.journal;
    await mkdir(dirname(path), { recursive: true });
    await writeFile(`${path}.tmp`, `${JSON.stringify({ stage, since })}\n`);
    await rename(`${path}.tmp`, path);
  }

  end(): Promise<void> {
    return removeIfExists(this.options.journal);
  }

  async interrupted(): Promise<{ stage: string; since: string } | undefined> {
    const text = await readTextIfExists(this.options.journal);
    if (text === undefined) return undefined;
    let entry: { stage?: unknown; since?: unknown };
    try {
      entry = JSON.parse(text) as typeof entry;
    } catch {
      return undefined;
    }
    if (typeof entry.stage !== 'string' || typeof entry.since !== 'string') return undefined;
    // A branch that moved on elsewhere (another checkout, a person's push) is not this stage's to undo.
    const ours = await this.git.isAncestor(entry.since).catch((e: unknown) => {
      if (e instanceof GitError) return false;
      throw e;
    });
    return ours ? { stage: entry.stage, since: entry.since } : undefined;
  }

  commits(base: string): Promise<CommitInfo[]> {
    return this.git.log({ base });
  }

  async changedFiles(base: string): Promise<string[]> {
    return lines(await this.git.run(['diff', '--name-only', '--no-renames', '-z', `${base}...HEAD`]));
  }

  diffSince(from: string): Promise<string | undefined> {
    return this.git.diffSince(from);
  }

  async headDate(): Promise<Date> {
    return new Date((await this.git.run(['log', '-1', '--format=%cI', 'HEAD'])).trim());
  }

  imports(files: readonly string[]): Promise<string[]> {
    return readImports(this.root, files);
  }

  private async exists(path: string): Promise<boolean> {
    try {
      await lstat(join(this.root, path));
      return true;
    } catch (e) {
      if (isMissing(e)) return false;
      throw e;
    }
  }
}
