import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunRepo } from '../../app/runner/repo.js';
import { git, makeRepo } from '../helpers/repo.js';

/** A branch off main with one commit adding `file`. */
function branchWith(root: string, branch: string, file: string): void {
  git(root, 'checkout', '--quiet', '-b', branch, 'main');
  writeFileSync(join(root, file), `${branch}\n`);
  git(root, 'add', '-A');
  git(root, 'commit', '--quiet', '-m', branch);
  git(root, 'checkout', '--quiet', 'main');
}

describe('a merge a killed run left unconcluded', () => {
  async function interrupted() {
    const root = await makeRepo({});
    branchWith(root, 'plan-a', 'a.txt');
    branchWith(root, 'plan-b', 'b.txt');
    const before = git(root, 'rev-parse', 'HEAD').trim();
    // Where git stops when killed inside a merge: MERGE_HEAD written, no merge commit yet.
    git(root, 'merge', '--no-ff', '--no-commit', 'plan-a');
    expect(existsSync(join(root, '.git', 'MERGE_HEAD'))).toBe(true);
    return { root, before, repo: await RunRepo.open(root) };
  }

  it('left alone, fails the next plan merged (found by the crash campaign: a plan failed for a kill that was not its own)', async () => {
    const { root, repo } = await interrupted();
    const blocked = await repo.merge(root, 'plan-b', { subject: 'Merge plan-b', trailers: [] });
    expect(blocked).toEqual({ ok: false, conflicts: [expect.stringContaining('You have not concluded your merge')] });
  });

  it('is aborted on resume: the worktree is as before it, and the plans merge', async () => {
    const { root, before, repo } = await interrupted();
    expect(await repo.abortInterruptedMerge(root)).toBe(true);
    expect(existsSync(join(root, '.git', 'MERGE_HEAD'))).toBe(false);
    expect(git(root, 'rev-parse', 'HEAD').trim()).toBe(before);
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect((await repo.merge(root, 'plan-a', { subject: 'Merge plan-a', trailers: [] })).ok).toBe(true);
    expect((await repo.merge(root, 'plan-b', { subject: 'Merge plan-b', trailers: [] })).ok).toBe(true);
    expect(await repo.abortInterruptedMerge(root)).toBe(false);
  });
});
