import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import picomatch from 'picomatch';
import { makeSafe } from './content-safety.js';

const run = promisify(execFile);

/**
 * The scan that stands before a plan's commits leave the agent's hands (a runner's push, a
 * local run's merge), as GitHub's push protection does: every line the plan's commits add, and
 * every commit message, through the same content-safety pass as everything harness writes
 * (content-safety.ts: secretlint's recommended rules, this process's own secret values, a key's
 * tail). Each commit on its own, since a secret added and removed again is still in the history
 * that would be pushed. A finding names the file and line (or the commit), never the value.
 *
 * A false positive (a test fixture that is a key on purpose) is allowed by a writer in
 * `.harness/secrets-allow` on the base the plan started from, not on the plan's own branch
 * (where the agent could allow its own leak): one path glob a line, optionally followed by
 * the rule it allows (all rules when none is given); `#` starts a comment.
 */

export interface PushFinding {
  /** `path:line` for a line a commit adds, `commit <sha> message, line <n>` for a message. */
  where: string;
  path?: string;
  rule: string;
}

/** Where a writer allows what the scan would stop (see the module comment). */
export const SECRETS_ALLOW_FILE = '.harness/secrets-allow';

/** What git may print: a plan of thousands of commits is still a few megabytes. */
const MAX_BUFFER = 256 * 1024 * 1024;

async function git(dir: string, args: string[]): Promise<string> {
  return (await run('git', args, { cwd: dir, maxBuffer: MAX_BUFFER, encoding: 'utf8' })).stdout;
}

interface AddedText {
  path: string;
  lines: { line: number; text: string }[];
}

/** The lines each file gains in one commit's zero-context patch, with their line numbers in the new file. */
function addedLines(patch: string): AddedText[] {
  const files: AddedText[] = [];
  let current: AddedText | undefined;
  let next = 0;
  for (const line of patch.split('\n')) {
    if (line.startsWith('+++ ')) {
      const path = line.slice(4);
      current = path === '/dev/null' ? undefined : { path: path.replace(/^b\//, ''), lines: [] };
      if (current) files.push(current);
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      next = Number(hunk[1]);
      continue;
    }
    if (current && line.startsWith('+')) current.lines.push({ line: next++, text: line.slice(1) });
  }
  return files;
}

type AllowList = { path: (p: string) => boolean; rule?: string }[];

/** Allow lists read at a commit named by its sha, which never changes: a run reads its base's once. */
const allowAt = new Map<string, Promise<AllowList>>();

/** The allow list at `base` (read once per commit sha): path globs, each with the rule it allows or every rule. */
function allowList(dir: string, base: string): Promise<AllowList> {
  if (!/^[0-9a-f]{40}$/.test(base)) return readAllowList(dir, base);
  let found = allowAt.get(base);
  if (!found) {
    found = readAllowList(dir, base);
    allowAt.set(base, found);
    // A failed read is not remembered; nor is the map let grow past a few hundred bases.
    found.catch(() => allowAt.delete(base));
    if (allowAt.size > 256) allowAt.delete(allowAt.keys().next().value!);
  }
  return found;
}

async function readAllowList(dir: string, base: string): Promise<AllowList> {
  let text: string;
  try {
    text = await git(dir, ['show', `${base}:${SECRETS_ALLOW_FILE}`]);
  } catch (e) {
    // No such file at the base: nothing is allowed. Any other failure of git surfaces.
    if (/does not exist|exists on disk, but not in|bad revision|invalid object name/i.test((e as { stderr?: string }).stderr ?? '')) return [];
    throw e;
  }
  return text
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter((l) => l !== '')
    .map((l) => {
      const [glob, rule] = l.split(/\s+/);
      return { path: picomatch(glob!, { dot: true }), ...(rule === undefined ? {} : { rule }) };
    });
}

/**
 * What the commits `base..head` in the repository at `dir` would publish that looks like a
 * secret: added lines per commit and commit messages, less what `.harness/secrets-allow` at
 * `allowFrom` (the base the plan started from) allows. `secrets`: this process's own values.
 */
export async function scanCommits(dir: string, range: { base: string; head: string; allowFrom: string }, secrets: readonly string[] = []): Promise<PushFinding[]> {
  const allow = await allowList(dir, range.allowFrom);
  const allowed = (path: string, rule: string) => allow.some((a) => a.path(path) && (a.rule === undefined || a.rule === rule));
  const log = await git(dir, ['log', '--reverse', '-p', '-U0', '--no-renames', '--no-color', '--no-ext-diff', '--format=%x1e%H%n%B%x1f', `${range.base}..${range.head}`]);
  const findings: PushFinding[] = [];
  const seen = new Set<string>();
  for (const chunk of log.split('\x1e').slice(1)) {
    const split = chunk.indexOf('\x1f');
    const header = chunk.slice(0, split);
    const sha = header.slice(0, header.indexOf('\n'));
    const message = header.slice(header.indexOf('\n') + 1);
    for (const r of (await makeSafe(message, { secrets })).redactions) findings.push({ where: `commit ${sha.slice(0, 12)} message, line ${r.line}`, rule: r.rule });
    for (const file of addedLines(chunk.slice(split + 1))) {
      if (file.lines.length === 0) continue;
      const { redactions } = await makeSafe(file.lines.map((l) => l.text).join('\n'), { secrets });
      for (const r of redactions) {
        const line = file.lines[r.line - 1]?.line ?? file.lines[0]!.line;
        const key = `${file.path}:${line}:${r.rule}`;
        if (seen.has(key) || allowed(file.path, r.rule)) continue;
        seen.add(key);
        findings.push({ where: `${file.path}:${line}`, path: file.path, rule: r.rule });
      }
    }
  }
  return findings;
}

/** Why the commits may not leave, in words a person acts on; undefined when nothing was found. */
export function leakReason(findings: readonly PushFinding[], what: string, allowFrom: string): string | undefined {
  if (findings.length === 0) return undefined;
  const shown = findings.slice(0, 10).map((f) => `${f.where} (${f.rule})`);
  const more = findings.length > 10 ? ` … and ${findings.length - 10} more` : '';
  return `the plan's commits hold what looks like a secret, so they were not ${what}: ${shown.join(', ')}${more}. Take it out of the history (a new commit that deletes it is not enough) and retry; if it is no secret, a writer lists the file in ${SECRETS_ALLOW_FILE} on ${allowFrom}`;
}
