import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';

/**
 * A failed run ends with what to do next, and `harness status` says the same: the check that
 * failed and what it saw, the log to read, and the command that retries. (It had said only
 * "01-02 blocked: 01-01 failed" and "next: harness status".)
 */

describe('after a failure', () => {
  it('the run and harness status name the failed check, the log and the retry; a blocked plan points to them', async () => {
    const root = await makeRepo(
      specTree([
        { id: '01-01', title: 'Writer', files: ['out/01-01.txt'], steps: ['mkdir -p out && echo a > out/wrong.txt'] },
        { id: '01-02', title: 'Reader', dependsOn: ['01-01'], steps: ['mkdir -p out && echo b > out/01-02.txt'] },
      ]),
    );
    const run = await runCli(['run', SPEC_DIR, '--agent', 'script'], root);
    expect(run.code).toBe(1);
    const steps = [
      '01-01 failed: plan 01-01 did not pass verification: 1 check failed: made (out/01-01.txt does not exist)',
      'check made (file_exists) failed: out/01-01.txt does not exist',
      'log:   .orchestration/SPC-007/sessions/01-01/logs/step-1.log',
      `retry: harness run ${SPEC_DIR} --plan 01-01 --retry`,
      `blocked until the failures above pass: 01-02 (harness run ${SPEC_DIR} --retry retries them all)`,
    ];
    const tail = run.stdout.slice(run.stdout.indexOf('  next:'));
    expect(tail.split('\n').map((l) => l.trim())).toEqual(['next:', ...steps, '']);
    expect(run.stdout).not.toContain('next: harness status');

    const status = await runCli(['status', SPEC_DIR], root);
    const next = status.stdout.slice(status.stdout.indexOf('Next:\n'));
    expect(
      next
        .split('\n')
        .slice(1, 6)
        .map((l) => l.trim()),
    ).toEqual(steps);
  });
});
