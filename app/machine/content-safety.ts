import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';

/**
 * The content-safety pass every text goes through before harness writes it where others read
 * it (a knowledge file, a commit, a comment, a check run, a pull request body): secrets are
 * redacted and this machine's absolute paths become `${PROJECT_ROOT}`-relative.
 *
 * Secrets are found by secretlint's recommended preset, a maintained set of rules for the
 * credentials people actually leak (cloud keys, GitHub, npm, Slack and model-provider tokens,
 * private keys, basic-auth URLs…), and, beside it, by the values of the secrets this process
 * was given (its token and API key variables): a scanner cannot know a custom token's shape,
 * but the process knows what it holds.
 */

/** What stands where a secret was. */
export const REDACTED = '[REDACTED]';
/** What stands where the project's absolute root was. */
export const PROJECT_ROOT = '${PROJECT_ROOT}';

export interface Redaction {
  /** The rule that found it: a secretlint rule id, or `known-secret` for one of the process's own. */
  rule: string;
  /** 1-based line of the original text. */
  line: number;
}

export interface SafeText {
  text: string;
  redactions: Redaction[];
}

export interface SafetyOptions {
  /** Absolute directories that stand for the project (the repository, its worktrees, a runner's checkout). */
  roots?: readonly string[];
  /** Secret values this process holds (secretValues(process.env)); each occurrence is redacted. */
  secrets?: readonly string[];
}

const CONFIG = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommended }] };

// secretlint times every rule of every lint with performance marks, and its profiler keeps
// each mark and measure for the life of the process, searching them all at every new mark:
// a run lints every document it writes, and each lint cost more than the one before. Nothing
// here reads the profile, so it takes no marks.
secretLintProfiler.mark = () => undefined;

/** Shorter values are too likely to occur by chance ("true", a port) to be worth redacting. */
const MIN_SECRET_LENGTH = 8;
/** Environment variables whose values are secrets by their name (an OTLP collector's headers carry its credentials). */
const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_?KEY|CREDENTIALS?|OTLP_(?:TRACES_|METRICS_|LOGS_)?HEADERS)$/i;

/** The values of the secret-named variables of an environment, longest first. */
export function secretValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = Object.entries(env)
    .filter(([name, value]) => SECRET_NAME.test(name) && value !== undefined && value.trim().length >= MIN_SECRET_LENGTH)
    .map(([, value]) => value!.trim());
  return [...new Set(values)].sort((a, b) => b.length - a.length);
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Redact secrets and relativise paths; see the module's comment. */
export async function makeSafe(text: string, options: SafetyOptions = {}): Promise<SafeText> {
  const found: { start: number; end: number; rule: string }[] = [];
  for (const secret of options.secrets ?? []) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    for (let i = text.indexOf(secret); i !== -1; i = text.indexOf(secret, i + secret.length))
      found.push({ start: i, end: i + secret.length, rule: 'known-secret' });
  }
  const result = await lintSource({ source: { filePath: 'harness-content.txt', content: text, contentType: 'text' }, options: { config: CONFIG } });
  for (const m of result.messages) found.push({ start: m.range[0], end: m.range[1], rule: m.ruleId });
  found.push(...orphanedKeyTails(text));

  // Overlapping findings become one redaction; the text is rebuilt once, front to back.
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const redactions: Redaction[] = [];
  let out = '';
  let at = 0;
  for (const f of found) {
    if (f.end <= at) continue;
    const start = Math.max(f.start, at);
    out += text.slice(at, start) + REDACTED;
    at = f.end;
    redactions.push({ rule: f.rule, line: lineAt(text, f.start) });
  }
  out += text.slice(at);
  return { text: relativise(out, options.roots ?? []), redactions };
}

/** The end of a PEM private key, and the base64 lines a key's body is made of. */
const KEY_END = /-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/g;
const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/;
const BASE64_LINE = /^…?[A-Za-z0-9+/=]{16,}\r?$/;

/**
 * A private key's tail with its BEGIN line cut off (output cut to its last lines, a file
 * written from the middle of a key): the rules match a whole block only, yet the tail is
 * enough to rebuild the key. Each END line with no BEGIN above it is found with the run of
 * base64 lines before it.
 */
function orphanedKeyTails(text: string): { start: number; end: number; rule: string }[] {
  const out: { start: number; end: number; rule: string }[] = [];
  for (const m of text.matchAll(KEY_END)) {
    const before = text.slice(0, m.index);
    const lastBegin = before.search(new RegExp(`${KEY_BEGIN.source}(?![\\s\\S]*${KEY_BEGIN.source})`));
    const lastEnd = before.lastIndexOf('-----END ');
    if (lastBegin !== -1 && lastBegin > lastEnd) continue;
    let start = before.lastIndexOf('\n', before.length - 1) + 1;
    while (start > 0) {
      const prev = before.lastIndexOf('\n', start - 2) + 1;
      if (!BASE64_LINE.test(before.slice(prev, start - 1))) break;
      start = prev;
    }
    out.push({ start, end: m.index + m[0].length, rule: 'private-key-tail' });
  }
  return out;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What may follow a root for it to be the whole path: a separator, space, a quote, a bracket, punctuation or the end. */
const PATH_END = /(?=[/\\\s"'`)\]:;,]|$)/.source;

/**
 * This machine's paths under a project root as `${PROJECT_ROOT}/…`, longest root first. A root
 * counts only as a whole path: `/tmp/repo` is not replaced inside `/tmp/repo-2`.
 */
export function relativise(text: string, roots: readonly string[]): string {
  let out = text;
  for (const { root, pattern } of rootPatterns(roots)) {
    // Most roots are in no document: a search for the text costs far less than the pattern's.
    if (out.includes(root)) out = out.replace(pattern, PROJECT_ROOT);
  }
  return out;
}

/** The roots' patterns, longest root first, made once for a set of roots (a run passes the same set for every document). */
let lastRoots: { key: string; patterns: { root: string; pattern: RegExp }[] } | undefined;

function rootPatterns(roots: readonly string[]): { root: string; pattern: RegExp }[] {
  const key = roots.join('\0');
  if (lastRoots?.key !== key) {
    const sorted = [...roots]
      .map((r) => r.replace(/\/+$/, ''))
      .filter((r) => r.length > 1)
      .sort((a, b) => b.length - a.length);
    lastRoots = { key, patterns: sorted.map((root) => ({ root, pattern: new RegExp(`${escape(root)}${PATH_END}`, 'g') })) };
  }
  return lastRoots.patterns;
}
