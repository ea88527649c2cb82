import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { LRUCache } from 'lru-cache';
import picomatch from 'picomatch';
import { makeSafe } from './content-safety.js';

const run = promisify(execFile);

/**
 * The scan that stands before a plan's commits leave the agent's hands (a runner's push, a
 * local run's merge), as GitHub's push protection does: every place a commit carries text goes
 * through the same content-safety pass as everything harness writes (content-safety.ts:
 * secretlint's recommended rules, this process's own secret values, a key's tail): each line
 * the commits add, and the base64 and hex runs in it decoded; the names of the files and
 * symbolic links they add (a link's target is its blob, a line it adds); the printable runs
 * of each binary file they add; each commit's message, and its author's and committer's names
 * and emails. Each commit on its own, since a secret added and removed again is still in the
 * history that would be pushed. A finding names the place (file and line, file name number,
 * binary file, commit and field), never the value. Tags and notes are not scanned: neither a
 * runner's push (HEAD to the plan's branch) nor a local merge carries them.
 *
 * A false positive (a test fixture that is a key on purpose) is allowed by a writer in
 * `.harness/secrets-allow` on the base the plan started from, not on the plan's own branch
 * (where the agent could allow its own leak): one path glob a line, optionally followed by
 * the rule it allows (all rules when none is given); `#` starts a comment.
 */

export interface PushFinding {
  /**
   * `path:line` for a line a commit adds (`path:line (base64)` for what it encodes), `path
   * (binary)`, `commit <sha> file name #<n>`, `commit <sha> message, line <n>`, `commit <sha>
   * author email` and the like.
   */
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

async function gitBytes(dir: string, args: string[]): Promise<Buffer> {
  return (await run('git', args, { cwd: dir, maxBuffer: MAX_BUFFER, encoding: 'buffer' })).stdout;
}

/** Runs of printable ASCII this long or longer are what a binary's token would be (as `strings` reads them). */
const PRINTABLE_RUN = /[\x20-\x7e]{12,}/g;

/** Base64 (standard or URL-safe) and hex runs long enough to hold a token once decoded. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{16,}={0,2}/g;
const HEX_RUN = /\b(?:[0-9a-fA-F]{2}){10,}\b/g;

/** Decoded text worth scanning: nearly all printable, as a token is; anything else is data. */
function printable(bytes: Buffer): string | undefined {
  if (bytes.length < 8) return undefined;
  let ok = 0;
  for (const b of bytes) if ((b >= 0x20 && b < 0x7f) || b === 0x0a || b === 0x09) ok++;
  return ok / bytes.length >= 0.95 ? bytes.toString('latin1') : undefined;
}

/** What an added line says once its base64 and hex runs are decoded, where they decode to text: `[encoding, text]`. */
function decodedRuns(text: string): ['base64' | 'hex', string][] {
  const out: ['base64' | 'hex', string][] = [];
  for (const m of text.matchAll(HEX_RUN)) {
    const decoded = printable(Buffer.from(m[0], 'hex'));
    if (decoded !== undefined) out.push(['hex', decoded]);
  }
  for (const m of text.matchAll(BASE64_RUN)) {
    if (/^[0-9a-fA-F]+$/.test(m[0])) continue;
    const decoded = printable(Buffer.from(m[0], 'base64'));
    if (decoded !== undefined) out.push(['base64', decoded]);
  }
  return out;
}

interface TreeChange {
  path: string;
  binary: boolean;
}

/** A path as git quotes it (core.quotePath off, so only a name with a quote, a backslash or a control character is): C-style escapes, octal bytes as UTF-8. */
function unquotePath(text: string): string {
  if (!text.startsWith('"') || !text.endsWith('"')) return text;
  const bytes: number[] = [];
  const simple: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };
  const body = Buffer.from(text.slice(1, -1), 'utf8');
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== 92) {
      bytes.push(body[i]!);
      continue;
    }
    const next = String.fromCharCode(body[i + 1] ?? 0);
    const octal = /^[0-7]{3}$/.test(body.subarray(i + 1, i + 4).toString('latin1'));
    if (octal) {
      bytes.push(parseInt(body.subarray(i + 1, i + 4).toString('latin1'), 8));
      i += 3;
    } else {
      bytes.push(simple[next] ?? body[i + 1]!);
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The paths a commit adds or changes, from the `--numstat` lines before its patch; binary ones are `-\t-\t`. */
function treeChanges(body: string): TreeChange[] {
  const diff = body.search(/^diff --git /m);
  const stat = diff === -1 ? body : body.slice(0, diff);
  return stat.split('\n').flatMap((line) => {
    const m = /^(\d+|-)\t(\d+|-)\t(.+)$/.exec(line);
    return m ? [{ path: unquotePath(m[3]!), binary: m[1] === '-' && m[2] === '-' }] : [];
  });
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
const allowAt = new LRUCache<string, Promise<AllowList>>({ max: 256 });

/** The allow list at `base` (read once per commit sha): path globs, each with the rule it allows or every rule. */
function allowList(dir: string, base: string): Promise<AllowList> {
  if (!/^[0-9a-f]{40}$/.test(base)) return readAllowList(dir, base);
  let found = allowAt.get(base);
  if (!found) {
    found = readAllowList(dir, base);
    allowAt.set(base, found);
    // A failed read is not remembered; the cache keeps the last few hundred bases.
    found.catch(() => allowAt.delete(base));
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
export async function scanCommits(
  dir: string,
  range: { base: string; head: string; allowFrom: string },
  secrets: readonly string[] = [],
): Promise<PushFinding[]> {
  const allow = await allowList(dir, range.allowFrom);
  const allowed = (path: string, rule: string) => allow.some((a) => a.path(path) && (a.rule === undefined || a.rule === rule));
  // Who wrote and committed each commit travels with it: a name or an email is as public as the message.
  // One git process for the lot: each commit's numstat (the names it adds, which are binary) before its patch.
  const log = await git(dir, [
    '-c',
    'core.quotePath=false',
    'log',
    '--reverse',
    '-p',
    '-U0',
    '--numstat',
    '--no-renames',
    '--diff-filter=d',
    '--no-color',
    '--no-ext-diff',
    '--format=%x1e%H%n%an%n%ae%n%cn%n%ce%n%B%x1f',
    `${range.base}..${range.head}`,
  ]);
  const findings: PushFinding[] = [];
  const seen = new Set<string>();
  const found = (finding: PushFinding) => {
    const key = `${finding.where}:${finding.rule}`;
    if (seen.has(key) || (finding.path !== undefined && allowed(finding.path, finding.rule))) return;
    seen.add(key);
    findings.push(finding);
  };
  for (const chunk of log.split('\x1e').slice(1)) {
    const split = chunk.indexOf('\x1f');
    const [sha = '', ...rest] = chunk.slice(0, split).split('\n');
    const commit = `commit ${sha.slice(0, 12)}`;
    const identity = rest.slice(0, 4);
    const message = rest.slice(4).join('\n');
    for (const r of (await makeSafe(message, { secrets })).redactions) found({ where: `${commit} message, line ${r.line}`, rule: r.rule });
    const places = ['author name', 'author email', 'committer name', 'committer email'];
    for (const r of (await makeSafe(identity.join('\n'), { secrets })).redactions)
      found({ where: `${commit} ${places[r.line - 1] ?? 'author'}`, rule: r.rule });
    await scanTree(dir, sha, treeChanges(chunk.slice(split + 1)), commit, secrets, found);
    for (const file of addedLines(chunk.slice(split + 1))) {
      if (file.lines.length === 0) continue;
      const { redactions } = await makeSafe(file.lines.map((l) => l.text).join('\n'), { secrets });
      for (const r of redactions) found({ where: `${file.path}:${file.lines[r.line - 1]?.line ?? file.lines[0]!.line}`, path: file.path, rule: r.rule });
      await scanEncoded(file, secrets, found);
    }
  }
  return findings;
}

/**
 * The names of the files and symbolic links a commit adds (a name is text the commit
 * publishes: named by its commit and number, since the name itself may be the secret), and the
 * bytes of each binary file it adds, read as `strings` reads them.
 */
async function scanTree(
  dir: string,
  sha: string,
  changes: readonly TreeChange[],
  commit: string,
  secrets: readonly string[],
  found: (f: PushFinding) => void,
): Promise<void> {
  if (changes.length === 0) return;
  for (const r of (await makeSafe(changes.map((c) => c.path).join('\n'), { secrets })).redactions) {
    const change = changes[r.line - 1];
    found({ where: `${commit} file name #${r.line}`, ...(change ? { path: change.path } : {}), rule: r.rule });
  }
  for (const change of changes.filter((c) => c.binary)) {
    const bytes = await gitBytes(dir, ['cat-file', 'blob', `${sha}:${change.path}`]);
    const runs = bytes.toString('latin1').match(PRINTABLE_RUN) ?? [];
    if (runs.length === 0) continue;
    for (const r of (await makeSafe(runs.join('\n'), { secrets })).redactions) found({ where: `${change.path} (binary)`, path: change.path, rule: r.rule });
  }
}

/** Base64 and hex runs in added lines, decoded where they decode to text, scanned as the lines are. */
async function scanEncoded(file: AddedText, secrets: readonly string[], found: (f: PushFinding) => void): Promise<void> {
  const decoded: { line: number; encoding: string; text: string }[] = [];
  for (const l of file.lines) for (const [encoding, text] of decodedRuns(l.text)) decoded.push({ line: l.line, encoding, text: text.replace(/\n/g, ' ') });
  if (decoded.length === 0) return;
  for (const r of (await makeSafe(decoded.map((d) => d.text).join('\n'), { secrets })).redactions) {
    const d = decoded[r.line - 1] ?? decoded[0]!;
    found({ where: `${file.path}:${d.line} (${d.encoding})`, path: file.path, rule: r.rule });
  }
}

/** Why the commits may not leave, in words a person acts on; undefined when nothing was found. */
export function leakReason(findings: readonly PushFinding[], what: string, allowFrom: string): string | undefined {
  if (findings.length === 0) return undefined;
  const shown = findings.slice(0, 10).map((f) => `${f.where} (${f.rule})`);
  const more = findings.length > 10 ? ` … and ${findings.length - 10} more` : '';
  return `the plan's commits hold what looks like a secret, so they were not ${what}: ${shown.join(', ')}${more}. Take it out of the history (a new commit that deletes it is not enough) and retry; if it is no secret, a writer lists the file in ${SECRETS_ALLOW_FILE} on ${allowFrom}`;
}
