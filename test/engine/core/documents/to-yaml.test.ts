/**
 * toYaml reads what it wrote back only when a string could read otherwise under YAML 1.2,
 * and writes what it always wrote: fast-check looks for data where it differs from reading
 * back every time, among strings shaped like YAML's other scalars (numbers in every base,
 * booleans of 1.1 and 1.2, nulls, timestamps, line separators), as values and as keys.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { toYaml } from '../../../../app/engine/core/documents/render-template.js';

const TRICKY = [
  '0o17',
  '0x1F',
  '017',
  '1e3',
  '1E-3',
  '-.5',
  '+12',
  '.inf',
  '-.Inf',
  '.NaN',
  '~',
  'null',
  'Null',
  'NULL',
  '',
  'true',
  'False',
  'yes',
  'No',
  'on',
  'OFF',
  'y',
  'n',
  '1_000',
  '1:20',
  '190:20:30',
  '2026-03-02',
  '2026-03-02T09:14:00Z',
  '01-01',
  '3.14',
  '12.',
  '0.',
  '<<',
  '=',
  '- x',
  'a: b',
  '#c',
  '"q"',
  "'s'",
  'line\nbreak',
  'tab\there',
  'nel\u0085x',
  'ls\u2028x',
  'ps\u2029x',
  'bom\ufeffx',
  'bell\u0007',
  ' lead',
  'trail ',
  '@at',
  '`tick',
  '!tag',
  '&anchor',
  '*alias',
  '%pct',
  '|',
  '>',
];

const scalar = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.string(),
  fc.stringMatching(/^[-+0-9.eExXoO_:a-fA-F ]{0,8}$/),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...TRICKY), fc.string()), tie('node'), { maxKeys: 4 }),
  ),
})).node;

/** What toYaml did before it skipped reading back: read back every time. */
function readBackEveryTime(data: Record<string, unknown>): string {
  const plain = stringify(data, { version: '1.1', lineWidth: 0 });
  if (JSON.stringify(parse(plain)) === JSON.stringify(data)) return plain;
  return stringify(data, { version: '1.1', lineWidth: 0, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' });
}

describe('toYaml', () => {
  it('writes what reading back every time writes', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.oneof(fc.constantFrom(...TRICKY), fc.string()), value, { maxKeys: 6 }), (data) => {
        expect(toYaml(data)).toBe(readBackEveryTime(data));
      }),
      { numRuns: 5000 },
    );
  });

  it('writes data without such strings as it reads back', () => {
    const data = {
      plan_id: '01-01',
      started: '2026-03-02T09:14:00Z',
      title: 'A plan: with # and "quotes"',
      files: ['src/a.ts', 'b c.md'],
      n: 3,
      ok: true,
      none: null,
    };
    expect(JSON.stringify(parse(toYaml(data)))).toBe(JSON.stringify(data));
  });
});
