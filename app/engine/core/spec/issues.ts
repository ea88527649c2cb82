import type { z } from 'zod';
import type { KeyPath, LineMap } from './frontmatter.js';
import { problem, type Problem, type ProblemCode } from './problem.js';
import { CHECK_TYPES } from './schema.js';
import { didYouMean } from './suggest.js';

/** What each field should look like, said the way a person would fix it. */
const HINTS: Record<string, string> = {
  plan_id: 'a plan id PP-NN such as "03-02" (PP is the phase), quoted',
  depends_on: 'a list of plan ids such as ["03-01"]',
  'depends_on[]': 'a plan id PP-NN such as "03-01", quoted',
  'files_modified[]': 'a glob such as "src/auth/**"',
  'files_read[]': 'a glob such as "src/utils/**"',
  files_modified: 'a list of globs relative to the repository root, such as ["src/auth/**"]',
  files_read: 'a list of globs relative to the repository root',
  autonomous: 'true or false',
  checkpoints: 'a list of decision, verification or action',
  agent: 'an agent name such as script, claude or command',
  timeout_minutes: 'whole minutes from 1 to 360 (GitHub-hosted jobs stop after six hours)',
  must_pass: 'a list of checks such as { id: tests, type: tests_pass, command: "npm test" }',
  title: 'a short line of text',
  id: 'an id of letters, digits, ".", "_" or "-"',
  type: `one of ${CHECK_TYPES.join(', ')}`,
  request: 'a method and path, such as "POST /api/auth/login"',
  url: 'an http(s) URL such as http://127.0.0.1:3000',
  command: 'a shell command such as "npm test"',
  path: 'a path relative to the repository root',
  expect: 'a mapping of expectations',
  steps: 'a list of steps such as { click: "#login" }',
  requirements: 'a list of requirement ids',
  truths: 'a list of sentences',
  phases: 'a list of phases such as { id: "01", title: Foundation }',
  per_day_usd: 'a number of US dollars above 0, such as 50',
  per_spec_usd: 'a number of US dollars above 0, such as 400',
  budget: 'a mapping such as { per_day_usd: 50, per_spec_usd: 400 }',
};

export function pathText(path: KeyPath): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part;
  return out || 'frontmatter';
}

export function lastKey(path: KeyPath): string {
  for (let i = path.length - 1; i >= 0; i--) if (typeof path[i] === 'string') return path[i] as string;
  return '';
}

/** A string for a message: control characters escaped as YAML's double quotes would have them, cut at 60. */
function quoteShort(value: string): string {
  const cut = value.length > 60 ? `${value.slice(0, 57)}...` : value;
  // Control, format (bidi, zero-width) and separator characters shown by their code point, so the message shows what the value hides.
  return `"${cut.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`)}"`;
}

export function describeValue(value: unknown): string {
  if (value === null) return 'empty (null)';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return quoteShort(value);
    case 'number':
      return `the number ${value}`;
    case 'boolean':
      return `${value}`;
    case 'object':
      return 'a mapping';
    default:
      return String(value);
  }
}

export function valueAt(data: unknown, path: KeyPath): unknown {
  let v: unknown = data;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

/**
 * Turn zod's issues into problems at the right line, each naming the key, what was found
 * and what to write instead. `prefix` is prepended to issue paths (for nested documents).
 */
export function issuesToProblems(file: string, schema: z.ZodType, error: z.ZodError, data: unknown, lines: LineMap, prefix: KeyPath = []): Problem[] {
  const out: Problem[] = [];
  for (const issue of error.issues) {
    const placed = placeIssue(issue, data, prefix);
    const at = lines.lineOf(placed.path);
    if (issue.code === 'unrecognized_keys') {
      out.push(...unknownKeyProblems(file, schema, data, lines, placed, issue.keys));
      continue;
    }
    const [code, message] = issueMessage(issue, placed);
    out.push(problem(file, at, code, message));
  }
  return out;
}

type Issue = z.core.$ZodIssue;

/** An issue placed in the document: its full path, its path within `data`, the key it names, how that key is written, the value found there. */
interface PlacedIssue {
  path: KeyPath;
  local: KeyPath;
  key: string;
  hint: string | undefined;
  value: unknown;
}

function placeIssue(issue: Issue, data: unknown, prefix: KeyPath): PlacedIssue {
  const path: KeyPath = [...prefix, ...(issue.path as (string | number)[])];
  const local = issue.path as (string | number)[];
  const key = lastKey(path);
  const hint = (typeof path[path.length - 1] === 'number' ? HINTS[`${key}[]`] : undefined) ?? HINTS[key];
  return { path, local, key, hint, value: valueAt(data, local) };
}

/** A problem per key the schema does not know, at the key's own line, with the key meant or the keys allowed. */
function unknownKeyProblems(file: string, schema: z.ZodType, data: unknown, lines: LineMap, { path, local }: PlacedIssue, keys: readonly string[]): Problem[] {
  const known = keysAt(schema, local, data);
  return keys.map((k) =>
    problem(
      file,
      lines.lineOf([...path, k]),
      'field-unknown',
      `unknown key "${k}"${path.length ? ` in ${pathText(path)}` : ''}${
        didYouMean(k, known) || (path.length === 0 ? '; put keys of your own under metadata:' : `; use one of ${known.join(', ')}`)
      }`,
    ),
  );
}

/** The problem's code and message for any issue but an unknown key: what was found and what to write instead. */
function issueMessage(issue: Issue, placed: PlacedIssue): [ProblemCode, string] {
  const { path, key, hint, value } = placed;
  switch (issue.code) {
    case 'invalid_type': {
      if (value === undefined) {
        const parent = pathText(path.slice(0, -1));
        const where = path.length > 1 ? ` in ${parent}` : '';
        return ['field-missing', `missing required key "${key}"${where}${hint ? `: ${hint}` : ''}`];
      }
      return ['field-type', `${pathText(path)} is ${describeValue(value)}; it must be ${hint ?? issue.expected}`];
    }
    case 'invalid_format':
    case 'invalid_value':
    case 'too_small':
    case 'too_big':
      return valueMessage(issue, placed);
    case 'invalid_union':
      return unionMessage(issue, placed);
    default:
      return ['field-value', `${pathText(path)}: ${issue.message}`];
  }
}

/** A value of the right type that is not right: a title of more than one line, empty, not one of the options, out of bounds. */
function valueMessage(
  issue: Extract<Issue, { code: 'invalid_format' | 'invalid_value' | 'too_small' | 'too_big' }>,
  placed: PlacedIssue,
): [ProblemCode, string] {
  const { path, key, hint, value } = placed;
  if (issue.code === 'invalid_format' && key === 'title' && typeof value === 'string') {
    // The one format a title has: a single line (it becomes an issue title and a commit subject).
    return [
      'control-character',
      `${pathText(path)} is ${describeValue(value)}; it must be one line of text, without line breaks, control characters or format characters (bidi controls such as U+202E, zero-width characters such as U+200B)`,
    ];
  }
  if (issue.code === 'too_small' && typeof value === 'string' && value.length === 0) {
    return ['field-value', `${pathText(path)} is empty; it must be ${hint ?? 'filled in'}`];
  }
  if (issue.code === 'too_small' && Array.isArray(value)) {
    return ['field-value', `${pathText(path)} is empty; it must be ${hint ?? 'a non-empty list'}`];
  }
  if (issue.code === 'invalid_value') {
    const options = (issue.values as unknown[]).map(String);
    return [
      'field-value',
      `${pathText(path)} is ${describeValue(value)}; it must be one of ${options.join(', ')}${typeof value === 'string' ? didYouMean(value, options) : ''}`,
    ];
  }
  return ['field-value', `${pathText(path)} is ${describeValue(value)}; it must be ${hint ?? boundText(issue) ?? issue.message}`];
}

/** A value no branch of a union takes: a check of no known type, a step of no known shape, or any other. */
function unionMessage(issue: Extract<Issue, { code: 'invalid_union' }>, placed: PlacedIssue): [ProblemCode, string] {
  const { path, key, hint, value } = placed;
  if (key === 'type' && 'discriminator' in issue) {
    if (value === undefined) return ['field-missing', `${pathText(path.slice(0, -1))} has no "type"; it must be one of ${CHECK_TYPES.join(', ')}`];
    return [
      'unknown-check-type',
      `${pathText(path)} ${describeValue(value)} is not a verification type${
        typeof value === 'string' ? didYouMean(value, CHECK_TYPES) : ''
      }; use one of ${CHECK_TYPES.join(', ')}`,
    ];
  }
  if (key === 'steps') {
    return [
      'field-value',
      `${pathText(path)} is not a step; use one of { goto: "/path" }, { click: "selector" }, { fill: "selector", value: "text" }, { press: "selector", key: "Enter" }, { wait_for: "selector" }`,
    ];
  }
  return ['field-value', `${pathText(path)} is ${describeValue(value)}; it must be ${hint ?? 'valid'}`];
}

/** A size bound in words ("at least 1", "at most 64 characters"); zod's own text reads "Too small: expected number to be >=1". */
function boundText(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code !== 'too_small' && issue.code !== 'too_big') return undefined;
  const bound = Number(issue.code === 'too_small' ? issue.minimum : issue.maximum);
  const exclusive = issue.inclusive === false;
  const relation = issue.code === 'too_small' ? (exclusive ? 'more than' : 'at least') : exclusive ? 'less than' : 'at most';
  const unit = issue.origin === 'string' ? ' characters' : issue.origin === 'array' ? ' items' : '';
  return `${relation} ${bound}${unit}`;
}

/** The keys a zod schema allows at `path`, following the data through lists and unions. */
export function keysAt(schema: z.ZodType, path: KeyPath, data: unknown): string[] {
  let node: z.ZodType | undefined = schema;
  let value: unknown = data;
  for (const part of path) {
    node = unwrap(node, value);
    if (!node) return [];
    const def = node.def as { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType };
    if (def.type === 'object' && typeof part === 'string') node = def.shape?.[part];
    else if (def.type === 'array' && typeof part === 'number') node = def.element;
    else return [];
    value = value !== null && typeof value === 'object' ? (value as Record<string | number, unknown>)[part] : undefined;
  }
  node = unwrap(node, value);
  const def = node?.def as { type: string; shape?: Record<string, z.ZodType> } | undefined;
  return def?.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

function unwrap(node: z.ZodType | undefined, value: unknown): z.ZodType | undefined {
  for (let guard = 0; node && guard < 10; guard++) {
    const def = node.def as { type: string; innerType?: z.ZodType; in?: z.ZodType; options?: z.ZodType[]; discriminator?: string };
    if (def.type === 'optional' || def.type === 'default' || def.type === 'nullable' || def.type === 'prefault') node = def.innerType;
    else if (def.type === 'pipe') node = def.in;
    else if (def.type === 'union' && def.options) {
      const tag = def.discriminator && value && typeof value === 'object' ? (value as Record<string, unknown>)[def.discriminator] : undefined;
      node = def.options.find((o) => {
        const shape = (o.def as { shape?: Record<string, z.ZodType> }).shape;
        const lit = shape?.[def.discriminator ?? '']?.def as { values?: unknown[] } | undefined;
        return lit?.values?.includes(tag);
      });
    } else return node;
  }
  return node;
}
