/**
 * A fast path for checking frontmatter against a zod schema. zod builds an issue list, a
 * payload and a result object for every value it looks at, which made schema checks a
 * tenth of loading a large spec; frontmatter is nearly always valid, and then all that is
 * wanted is the parsed value. `fastParser(schema)` reads the schema's definition once and
 * returns a function that gives exactly what `schema.safeParse(data).data` would, when it
 * can be sure the data is valid, and undefined otherwise: for invalid data, or any
 * construct it does not know (records, transforms, refinements, other checks, loose
 * objects), the caller asks zod, which also words every problem. So nothing but the time
 * changes: the messages, their lines and the data are zod's (test/engine/core/spec/
 * schema-fast.test.ts checks the two against each other on generated and mutated plans).
 *
 * What it knows, read from zod's own definitions so that a changed bound or pattern is
 * followed: strict objects (required, optional and defaulted keys, in the schema's key
 * order), arrays, strings, numbers and booleans with the length, pattern, bound and
 * integer checks, enums and literals, unknown, discriminated unions, and unions (zod
 * returns the first option that succeeds: options that certainly fail are passed over, and
 * the first other one decides).
 *
 * Those definitions are zod's private layout, which any zod release may change: package.json
 * pins zod exactly, and schema-fast.test.ts names each field read here, so an upgrade that
 * moves one fails there first.
 */
import type { z } from 'zod';

/** Not known to be valid: ask zod. */
const UNSURE: unique symbol = Symbol('unsure');
type Fast = (input: unknown) => unknown;

const unsure: Fast = () => UNSURE;

interface Internals {
  def: Record<string, unknown> & { type: string };
  optin?: 'optional' | 'defaulted';
  optout?: 'optional';
  values?: Set<unknown>;
  propValues?: Record<string, Set<unknown>>;
  check?: unknown;
}

function internals(schema: unknown): Internals {
  return (schema as { _zod: Internals })._zod;
}

const compiled = new WeakMap<object, (input: unknown) => unknown>();

/**
 * `schema.safeParse(input).data` when `input` is certainly valid, else undefined (then ask
 * zod). Compiled once per schema.
 */
export function fastParse<T extends z.ZodType>(schema: T, input: unknown): z.output<T> | undefined {
  let fast = compiled.get(schema);
  if (!fast) {
    fast = compile(schema);
    compiled.set(schema, fast);
  }
  const out = fast(input);
  return out === UNSURE ? undefined : (out as z.output<T>);
}

function compile(schema: unknown): Fast {
  const zod = internals(schema);
  const def = zod.def;
  const checks = (def.checks as unknown[] | undefined) ?? [];
  if (def.coerce) return unsure;
  switch (def.type) {
    case 'string': {
      const test = compileChecks(checks);
      if (!test) return unsure;
      return (v) => (typeof v === 'string' && test(v as never) ? v : UNSURE);
    }
    case 'number': {
      const test = compileChecks(checks);
      if (!test) return unsure;
      // zod takes no NaN and no infinity.
      return (v) => (typeof v === 'number' && Number.isFinite(v) && test(v as never) ? v : UNSURE);
    }
    case 'boolean':
      if (checks.length > 0) return unsure;
      return (v) => (typeof v === 'boolean' ? v : UNSURE);
    case 'enum':
    case 'literal': {
      // The very set zod tests against.
      const values = zod.values;
      if (!values || checks.length > 0) return unsure;
      return (v) => (values.has(v) ? v : UNSURE);
    }
    case 'unknown':
      if (checks.length > 0) return unsure;
      return (v) => v;
    case 'optional': {
      const inner = def.innerType;
      // An optional around a default substitutes for absence: not known here.
      if (internals(inner).optin === 'defaulted' || checks.length > 0) return unsure;
      const f = compile(inner);
      return (v) => (v === undefined ? undefined : f(v));
    }
    case 'default': {
      if (checks.length > 0) return unsure;
      const f = compile(def.innerType);
      // As zod: the default is read from the definition each time, and not checked.
      return (v) => {
        if (v === undefined) return def.defaultValue;
        const r = f(v);
        return r === undefined ? def.defaultValue : r;
      };
    }
    case 'array': {
      const test = compileChecks(checks);
      if (!test) return unsure;
      const element = compile(def.element);
      return (v) => {
        if (!Array.isArray(v) || !test(v as never)) return UNSURE;
        const out: unknown[] = [];
        for (let i = 0; i < v.length; i++) {
          const r = element(v[i]);
          if (r === UNSURE) return UNSURE;
          out.push(r);
        }
        return out;
      };
    }
    case 'object':
      return compileObject(def, checks);
    case 'union':
      return compileUnion(def, checks);
    default:
      return unsure;
  }
}

/** A strict object: its keys in the schema's order, each required, optional or defaulted. */
function compileObject(def: Internals['def'], checks: unknown[]): Fast {
  const catchall = def.catchall as unknown;
  if (checks.length > 0 || !catchall || internals(catchall).def.type !== 'never') return unsure;
  const shape = def.shape as Record<string, unknown>;
  if (Object.getOwnPropertySymbols(shape).length > 0) return unsure;
  const keys = Object.keys(shape);
  if (keys.includes('__proto__')) return unsure;
  const known = new Set(keys);
  const REQUIRED = 0;
  const OPTIONAL = 1;
  const DEFAULTED = 2;
  const modes: number[] = [];
  const fields: Fast[] = [];
  for (const key of keys) {
    const field = internals(shape[key]);
    if (field.optin === undefined) modes.push(REQUIRED);
    else if (field.optin === 'optional' && field.optout === 'optional') modes.push(OPTIONAL);
    else if (field.optin === 'defaulted' && field.optout === undefined) modes.push(DEFAULTED);
    else return unsure;
    fields.push(compile(shape[key]));
  }
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return UNSURE;
    const input = v as Record<string, unknown>;
    // Every key must be the schema's (strict); for...in, as zod reads them.
    for (const key in input) if (!known.has(key)) return UNSURE;
    const out: Record<string, unknown> = {};
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const mode = modes[k]!;
      const present = key in input;
      // An optional key that is absent adds nothing; a required one that is absent is a problem.
      if (!present && mode !== DEFAULTED) {
        if (mode === OPTIONAL) continue;
        return UNSURE;
      }
      const r = fields[k]!(input[key]);
      if (r === UNSURE) return UNSURE;
      out[key] = r;
    }
    return out;
  };
}

function compileUnion(def: Internals['def'], checks: unknown[]): Fast {
  const options = def.options as unknown[];
  if (checks.length > 0 || options.length === 0) return unsure;
  const discriminator = def.discriminator as string | undefined;
  if (discriminator === undefined) {
    // zod returns the first option that succeeds. Options that certainly fail (a strict
    // object that lacks a required key or has one of another) are passed over; the first
    // other one decides, and when it cannot vouch, nothing is known.
    const tried = options.map((option) => ({ fast: compile(option), rejects: rejecter(option) }));
    return (v) => {
      for (const option of tried) if (!option.rejects(v)) return option.fast(v);
      return UNSURE;
    };
  }
  // Each value of the discriminator picks the one option that has it, as zod picks.
  const byValue = new Map<unknown, Fast>();
  for (const option of options) {
    const values = internals(option).propValues?.[discriminator];
    if (!values || values.has(undefined)) return unsure;
    const f = compile(option);
    for (const value of values) {
      if (byValue.has(value)) return unsure;
      byValue.set(value, f);
    }
  }
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return UNSURE;
    const f = byValue.get((v as Record<string, unknown>)[discriminator]);
    return f ? f(v) : UNSURE;
  };
}

/** A test that is true only when zod certainly rejects the input: for a strict object, by its keys. */
function rejecter(schema: unknown): (input: unknown) => boolean {
  const def = internals(schema).def;
  const catchall = def.catchall as unknown;
  if (def.type !== 'object' || !catchall || internals(catchall).def.type !== 'never') return () => false;
  const shape = def.shape as Record<string, unknown>;
  const keys = new Set(Object.keys(shape));
  const required = [...keys].filter((key) => internals(shape[key]).optin === undefined);
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return true;
    for (const key in v) if (!keys.has(key)) return true;
    for (const key of required) if (!(key in v)) return true;
    return false;
  };
}

/** All of a schema's checks as one test, or undefined when one of them is not known here. */
function compileChecks(checks: unknown[]): ((v: never) => boolean) | undefined {
  const tests: ((v: never) => boolean)[] = [];
  for (const check of checks) {
    const def = internals(check).def as Record<string, unknown>;
    switch (def.check) {
      case 'min_length': {
        const min = def.minimum as number;
        // zod counts a string's code points where the code units alone do not decide.
        tests.push((v: string | unknown[]) => {
          const units = v.length;
          return (typeof v === 'string' && units >= min && units < min * 2 ? codePointLength(v) : units) >= min;
        });
        break;
      }
      case 'max_length': {
        const max = def.maximum as number;
        tests.push((v: string | unknown[]) => {
          const units = v.length;
          return (typeof v === 'string' && units > max ? codePointLength(v) : units) <= max;
        });
        break;
      }
      case 'string_format': {
        const pattern = def.pattern;
        if (def.format !== 'regex' || !(pattern instanceof RegExp)) return undefined;
        tests.push((v: string) => {
          pattern.lastIndex = 0;
          return pattern.test(v);
        });
        break;
      }
      case 'greater_than': {
        const bound = def.value;
        if (typeof bound !== 'number') return undefined;
        tests.push(def.inclusive ? (v: number) => v >= bound : (v: number) => v > bound);
        break;
      }
      case 'less_than': {
        const bound = def.value;
        if (typeof bound !== 'number') return undefined;
        tests.push(def.inclusive ? (v: number) => v <= bound : (v: number) => v < bound);
        break;
      }
      case 'number_format':
        if (def.format !== 'safeint') return undefined;
        tests.push((v: number) => Number.isSafeInteger(v));
        break;
      default:
        return undefined;
    }
  }
  if (tests.length === 0) return () => true;
  if (tests.length === 1) return tests[0];
  return (v) => {
    for (const test of tests) if (!test(v)) return false;
    return true;
  };
}

const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

/** A string's length in code points, as zod counts it. */
function codePointLength(s: string): number {
  const units = s.length;
  if (!HIGH_SURROGATE.test(s)) return units;
  let count = units;
  for (let i = 0; i < units - 1; i++) {
    if ((s.charCodeAt(i) & 0xfc00) === 0xd800 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}
