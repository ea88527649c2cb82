import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fastParse } from '../../../../app/engine/core/spec/schema-fast.js';
import { CheckSchema, PlanFrontmatterSchema, RoadmapFrontmatterSchema, ServeSchema, SpecFrontmatterSchema } from '../../../../app/engine/core/spec/schema.js';
import { parseFrontmatter } from '../../../../app/engine/core/spec/frontmatter.js';
import { generateSpec } from '../../../../bench/spec-gen.js';

/** PROPERTY_RUNS=20 npx vitest run …: twenty times the runs, for a deeper search. */
const SCALE = Number(process.env.PROPERTY_RUNS ?? 1);
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));

/**
 * The fast path may only ever give what zod gives: when it vouches for data, zod takes the
 * data too and parses it to the same value, keys in the same order; otherwise it says
 * nothing and zod decides.
 */
function agrees(schema: z.ZodType, data: unknown): boolean {
  const fast = fastParse(schema, data);
  if (fast === undefined) return false;
  const slow = schema.safeParse(data);
  expect(slow.success, JSON.stringify(data)).toBe(true);
  expect(fast).toStrictEqual(slow.data);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(slow.data));
  return true;
}

const VALID_CHECKS: Record<string, unknown>[] = [
  { id: 'tests', type: 'tests_pass', command: 'npm test' },
  { id: 'build', type: 'build_succeeds', command: 'npm run build', cwd: 'app', timeout_seconds: 600 },
  { id: 'exists', type: 'file_exists', path: 'src/a.ts', description: 'the module' },
  { id: 'has', type: 'file_contains', path: 'src/a.ts', pattern: 'export \\w+' },
  { id: 'has2', type: 'file_contains', path: 'src/a.ts', contains: 'x' },
  { id: 'out', type: 'command_output', command: 'node x', expect: { exit_code: 0, contains: 'ok', matches: 'o+k' } },
  { id: 'out2', type: 'command_output', command: 'node x', expect: {} },
  { id: 'api', type: 'api_response', request: 'GET /health', expect: { status: 200, body_contains: 'ok', json: { a: [1] } }, body: { q: 1 } },
  { id: 'ui', type: 'ui_element_exists', url: '/', selector: '#app', text: 'Hi' },
  { id: 'nav', type: 'ui_navigation', url: '/', steps: [{ goto: '/a' }, { click: 'b' }, { fill: 'c', value: 'd' }, { press: 'e', key: 'Enter' }, { wait_for: 'f' }], expect: { url: '/x' } },
  { id: 'look', type: 'human', kind: 'visual_quality', prompt: 'Looks right?' },
  { id: 'look2', type: 'visual_quality', prompt: 'Looks right?' },
  { id: 'flow', type: 'ux_flow', prompt: 'Flows?' },
  { id: 'art', type: 'artifact', path: 'src/a.ts', provides: 'x', min_lines: 10, exports: ['a'], contains: 'b' },
  { id: 'link', type: 'key_link', from: 'src/a.ts', to: 'src/b.ts', via: 'import', pattern: 'import' },
];

const BASE_PLAN: Record<string, unknown> = {
  plan_id: '01-02',
  title: 'Add the login endpoint',
  depends_on: ['01-01'],
  files_modified: ['src/auth/login.ts', 'src/auth/**'],
  files_read: ['src/shared/db.ts'],
  autonomous: true,
  checkpoints: ['decision'],
  agent: 'claude',
  timeout_minutes: 45,
  must_pass: VALID_CHECKS.slice(0, 3),
  budget_usd: 2.5,
  serve: { command: 'npm start', url: 'http://127.0.0.1:3000', ready_path: '/health', timeout_seconds: 30 },
  requirements: ['REQ-1'],
  truths: ['a user can log in'],
  completed: '2026-01-02',
  wave: 2,
  type: 'execute',
};

/** Values of every kind, near the schema's bounds and beyond them. */
const ODD = [
  '', ' ', 'x', 'é', '\u{1f600}', '\ud83d', 'a\nb', 'a\u0000b', 'x'.repeat(200), 'x'.repeat(201), '\u{1f600}'.repeat(100), '\u{1f600}'.repeat(101),
  '01-01', '1-1', '001-00001', '01-123456', 'claude', 'Claude', 'decision', 'review', 'GET /x', 'GET', 'http://h', 'ftp://h', 'tests_pass', 'human',
  0, 1, -1, 1.5, 30, 360, 361, 600, 601, 255, 256, 99, 100, 599, 600, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 2 ** 53 - 1, -0,
  true, false, null, undefined, [], [''], ['01-01', '01-01'], [1], {}, { a: 1 }, { command: 'x', url: 'http://h' },
];
const oddArb = fc.constantFrom(...ODD);
const keyArb = fc.constantFrom(...Object.keys(BASE_PLAN), 'metadata', 'unknown_key', '__proto__', 'constructor', 'toString');

type Edit = { key: string; value: unknown } | { key: string; drop: true } | { check: number; field: string; value: unknown } | { check: number; field: string; drop: true };
const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ key: keyArb, value: oddArb }),
  fc.record({ key: keyArb, drop: fc.constant(true as const) }),
  fc.record({ check: fc.nat(20), field: fc.constantFrom('id', 'type', 'command', 'path', 'pattern', 'contains', 'expect', 'timeout_seconds', 'kind', 'prompt', 'steps', 'request', 'url', 'extra'), value: oddArb }),
  fc.record({ check: fc.nat(20), field: fc.constantFrom('id', 'type', 'command', 'path', 'expect', 'prompt'), drop: fc.constant(true as const) }),
);

function edited(base: Record<string, unknown>, checks: Record<string, unknown>[], edits: Edit[]): Record<string, unknown> {
  const data: Record<string, unknown> = { ...base, must_pass: checks.map((c) => structuredClone(c)) };
  for (const e of edits) {
    if ('check' in e) {
      const list = data.must_pass;
      if (!Array.isArray(list) || list.length === 0) continue;
      const check = list[e.check % list.length] as Record<string, unknown>;
      if (!check || typeof check !== 'object') continue;
      if ('drop' in e) delete check[e.field];
      else check[e.field] = e.value;
    } else if ('drop' in e) delete data[e.key];
    else if (e.key === '__proto__') Object.defineProperty(data, '__proto__', { value: e.value, enumerable: true, configurable: true, writable: true });
    else data[e.key] = e.value;
  }
  return data;
}

describe('fastParse: the fast schema check gives what zod gives, or nothing', () => {
  it('agrees with zod on plan frontmatter, valid and broken', () => {
    let vouched = 0;
    fc.assert(
      fc.property(fc.subarray(VALID_CHECKS, { minLength: 0 }), fc.array(editArb, { maxLength: 4 }), (checks, edits) => {
        if (agrees(PlanFrontmatterSchema, edited(BASE_PLAN, checks, edits))) vouched++;
      }),
      { numRuns: runs(3000) },
    );
    expect(vouched).toBeGreaterThan(runs(300));
  });

  it('agrees with zod on every single edit of a plan or of one of its checks: each key, each odd value', () => {
    const keys = [...Object.keys(BASE_PLAN), 'metadata', 'unknown_key', 'constructor'];
    for (const key of keys) {
      for (const value of ODD) agrees(PlanFrontmatterSchema, edited(BASE_PLAN, VALID_CHECKS.slice(0, 3), [{ key, value }]));
      agrees(PlanFrontmatterSchema, edited(BASE_PLAN, VALID_CHECKS.slice(0, 3), [{ key, drop: true }]));
    }
    const fields = [...new Set(VALID_CHECKS.flatMap((c) => Object.keys(c))), 'extra'];
    for (const check of VALID_CHECKS) {
      for (const field of fields) {
        for (const value of ODD) agrees(CheckSchema, { ...check, [field]: value });
        const { [field]: _dropped, ...rest } = check;
        agrees(CheckSchema, rest);
      }
    }
  });

  it('agrees with zod on every kind of check, one by one', () => {
    fc.assert(
      fc.property(fc.constantFrom(...VALID_CHECKS), fc.array(editArb, { maxLength: 3 }), (check, edits) => {
        const onCheck = edits.flatMap((e) => ('check' in e ? [{ ...e, check: 0 }] : []));
        const [one] = edited({}, [check], onCheck).must_pass as unknown[];
        agrees(CheckSchema, one);
      }),
      { numRuns: runs(2000) },
    );
    for (const check of VALID_CHECKS) expect(agrees(CheckSchema, check), JSON.stringify(check)).toBe(true);
  });

  it('vouches for the plans of a generated spec, as their text parses, and for a plain plan with defaults left out', () => {
    const generated = generateSpec({ plans: 200, phases: 4, edges: 600 });
    for (const [path, text] of generated.files) {
      if (!path.endsWith('-PLAN.md')) continue;
      const fm = parseFrontmatter(path, text);
      expect(fm.ok).toBe(true);
      if (fm.ok) expect(agrees(PlanFrontmatterSchema, fm.frontmatter.data), path).toBe(true);
    }
    expect(agrees(PlanFrontmatterSchema, { plan_id: '01-01', title: 'T' })).toBe(true);
    expect(agrees(PlanFrontmatterSchema, BASE_PLAN)).toBe(true);
  });

  it('gives defaults fresh each time, as zod does', () => {
    const a = fastParse(PlanFrontmatterSchema, { plan_id: '01-01', title: 'T' })!;
    const b = fastParse(PlanFrontmatterSchema, { plan_id: '01-01', title: 'T' })!;
    expect(a.depends_on).toEqual([]);
    expect(a.depends_on).not.toBe(b.depends_on);
  });

  it('leaves to zod what it does not know: records, transforms, loose objects', () => {
    expect(fastParse(PlanFrontmatterSchema, { plan_id: '01-01', title: 'T', metadata: { a: 1 } })).toBeUndefined();
    expect(fastParse(RoadmapFrontmatterSchema, { phases: [{ id: '01', title: 'A' }] })).toBeUndefined();
    expect(fastParse(SpecFrontmatterSchema, { id: 'SPC-001', title: 'A' })).toBeUndefined();
    expect(agrees(ServeSchema, { command: 'npm start', url: 'http://127.0.0.1:3000' })).toBe(true);
  });
});

/**
 * schema-fast.ts reads zod's private definitions (`_zod.def`, `_zod.optin`, `_zod.values`,
 * `_zod.propValues`), which zod may lay out otherwise in any release: package.json pins zod
 * to one version, and these say, by name, what the fast path relies on. When one fails after
 * a zod upgrade, the fast path reads what is no longer there: mend schema-fast.ts for the new
 * layout (or drop the construct it no longer understands) before moving the pin.
 */
describe("fastParse: zod's private layout, as the pinned zod has it", () => {
  const zodOf = (schema: unknown) => (schema as { _zod: { def: Record<string, unknown>; optin?: string; optout?: string; values?: Set<unknown>; propValues?: Record<string, Set<unknown>> } })._zod;
  const checkDef = (check: unknown) => zodOf(check).def;

  it('pins zod to exactly the version installed', () => {
    const pinned = (JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> }).dependencies.zod;
    const installed = (JSON.parse(readFileSync(new URL('../../../../node_modules/zod/package.json', import.meta.url), 'utf8')) as { version: string }).version;
    expect(pinned, 'schema-fast.ts reads zod internals: pin zod exactly ("4.6.7", not "^4.6.7")').toMatch(/^\d+\.\d+\.\d+$/);
    expect(installed, `zod ${installed} is installed where ${pinned} is pinned: run npm install`).toBe(pinned);
  });

  it('finds strict objects, their keys, and optional and defaulted fields where it reads them', () => {
    const object = z.object({ a: z.string(), b: z.string().optional(), c: z.number().default(1) }).strict();
    const def = zodOf(object).def;
    expect(def.type).toBe('object');
    expect(Object.keys(def.shape as object)).toEqual(['a', 'b', 'c']);
    expect(zodOf(def.catchall).def.type).toBe('never');
    const shape = def.shape as Record<string, unknown>;
    expect([zodOf(shape.a).optin, zodOf(shape.b).optin, zodOf(shape.b).optout, zodOf(shape.c).optin, zodOf(shape.c).optout]).toEqual([undefined, 'optional', 'optional', 'defaulted', undefined]);
    expect(zodOf(shape.b).def).toMatchObject({ type: 'optional' });
    expect(zodOf(shape.c).def).toMatchObject({ type: 'default', defaultValue: 1 });
    expect(zodOf(zodOf(shape.c).def.innerType).def.type).toBe('number');
    expect(fastParse(object, { a: 'x' })).toEqual({ a: 'x', c: 1 });
  });

  it('finds string, number and array checks by name, with their bounds and patterns', () => {
    const [min, max, pattern] = (zodOf(z.string().min(1).max(200).regex(/^x/)).def.checks as unknown[]).map(checkDef);
    expect(min).toMatchObject({ check: 'min_length', minimum: 1 });
    expect(max).toMatchObject({ check: 'max_length', maximum: 200 });
    expect(pattern).toMatchObject({ check: 'string_format', format: 'regex', pattern: /^x/ });
    const [integer, positive, atMost] = (zodOf(z.number().int().positive().max(600)).def.checks as unknown[]).map(checkDef);
    expect(integer).toMatchObject({ check: 'number_format', format: 'safeint' });
    expect(positive).toMatchObject({ check: 'greater_than', value: 0, inclusive: false });
    expect(atMost).toMatchObject({ check: 'less_than', value: 600, inclusive: true });
    const array = z.array(z.string()).min(1);
    expect(zodOf(array).def).toMatchObject({ type: 'array' });
    expect(zodOf(zodOf(array).def.element).def.type).toBe('string');
    expect(checkDef((zodOf(array).def.checks as unknown[])[0])).toMatchObject({ check: 'min_length', minimum: 1 });
    expect(fastParse(z.number().int().positive().max(600), 30)).toBe(30);
  });

  it('finds the values of enums and literals, and the options of unions and discriminated unions', () => {
    expect(zodOf(z.enum(['a', 'b'])).values).toEqual(new Set(['a', 'b']));
    expect(zodOf(z.literal('x')).values).toEqual(new Set(['x']));
    const union = z.union([z.string(), z.number()]);
    expect(zodOf(union).def).toMatchObject({ type: 'union' });
    expect((zodOf(union).def.options as unknown[]).length).toBe(2);
    const tagged = z.discriminatedUnion('type', [z.object({ type: z.literal('a') }).strict(), z.object({ type: z.literal('b'), n: z.number() }).strict()]);
    expect(zodOf(tagged).def).toMatchObject({ type: 'union', discriminator: 'type' });
    expect((zodOf(tagged).def.options as unknown[]).map((o) => zodOf(o).propValues?.type)).toEqual([new Set(['a']), new Set(['b'])]);
    expect(fastParse(tagged, { type: 'b', n: 1 })).toEqual({ type: 'b', n: 1 });
  });
});
