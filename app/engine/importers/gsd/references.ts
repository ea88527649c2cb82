import { importProblem, type ImportProblem } from './import-problem.js';

/**
 * GSD's documents name each other by their place in the repository (`@.planning/PROJECT.md`,
 * "Full phase details: `.planning/milestones/v1.0-ROADMAP.md`") and by Markdown links relative
 * to themselves (`[v1.0](milestones/v1.0-ROADMAP.md)`). Imported, those files are somewhere
 * else: each name of a file the import wrote is rewritten to where it was written, and each
 * name of a GSD file it did not import is reported, so that no reference leads nowhere unsaid.
 */

export interface ReferencePlaces {
  /** GSD path (relative to `.planning/`) → where the import wrote it (relative to the spec directory). */
  written: ReadonlyMap<string, string>;
  /** GSD paths not imported, with the reason. */
  skipped: ReadonlyMap<string, string>;
  /**
   * The spec directory as the repository names it (`docs/specs/SPC-003-billing`, `.` for the
   * root): `.planning/…` names are rewritten only when it is known.
   */
  specPath?: string;
}

export interface RewrittenReferences {
  text: string;
  /** How many names were rewritten. */
  rewritten: number;
  problems: ImportProblem[];
}

/** A repository path GSD wrote: `.planning/` and what follows, up to a space, a quote or a bracket. */
const PLANNING_PATH = /(?<![\w./-])\.planning\/([^\s`'"()<>[\]{}|]+)/g;
/** A Markdown link's target: `[text](target)`. */
const LINK = /\]\(([^()\s]+)\)/g;

/**
 * Rewrite the names of GSD files in one imported document (`from`, a GSD path, written to `to`,
 * a spec path; `source`, GSD's text, for the lines of the report). Only the body is read:
 * frontmatter is harness's, written from what was read.
 */
export function rewriteReferences(text: string, from: string, to: string, places: ReferencePlaces, source: string = text): RewrittenReferences {
  const start = bodyStart(text);
  const head = text.slice(0, start);
  let rewritten = 0;
  const missing = new Map<string, string>();
  let body = text.slice(start);
  if (places.specPath !== undefined) {
    const root = places.specPath === '.' || places.specPath === '' ? '' : `${places.specPath.replace(/\/+$/, '')}/`;
    body = body.replace(PLANNING_PATH, (whole, named: string) => {
      const { path, tail } = split(named);
      const target = places.written.get(path);
      if (target !== undefined) {
        if (`${root}${target}` !== `.planning/${path}`) rewritten++;
        return `${root}${target}${tail}`;
      }
      const why = places.skipped.get(path);
      if (why !== undefined) missing.set(`.planning/${path}`, why);
      return whole;
    });
  }
  body = body.replace(LINK, (whole, link: string) => {
    if (/^(?:[a-z][a-z0-9+.-]*:|#|\/|\.planning\/)/i.test(link)) return whole;
    const { path: named, tail } = split(link);
    const path = normalize(`${dirname(from)}${named}`);
    if (path === undefined) return whole;
    const target = places.written.get(path);
    if (target === undefined) {
      const why = places.skipped.get(path);
      if (why !== undefined) missing.set(named, why);
      return whole;
    }
    const now = relativePath(dirname(to), target);
    if (now !== named) rewritten++;
    return `](${now}${tail})`;
  });
  const problems = [...missing].map(([name, why]) =>
    importProblem(
      from,
      lineOf(source, name),
      'reference-not-imported',
      `names ${name}, which was not imported (${why}); the name was left as it is`,
      'warning',
    ),
  );
  return { text: head + body, rewritten, problems };
}

/**
 * GSD's @-includes of absolute paths on the author's machine (`@/Users/dana/code/app/src/a.ts`,
 * `@$HOME/.claude/get-shit-done/workflows/execute-plan.md`): one inside the repository (`root`,
 * where it was on that machine) becomes repository-relative; any other cannot be read on another
 * machine, and its line is dropped. GSD's own instructions, which every GSD plan includes, are
 * counted (`gsd`); any other dropped line is a warning. `bodyLine` is the body's first line in
 * the GSD file, for the report.
 */
export function machineIncludes(
  body: string,
  root: string | undefined,
  file: string,
  bodyLine: number,
): { body: string; problems: ImportProblem[]; gsd: number } {
  const problems: ImportProblem[] = [];
  let gsd = 0;
  const kept: string[] = [];
  body.split('\n').forEach((line, n) => {
    const m = /^(\s*)@((?:\/(?:Users|home)\/|\/root\/|[A-Za-z]:[\\/]Users[\\/]|\$HOME\/|~\/)\S*)\s*$/.exec(line);
    if (!m) {
      kept.push(line);
      return;
    }
    const path = m[2]!.replace(/\\/g, '/');
    if (root !== undefined && path.startsWith(`${root}/`)) {
      kept.push(`${m[1]}@${path.slice(root.length + 1)}`);
      return;
    }
    if (GSD_OWN.test(path)) {
      gsd++;
      return;
    }
    problems.push(
      importProblem(
        file,
        bodyLine + n,
        'machine-include',
        `@${path} includes a file on the author's machine outside the repository, which no other machine has; the line was dropped`,
        'warning',
      ),
    );
  });
  return { body: kept.join('\n'), problems, gsd };
}

/** GSD's own workflows and templates, where its installer puts them (~/.claude/get-shit-done/, ~/.config/opencode/get-shit-done/). */
const GSD_OWN = /\/get-shit-done\//;

/** Where the body starts: after a `---` frontmatter block, when there is one. */
function bodyStart(text: string): number {
  if (!text.startsWith('---\n')) return 0;
  const end = text.indexOf('\n---', 3);
  if (end < 0) return 0;
  const after = text.indexOf('\n', end + 4);
  return after < 0 ? text.length : after + 1;
}

/** A named path and what follows it that is no part of it: an anchor, a sentence's full stop. */
function split(named: string): { path: string; tail: string } {
  const m = /^(.*?)((?:#[^#]*)?[.,:;!?]*)$/.exec(named)!;
  return { path: m[1]!, tail: m[2]! };
}

function dirname(path: string): string {
  const at = path.lastIndexOf('/');
  return at < 0 ? '' : path.slice(0, at + 1);
}

/** `a/b/../c` is `a/c`; undefined when it climbs out of the tree. */
function normalize(path: string): string | undefined {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(part);
  }
  return out.join('/');
}

/** The path of `to` seen from the directory `from` (both relative to one root, `from` ending in "/" or empty). */
function relativePath(from: string, to: string): string {
  const a = from.split('/').filter(Boolean);
  const b = to.split('/');
  let n = 0;
  while (n < a.length && n < b.length - 1 && a[n] === b[n]) n++;
  return [...a.slice(n).map(() => '..'), ...b.slice(n)].join('/');
}

/** The line of the GSD file that names it first. */
function lineOf(text: string, name: string): number {
  const at = text.indexOf(name);
  return at < 0 ? 1 : text.slice(0, at).split('\n').length;
}
