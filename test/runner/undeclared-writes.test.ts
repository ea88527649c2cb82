import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo, SPEC_DIR, specTree, worktreeOf } from '../helpers/repo.js';

/**
 * A write outside `files_modified` (issue 36): the scheduler keeps parallel plans apart only by
 * their declared files, so such a write is a deviation recorded where people look (the plan's
 * SUMMARY and the run's STATUS.md), and with `strict_files: true` in .github/harness.yml it
 * fails the plan instead. Through `harness run` on real git.
 */

const integration = (root: string) => worktreeOf(root, 'SPC-007', 'integration');
const doc = (root: string, path: string) => readFileSync(join(integration(root), SPEC_DIR, path), 'utf8');
const STEP = 'mkdir -p out src && echo done > out/01-01.txt && echo "export const shared = 1;" > src/shared.ts';

describe('a plan that writes outside its files_modified', () => {
  it('is merged with the write recorded as a deviation, in its SUMMARY and in STATUS.md', async () => {
    const root = await makeRepo({ ...specTree([{ id: '01-01', steps: [STEP] }]), '.github/harness.yml': 'agent: script\n' });
    const r = await runCli(['run', SPEC_DIR], root);
    expect(r.code).toBe(0);
    expect(doc(root, 'execution/phases/01-phase/01-01-SUMMARY.md')).toContain('Changed a file outside files_modified: src/shared.ts.');
    expect(doc(root, 'STATUS.md')).toContain('01-01 verified and merged; deviation: wrote outside files_modified: src/shared.ts');
  });

  it('with strict_files: true, fails the plan naming the file, and merges nothing', async () => {
    const root = await makeRepo({ ...specTree([{ id: '01-01', steps: [STEP] }]), '.github/harness.yml': 'agent: script\nstrict_files: true\n' });
    const r = await runCli(['run', SPEC_DIR], root);
    expect(r.code).toBe(1);
    expect(doc(root, 'execution/phases/01-phase/01-01-SUMMARY.md')).toContain(
      'wrote outside its files_modified, which strict_files in .github/harness.yml does not allow: `src/shared.ts`',
    );
    expect(git(root, 'ls-tree', '-r', '--name-only', 'harness/SPC-007/integration')).not.toContain('src/shared.ts');
  });

  it('with strict_files: true, a plan that keeps to its files is merged', async () => {
    const root = await makeRepo({
      ...specTree([{ id: '01-01', steps: ['mkdir -p out && echo done > out/01-01.txt'] }]),
      '.github/harness.yml': 'agent: script\nstrict_files: true\n',
    });
    const r = await runCli(['run', SPEC_DIR], root);
    expect(r.code).toBe(0);
  });
});
