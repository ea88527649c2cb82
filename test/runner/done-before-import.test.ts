import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeRepo, SPEC_DIR, specTree, worktreeOf } from '../helpers/repo.js';

/**
 * Plans a GSD SUMMARY.md reported done are imported with `completed:`. harness does not run
 * them, and never says it verified them: `harness status`, the run's last lines and STATUS.md
 * count them apart, as "done before import". (A run of 7 imported plans on a repository with no
 * code had ended "7/7 plans verified, 4/4 phases verified", and STATUS.md said 100%.)
 */

const spec = () =>
  specTree([
    { id: '01-01', title: 'Data model', extra: 'completed: "2026-01-23"', steps: ['mkdir -p out && echo a > out/01-01.txt'] },
    { id: '02-01', title: 'API', dependsOn: ['01-01'], steps: ['mkdir -p out && echo b > out/02-01.txt'] },
  ]);
const statusMd = (root: string) => readFileSync(join(worktreeOf(root, 'SPC-007', 'integration'), SPEC_DIR, 'STATUS.md'), 'utf8');

describe('plans done before import', () => {
  it("are counted apart from what harness verified: status before the run, the run's summary, STATUS.md and status after", async () => {
    const root = await makeRepo(spec());
    const before = await runCli(['status', SPEC_DIR], root);
    expect(before.stdout).toContain('not run yet: harness run docs/specs/SPC-007-test (1 of 2 plans done before import, which it will not run)');

    const run = await runCli(['run', SPEC_DIR, '--agent', 'script'], root);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'SPC-007: 1/2 plans verified (1 more done before import, not run), 1/2 phases verified (1 more done before import, not run)\n',
    );

    const doc = statusMd(root);
    expect(doc).toContain('  plans_verified: 1\n');
    expect(doc).toContain('  plans_done_before_import: 1\n');
    expect(doc).toContain('  phases_done_before_import: 1\n');
    expect(doc).toContain('1/2 plans verified (1 more done before import) · 1/2 phases verified (1 more done before import) · 100%');
    expect(doc).toContain('| 01 | Phase | 0/1 (1 done before import) | done before import |');
    expect((await runCli(['validate', SPEC_DIR], root)).code).toBe(0);

    const after = await runCli(['status', SPEC_DIR], root);
    expect(after.stdout).toContain('complete · 1/2 plans (1 more done before import) · 1/2 phases (1 more done before import) · 100%');
    expect(after.stdout).toContain('Phase 01 · Phase — done before import');
    expect(after.stdout).toContain('  ≡ 01-01 Data model  done before import · completed 2026-01-23; not run or checked by harness');
    expect(after.stdout).toMatch(/ {2}✓ 02-01 API {2}verified/);
    const json = JSON.parse((await runCli(['status', SPEC_DIR, '--json'], root)).stdout) as {
      plans: { id: string; state: string }[];
      progress: Record<string, number>;
    };
    expect(json.plans.map((p) => [p.id, p.state])).toEqual([
      ['01-01', 'done-before-import'],
      ['02-01', 'verified'],
    ]);
    expect(json.progress).toMatchObject({ plansVerified: 1, plansDoneBeforeImport: 1, phasesVerified: 1, phasesDoneBeforeImport: 1, percent: 100 });
  });

  it('leave a run of nothing but them saying it verified nothing', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', title: 'Data model', extra: 'completed: "2026-01-23"', steps: ['false'] }]));
    expect((await runCli(['status', SPEC_DIR], root)).stdout).toContain(
      'not run yet: harness run docs/specs/SPC-007-test (1 of 1 plan done before import, which it will not run)',
    );
    const run = await runCli(['run', SPEC_DIR, '--agent', 'script'], root);
    expect(run.stdout).toContain(
      'SPC-007: 0/1 plans verified (1 more done before import, not run), 0/1 phases verified (1 more done before import, not run)\n',
    );
    expect(statusMd(root)).toContain('  plans_verified: 0\n');
  });
});
