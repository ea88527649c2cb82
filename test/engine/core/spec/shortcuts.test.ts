import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRepoPath, checkRepoPathFully, normalizeRepoPath } from '../../../../app/engine/core/spec/paths.js';
import { walkDepth, yamlTooDeep } from '../../../../app/engine/core/spec/yaml-depth.js';
import { normalizeGlob } from '../../../../app/engine/core/graph/glob.js';
import { findClosing } from '../../../../app/engine/core/spec/frontmatter.js';
import { planLocation } from '../../../../app/engine/core/spec/load.js';

/** PROPERTY_RUNS=20 npx vitest run …: twenty times the runs, for a deeper search. */
const SCALE = Number(process.env.PROPERTY_RUNS ?? 1);
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));

// The spec loader settles the common case of some checks by a shortcut (issue 11); each
// must answer exactly as the full check does.

const PATHY = fc.constantFrom(
  'a',
  'src',
  '/',
  '//',
  '.',
  '..',
  '.git',
  '.GIT',
  '.Gi',
  't',
  '*',
  '**',
  '***',
  '?',
  '[a]',
  '{a,b}',
  '{..,x}',
  '@(..)',
  '!',
  '~',
  'C:',
  '\\',
  '\0',
  '-',
  '_',
  '.env',
  'x.ts',
  ' ',
  'é',
  './',
);
const pathArb = fc.oneof(
  fc.array(PATHY, { maxLength: 8 }).map((p) => p.join('')),
  fc
    .array(
      fc.array(PATHY, { minLength: 1, maxLength: 3 }).map((p) => p.join('')),
      { maxLength: 5 },
    )
    .map((s) => s.join('/')),
);

describe('shortcuts of the spec loader agree with the full checks', () => {
  it('checkRepoPath: paths and globs, plain or not', () => {
    fc.assert(
      fc.property(pathArb, fc.constantFrom('path' as const, 'glob' as const), (value, kind) => {
        expect(checkRepoPath(value, kind)).toEqual(checkRepoPathFully(value, kind));
      }),
      { numRuns: runs(20_000) },
    );
    for (const value of ['src/auth/**', 'src/*', 'docs/a-b_c.md', 'src/', 'a/***', 'a/b*', '*/x', '.git/x', 'a/.GIT', 'a//b', '/etc', '']) {
      for (const kind of ['path', 'glob'] as const) expect(checkRepoPath(value, kind)).toEqual(checkRepoPathFully(value, kind));
    }
  });

  it('normalizeRepoPath and normalizeGlob: as the two regex passes', () => {
    fc.assert(
      fc.property(pathArb, (value) => {
        const full = value.replace(/^(\.\/)+/, '').replace(/\/{2,}/g, '/');
        expect(normalizeRepoPath(value)).toBe(full);
        expect(normalizeGlob(value)).toBe(full);
      }),
      { numRuns: runs(5_000) },
    );
  });

  it('yamlTooDeep: the same verdict and line as the walk, at any limit', () => {
    const piece = fc.constantFrom(
      '[',
      ']',
      '{',
      '}',
      '- ',
      '-\t',
      '? ',
      '-',
      '?',
      ' ',
      '\t',
      '\n',
      '\n  ',
      '"',
      "'",
      '#',
      ' #',
      'a',
      ':',
      ', ',
      '"[["',
      '# [[',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), fc.integer({ min: 0, max: 8 }), (pieces, max) => {
        const raw = `\n${pieces.join('')}`;
        expect(yamlTooDeep(raw, max)).toEqual(walkDepth(raw, max));
      }),
      { numRuns: runs(20_000) },
    );
  });

  it('findClosing: the closing fence the regex finds, at the same place and length', () => {
    const CLOSING = /\n(---|\.\.\.)[ \t]*(\n|$)/;
    const piece = fc.constantFrom('\n', '---', '...', '--', '-', '.', ' ', '\t', 'a', '\r', '----', 'x: 1');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.nat(40), (pieces, cut) => {
        const text = pieces.join('');
        const from = Math.min(cut, text.length);
        const m = CLOSING.exec(text.slice(from));
        expect(findClosing(text, from)).toEqual(m ? { index: m.index, length: m[0].length } : undefined);
      }),
      { numRuns: runs(20_000) },
    );
  });

  it('planLocation: what the plan path pattern matches', () => {
    const PLAN_FILE = /^planning\/plans\/([^/]+)\/([^/]+)$/;
    const piece = fc.constantFrom('planning/plans/', 'planning/', 'plans/', '/', '01-a', 'x-PLAN.md', '\n', '', 'b');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (pieces) => {
        const path = pieces.join('');
        const m = PLAN_FILE.exec(path);
        expect(planLocation(path)).toEqual(m ? [m[0], m[1], m[2]] : undefined);
      }),
      { numRuns: runs(10_000) },
    );
  });
});
