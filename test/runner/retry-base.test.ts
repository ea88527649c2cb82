import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';

/**
 * A retry runs today's code. The plan runs tools/make.sh, broken on main when the run starts;
 * a person fixes it on main and retries. The integration branch stood on the first run's
 * commit, so the old script ran again, without a word. Now --retry merges the base's new
 * commits in first and says so; --keep-base keeps the old base, and says that.
 */

const plans = () => ({
  ...specTree([{ id: '01-01', title: 'Make', steps: ['sh tools/make.sh'] }]),
  'tools/make.sh': 'echo broken >&2; exit 3\n',
});

function fixOnMain(root: string): string {
  writeFileSync(join(root, 'tools/make.sh'), 'mkdir -p out && echo made > out/01-01.txt\n');
  git(root, 'commit', '--quiet', '-am', 'fix make.sh');
  return git(root, 'rev-parse', '--short=7', 'HEAD').trim();
}

describe('a retry after the base moved', () => {
  it("takes the base's new commits into the integration branch, says so, and the fixed plan passes", async () => {
    const root = await makeRepo(plans());
    const first = git(root, 'rev-parse', '--short=7', 'HEAD').trim();
    expect((await runCli(['run', SPEC_DIR, '--agent', 'script'], root)).code).toBe(1);
    const fixed = fixOnMain(root);

    const retry = await runCli(['run', SPEC_DIR, '--agent', 'script', '--retry'], root);
    expect(retry.stdout).toContain(
      `main moved since this run started (${first} → ${fixed}): merged its new commits into harness/SPC-007/integration, so the retried plans run today's code`,
    );
    expect(retry.code).toBe(0);
    expect(retry.stdout).toContain('SPC-007: 1/1 plans verified, 1/1 phases verified');
    // The integration branch has the fix.
    expect(git(root, 'merge-base', '--is-ancestor', 'main', 'harness/SPC-007/integration')).toBe('');
  });

  it('keeps the old base with --keep-base, and says so; a plain resume says the base moved and how to take it', async () => {
    const root = await makeRepo(plans());
    const first = git(root, 'rev-parse', '--short=7', 'HEAD').trim();
    expect((await runCli(['run', SPEC_DIR, '--agent', 'script'], root)).code).toBe(1);
    const fixed = fixOnMain(root);

    const resumed = await runCli(['run', SPEC_DIR, '--agent', 'script'], root);
    expect(resumed.stdout).toContain(
      `main moved since this run started (${first} → ${fixed}); the run goes on from ${first}: harness run --retry takes the new commits in`,
    );
    const kept = await runCli(['run', SPEC_DIR, '--agent', 'script', '--retry', '--keep-base'], root);
    expect(kept.stdout).toContain(
      `main moved since this run started (${first} → ${fixed}); --keep-base: plans are retried on ${first}, without its new commits`,
    );
    expect(kept.code).toBe(1);
    expect((await runCli(['run', SPEC_DIR, '--keep-base'], root)).stderr).toContain('--keep-base goes with --retry');
  });

  it('says when the spec it reads has changes not committed', async () => {
    const root = await makeRepo(plans());
    const plan = join(root, SPEC_DIR, 'planning/plans/01-phase/01-01-PLAN.md');
    writeFileSync(
      plan,
      git(root, 'show', `HEAD:${SPEC_DIR}/planning/plans/01-phase/01-01-PLAN.md`).replace('sh tools/make.sh', 'mkdir -p out && echo made > out/01-01.txt'),
    );
    const run = await runCli(['run', SPEC_DIR, '--agent', 'script'], root);
    expect(run.stdout).toContain(
      `uses uncommitted changes to ${SPEC_DIR}/planning/plans/01-phase/01-01-PLAN.md: the spec is read from your checkout as it is, the code from commits`,
    );
  });
});
