import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../app/cli/io.js';
import { main } from '../../app/cli/main.js';
import type { RetrospectiveJson } from '../../app/cli/commands/retrospective.js';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { git, makeRepo } from '../helpers/repo.js';
import { G, holdoutStore, K, W } from '../helpers/holdout-store.js';

async function harness(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd, env: { PATH: process.env.PATH }, isTTY: false };
  return { code: await main(args, io), stdout, stderr };
}

describe('harness retrospective: the holdout', () => {
  it('compares the plans offered knowledge with the held-out ones, with each interval, and proposes what did no better for retirement', async () => {
    const root = await makeRepo({ '.github/harness.yml': 'knowledge:\n  holdout: 0.3\n', ...(await holdoutStore()) });
    const dry = await harness(['retrospective', '--json', '--dry-run'], root);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    const { holdout } = JSON.parse(dry.stdout) as RetrospectiveJson;
    expect(holdout).toMatchObject({ fraction: 0.3, seed: 'harness', retireAfter: 10, plans: 34 });
    // Figures by hand; the intervals from python3 with scipy 1.17 (Newcombe 17/24 against 9/10; Welch on the attempts and the costs).
    expect(holdout.overall).toEqual({
      withKnowledge: { plans: 24, firstPass: 17, passRate: 0.7083, meanAttempts: 1.25, costed: 10, meanCostUsd: 0.51 },
      heldOut: { plans: 10, firstPass: 9, passRate: 0.9, meanAttempts: 1.1, costed: 10, meanCostUsd: 0.41 },
      passRate: { estimate: -0.1917, low: -0.4079, high: 0.1442 },
      attempts: { estimate: 0.15, low: -0.1284, high: 0.4284 },
      costUsd: { estimate: 0.1, low: -0.1247, high: 0.3247 },
      verdict: 'too-few',
      says: '10 held-out plans: too few to tell; the interval is −0.41 to +0.14',
    });
    expect(holdout.specs.map((s) => [s.spec, s.withKnowledge.plans, s.heldOut.plans, s.verdict])).toEqual([
      ['SPC-001', 0, 10, 'no-comparison'],
      ['SPC-002', 10, 0, 'no-comparison'],
      ['SPC-003', 3, 0, 'no-comparison'],
      ['SPC-004', 10, 0, 'no-comparison'],
      ['SPC-005', 1, 0, 'no-comparison'],
    ]);
    expect(holdout.items.map((i) => [i.path, i.withKnowledge.plans, i.withKnowledge.firstPass, i.passRate!.low, i.passRate!.high, i.retire !== null])).toEqual([
      [G, 10, 10, -0.1894, 0.4042, false],
      [W, 10, 4, -0.7459, -0.0816, true],
      [K, 4, 3, -0.6068, 0.2165, false],
    ]);
    expect(holdout.retire).toEqual([
      {
        path: W,
        kind: 'lesson',
        reason:
          'surfaced into 10 plans, of which 4 passed on their first attempt (40%), against 9 of 10 held-out plans (90%): the difference is −0.50 (95% interval −0.75 to −0.08), so the plans it was in did no better without it',
        written: false,
        skipped: 'dry run',
      },
    ]);
    expect(git(root, 'status', '--porcelain')).toBe('');

    const text = await harness(['retrospective', '--dry-run'], root);
    expect(text.stdout).toContain('The holdout (knowledge.holdout 0.3, seed "harness"): 34 plans on record, 10 held out.');
    expect(text.stdout).toContain('  10 held-out plans: too few to tell; the interval is −0.41 to +0.14.');
    expect(text.stdout).toContain(
      `  lesson ${W}: 10 plans, 4 passed first time (40%); plans with it passed on their first attempt less often: −0.50 in first-attempt pass rate (95% interval −0.75 to −0.08)`,
    );
    expect(text.stdout).toContain(
      `Proposed for retirement (in 10 plans or more, and no better than the held-out ones):\n  lesson ${W}: surfaced into 10 plans`,
    );
    expect(text.stdout).toContain('Dry run: no retirement written.');

    // Written into the store for the person to commit: the lesson marked retired, nothing else.
    const written = JSON.parse((await harness(['retrospective', '--json'], root)).stdout) as RetrospectiveJson;
    expect(written.holdout.retire.map((r) => [r.path, r.written])).toEqual([[W, true]]);
    expect(
      git(root, 'status', '--porcelain')
        .trimEnd()
        .split('\n')
        .filter((l) => !l.includes('trajectory/')),
    ).toEqual([` M .harness/knowledge/${W}`]);
    const lesson = parseKnowledge('lesson', W, await readFile(join(root, '.harness/knowledge', W), 'utf8'));
    expect(lesson.data!.metadata).toMatchObject({
      retired: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      'retired-reason': expect.stringContaining('retired by the holdout comparison: surfaced into 10 plans'),
    });
    // Asked again, a retired lesson is no proposal.
    expect((JSON.parse((await harness(['retrospective', '--json'], root)).stdout) as RetrospectiveJson).holdout.retire).toEqual([]);
  });
});
