import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { SurfacedEntry } from '../engine/knowledge/documents/loop.js';
import { isMissing } from '../machine/files.js';
import { Git, GitError } from '../machine/git.js';

/**
 * Who merged a surfaced lesson, skill or gene, and when, as the store's Git history says
 * (docs/design.md, Knowledge: the brief attributes each entry). The commit that added the file
 * is found with `git log --diff-filter=A`; when a merge brought that commit onto the checked-out
 * branch, the oldest such merge on its first-parent line is who merged it (its committer; on a
 * merge GitHub made, whose committer is GitHub itself, the person who pressed merge, its author);
 * otherwise the adding commit's author and date. Read for the few entries a brief gets, two git
 * processes each. A store outside Git, or a file not committed yet, is left as its document says.
 */

export interface Merged {
  by: string;
  /** ISO date-time. */
  at: string;
}

const SEP = '\x1f';
/** GitHub's own identity on the commits it makes (web merges, squashes). */
const GITHUB_COMMITTER = /^(?:GitHub|web-flow)$/i;

async function ask(git: Git, args: string[]): Promise<string | undefined> {
  try {
    return (await git.run(args)).trim();
  } catch (e) {
    // Not a repository, or no commit yet: there is no history to attribute from.
    if (e instanceof GitError) return undefined;
    throw e;
  }
}

/** The commits a shallow checkout's history is cut at (none for a full one): every file looks added there, by whoever made them. */
async function shallowCuts(git: Git): Promise<Set<string>> {
  const path = await ask(git, ['rev-parse', '--git-path', 'shallow']);
  if (!path) return new Set();
  const text = await readFile(isAbsolute(path) ? path : join(git.cwd, path), 'utf8').catch((e: unknown) => {
    if (isMissing(e)) return '';
    throw e;
  });
  return new Set(text.split('\n').filter(Boolean));
}

/** Who merged the file at `path` (relative to `dir`) and when, or undefined when its history cannot say. */
export async function mergedBy(dir: string, path: string, cuts?: Set<string>): Promise<Merged | undefined> {
  const git = new Git(dir);
  const added = await ask(git, ['log', '-1', '--diff-filter=A', `--format=%H${SEP}%an${SEP}%aI`, '--', path]);
  if (!added) return undefined;
  const [sha, author, date] = added.split(SEP) as [string, string, string];
  // A shallow checkout's cut: the file was there before it, added by someone the checkout does not know.
  if ((cuts ?? (await shallowCuts(git))).has(sha)) return undefined;
  const merges = await ask(git, [
    'log',
    '--merges',
    '--first-parent',
    '--ancestry-path',
    '--reverse',
    `--format=%cn${SEP}%cI${SEP}%an${SEP}%aI`,
    `${sha}..HEAD`,
  ]);
  const first = merges?.split('\n')[0];
  if (first) {
    const [committer, committed, mergeAuthor, authored] = first.split(SEP) as [string, string, string, string];
    return GITHUB_COMMITTER.test(committer) ? { by: mergeAuthor, at: authored } : { by: committer, at: committed };
  }
  return { by: author, at: date };
}

/** The origin line with who merged it: `drafted by harness, 2026-04-02; merged by Dana Reyes, 2026-04-03`. */
export function withMerged(origin: string | undefined, merged: Merged): string {
  const line = `merged by ${merged.by}, ${merged.at.slice(0, 10)}`;
  return origin ? `${origin}; ${line}` : line;
}

/** The entries with who merged each into the store at `dir` added to their origin, where Git can say. */
export async function attributeSurfaced(dir: string, entries: readonly SurfacedEntry[]): Promise<SurfacedEntry[]> {
  if (entries.length === 0) return [];
  const cuts = await shallowCuts(new Git(dir));
  return Promise.all(
    entries.map(async (e) => {
      const merged = await mergedBy(dir, e.path, cuts);
      return merged ? { ...e, origin: withMerged(e.origin, merged) } : { ...e };
    }),
  );
}
