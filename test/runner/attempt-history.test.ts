/**
 * An attempt's commits and changed files (RunRepo.attemptHistory: read through the run's
 * `git cat-file --batch` on a line of commits, from one `git log --raw` otherwise) are what
 * `git log base..HEAD` and `git diff --name-only base...HEAD` say, whatever the branch holds.
 */
import { chmodSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunRepo } from '../../app/runner/repo.js';
import { Git } from '../../app/machine/git.js';
import { git, makeRepo } from '../helpers/repo.js';

async function expectAsGit(repo: RunRepo, cwd: string, base: string) {
  const got = await repo.attemptHistory(cwd, base);
  const commits = await new Git(cwd).log({ base });
  const changed = git(cwd, 'diff', '--name-only', '-z', '--no-renames', `${base}...HEAD`).split('\0').filter(Boolean);
  expect(got.commits).toEqual(commits);
  // In git's order, too: it is the order a SUMMARY.md lists them in.
  expect(got.changed).toEqual(changed);
  return got;
}

const commit = (cwd: string, message: string) => {
  git(cwd, 'add', '-A');
  git(cwd, 'commit', '--quiet', '--allow-empty', '-m', message);
};

describe('attemptHistory', () => {
  it('answers as git log and git diff do on a line of commits: added, changed, removed, put back, a file become a directory, odd names', async () => {
    const root = await makeRepo({ 'keep.txt': 'keep\n', 'gone.txt': 'gone\n', 'back.txt': 'back\n', 'was-file': 'x\n' });
    const repo = await RunRepo.open(root);
    const base = git(root, 'rev-parse', 'HEAD').trim();
    expect((await expectAsGit(repo, root, base)).commits).toEqual([]);

    writeFileSync(join(root, 'new.txt'), 'new\n');
    writeFileSync(join(root, 'back.txt'), 'changed\n');
    writeFileSync(join(root, 'sp ace é.txt'), 'odd\n');
    commit(root, 'one\n\nPlan: 01-01');
    rmSync(join(root, 'gone.txt'));
    writeFileSync(join(root, 'back.txt'), 'back\n');
    rmSync(join(root, 'was-file'));
    mkdirSync(join(root, 'was-file'));
    writeFileSync(join(root, 'was-file', 'inside.txt'), 'in\n');
    commit(root, 'two');
    commit(root, 'three, empty');
    writeFileSync(join(root, 'temp.txt'), 'temp\n');
    commit(root, 'four');
    rmSync(join(root, 'temp.txt'));
    commit(root, 'five');
    const got = await expectAsGit(repo, root, base);
    expect(got.commits.map((c) => c.subject)).toEqual(['one', 'two', 'three, empty', 'four', 'five']);
    expect(got.commits[0]!.trailers).toEqual([{ key: 'Plan', value: '01-01' }]);
    expect(got.changed).toEqual(['gone.txt', 'new.txt', 'sp ace é.txt', 'was-file', 'was-file/inside.txt']);
    repo.close();
  });

  it('reads a directory that went or came whole, nested directories, an executable bit, a symbolic link', async () => {
    const root = await makeRepo({ 'a/b/c.txt': 'c\n', 'a/b/d.txt': 'd\n', 'a-b.txt': 'x\n', 'run.sh': 'echo\n', 'z/keep.txt': 'k\n' });
    const repo = await RunRepo.open(root);
    const base = git(root, 'rev-parse', 'HEAD').trim();
    rmSync(join(root, 'a'), { recursive: true });
    mkdirSync(join(root, 'n/e/w'), { recursive: true });
    writeFileSync(join(root, 'n/e/w/file.txt'), 'new\n');
    writeFileSync(join(root, 'z/keep.txt'), 'changed\n');
    chmodSync(join(root, 'run.sh'), 0o755);
    symlinkSync('a-b.txt', join(root, 'link'));
    commit(root, 'reshape');
    const got = await expectAsGit(repo, root, base);
    expect(got.changed).toEqual(['a/b/c.txt', 'a/b/d.txt', 'link', 'n/e/w/file.txt', 'run.sh', 'z/keep.txt']);
    repo.close();
  });

  it('asks git for the difference when the branch is no line from its base: a merge on it, a branch moved behind or off its base', async () => {
    const root = await makeRepo({ 'a.txt': 'a\n' });
    const repo = await RunRepo.open(root);
    const base = git(root, 'rev-parse', 'HEAD').trim();
    git(root, 'checkout', '--quiet', '-b', 'side');
    writeFileSync(join(root, 'side.txt'), 'side\n');
    commit(root, 'on the side');
    git(root, 'checkout', '--quiet', 'main');
    writeFileSync(join(root, 'main.txt'), 'main\n');
    commit(root, 'on main');
    git(root, 'merge', '--quiet', '--no-edit', 'side');
    await expectAsGit(repo, root, base);

    // HEAD behind its base: nothing after it, nothing changed.
    const ahead = git(root, 'rev-parse', 'HEAD').trim();
    git(root, 'reset', '--quiet', '--hard', base);
    expect(await expectAsGit(repo, root, ahead)).toEqual({ commits: [], changed: [] });

    // Off its base: the base's own line is not the branch's.
    writeFileSync(join(root, 'b.txt'), 'b\n');
    commit(root, 'elsewhere');
    await expectAsGit(repo, root, ahead);
    repo.close();
  });
});
