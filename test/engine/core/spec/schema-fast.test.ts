import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
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
