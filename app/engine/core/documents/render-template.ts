import { LRUCache } from 'lru-cache';
import { parse, stringify } from 'yaml';
import { HarnessError } from '../error.js';

/** A template that cannot be rendered as asked: a placeholder left without a value, or bad YAML. */
export class TemplateError extends HarnessError {
  constructor(
    message: string,
    /** Placeholder names that were given no value. */
    readonly missing: readonly string[] = [],
  ) {
    super(message);
  }
}

/** `{{name}}` in a template body; `${{ ... }}` (an Actions expression) is left alone. */
const PLACEHOLDER = /(?<!\$)\{\{\s*([A-Za-z][A-Za-z0-9_.-]*)\s*\}\}/g;
const OPENING = /^---[ \t]*$/;
const CLOSING = /\n(?:---|\.\.\.)[ \t]*(?:\n|$)/;

interface Split {
  /** The YAML between the fences, or undefined when the template has no frontmatter. */
  yaml: string | undefined;
  body: string;
}

function split(text: string): Split {
  const firstEnd = text.indexOf('\n');
  if (firstEnd === -1 || !OPENING.test(text.slice(0, firstEnd))) return { yaml: undefined, body: text };
  const rest = text.slice(firstEnd);
  const close = CLOSING.exec(rest);
  if (!close) throw new TemplateError('the template\'s frontmatter is never closed: add a line "---" after the last key');
  return { yaml: rest.slice(1, close.index + 1), body: rest.slice(close.index + close[0].length) };
}

/** The placeholder names in a template's body, each once, in order of appearance. */
export function templatePlaceholders(templateText: string): string[] {
  const { body } = split(templateText.replace(/\r\n?/g, '\n'));
  return [...new Set([...body.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/**
 * Render a template: its frontmatter is replaced by `frontmatter` (keys in the template's
 * order first, then the rest in the order given; `undefined` values are left out), and every
 * `{{name}}` in its body by `values[name]`. A placeholder without a value is an error, so
 * nothing half-filled is ever written. Pure: text in, text out.
 */
export function renderTemplate(templateText: string, frontmatter: Record<string, unknown>, values: Record<string, string>): string {
  const { yaml, body } = split(templateText.replace(/\r\n?/g, '\n'));
  const shape = yaml === undefined ? undefined : frontmatterShape(yaml);

  const missing = new Set<string>();
  const filled = body.replace(PLACEHOLDER, (whole, name: string) => {
    if (Object.hasOwn(values, name)) return values[name]!;
    missing.add(name);
    return whole;
  });
  if (missing.size > 0) {
    const names = [...missing];
    throw new TemplateError(`no value for ${names.map((n) => `{{${n}}}`).join(', ')}; pass one for each placeholder`, names);
  }

  const data = orderLike(frontmatter, shape) as Record<string, unknown>;
  if (yaml === undefined && Object.keys(data).length === 0) return filled;
  return `---\n${toYaml(data)}---\n${filled}`;
}

/**
 * A template's frontmatter, parsed once: a run renders the same few templates for every plan
 * (SUMMARY.md, STATUS.md), and the shape is only read.
 */
const shapes = new LRUCache<string, { shape: unknown }>({ max: 64 });

function frontmatterShape(yaml: string): unknown {
  const kept = shapes.get(yaml);
  if (kept) return kept.shape;
  let shape: unknown;
  try {
    shape = parse(yaml);
  } catch (e) {
    throw new TemplateError(`the template's frontmatter is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  shapes.set(yaml, { shape });
  return shape;
}

/**
 * YAML that reads back as the same data under YAML 1.2 (harness) and 1.1 (PyYAML in Agent
 * Skills tools, among others): 1.1 rules quote 2026-03-02, "yes" and "01"; the few strings
 * only 1.2 would misread (0o17) make every string quoted.
 */
export function toYaml(data: Record<string, unknown>): string {
  const plain = stringify(data, { version: '1.1', lineWidth: 0 });
  // Reading it back is most of the cost, and only a string YAML 1.2 could take for something else can fail it.
  if (!readsOtherwise(data)) return plain;
  if (JSON.stringify(parse(plain)) === JSON.stringify(data)) return plain;
  return stringify(data, { version: '1.1', lineWidth: 0, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' });
}

/**
 * Scalars YAML 1.2's core schema reads as something other than a string (null, booleans,
 * integers in any base, floats, .inf and .nan), and characters YAML 1.1 and 1.2 break lines
 * on differently (or that are escaped): a string like one of these, as a value or a key,
 * is what 1.1 rules may leave unquoted and 1.2 read otherwise.
 */
const CORE_NOT_STRING = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^[-+]?[0-9]+$/,
  /^0o[0-7]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/,
  /^[-+]?\.(?:inf|Inf|INF)$/,
  /^\.(?:nan|NaN|NAN)$/,
];
// eslint-disable-next-line no-control-regex
const UNUSUAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;

/**
 * Whether a string like 1.2's other scalars reads back as itself, written as a value or as
 * a key by 1.1 rules (which quote most of them: "01", "1e3", "true"; not "0o17"): kept, as
 * a run writes the same few (phase ids) over and over.
 */
const verdicts = new LRUCache<string, boolean>({ max: 256 });

function scalarReadsOtherwise(text: string, key: boolean): boolean {
  if (UNUSUAL.test(text)) return true;
  if (!CORE_NOT_STRING.some((re) => re.test(text))) return false;
  const id = `${key ? 'k' : 'v'}${text}`;
  let verdict = verdicts.get(id);
  if (verdict === undefined) {
    const options = { version: '1.1', lineWidth: 0 } as const;
    const back: unknown = key ? Object.keys((parse(stringify({ [text]: 0 }, options)) as object | null) ?? {})[0] : parse(stringify(text, options));
    verdict = back !== text;
    verdicts.set(id, verdict);
  }
  return verdict;
}

/** Could `data`, written by YAML 1.1 rules, read back otherwise under 1.2? Only then is it read back to see. */
function readsOtherwise(data: unknown): boolean {
  if (typeof data === 'string') return scalarReadsOtherwise(data, false);
  if (data === null || typeof data === 'boolean') return false;
  if (typeof data === 'number') return !Number.isFinite(data);
  if (Array.isArray(data)) {
    // A loop, not some(): a hole is read too (as undefined, which is not written as it is).
    for (let i = 0; i < data.length; i++) if (readsOtherwise(data[i])) return true;
    return false;
  }
  if (isPlainObject(data) && Object.getPrototypeOf(data) === Object.prototype)
    return Object.entries(data).some(([k, v]) => scalarReadsOtherwise(k, true) || readsOtherwise(v));
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/** A copy of `value` whose mappings list `shape`'s keys first, with Dates as ISO strings. */
function orderLike(value: unknown, shape: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) {
    const itemShape = Array.isArray(shape) ? shape[0] : undefined;
    return value.map((item) => orderLike(item, itemShape));
  }
  if (!isPlainObject(value)) return value;
  const template = isPlainObject(shape) ? shape : {};
  const keys = [...Object.keys(template).filter((k) => Object.hasOwn(value, k)), ...Object.keys(value).filter((k) => !Object.hasOwn(template, k))];
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    if (value[key] === undefined) continue;
    out[key] = orderLike(value[key], template[key]);
  }
  return out;
}
