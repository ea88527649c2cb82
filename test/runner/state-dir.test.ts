import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoStateDir, RunRepo, stateRoot } from '../../app/runner/repo.js';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo, SPEC_DIR, specTree, worktreeOf } from '../helpers/repo.js';

/**
 * Where harness run keeps its worktrees (app/runner/repo.ts): beside the repository, never in it
 * nor in its .git, where coding agents refuse to write (Claude Code 2.1: "… which is a sensitive
 * file"); an older harness's worktrees under .git/harness/worktrees/ moved there, with their work.
 */
describe("harness run's worktrees, beside the repository", () => {
  it('are under $HARNESS_STATE_DIR, else $XDG_STATE_HOME/harness, else ~/.local/state/harness', () => {
    expect(stateRoot({ HARNESS_STATE_DIR: '/srv/h', XDG_STATE_HOME: '/x' })).toBe('/srv/h');
    expect(stateRoot({ XDG_STATE_HOME: '/x' })).toBe('/x/harness');
    expect(stateRoot({})).toBe(join(homedir(), '.local', 'state', 'harness'));
  });

  it('one folder a repository, named by it and by where its git directory is: two clones never share one', () => {
    const a = repoStateDir('/work/orders-api/.git', { HARNESS_STATE_DIR: '/s' });
    const b = repoStateDir('/home/ada/orders-api/.git', { HARNESS_STATE_DIR: '/s' });
    expect(a).toMatch(/^\/s\/orders-api-[0-9a-f]{10}$/);
    expect(b).toMatch(/^\/s\/orders-api-[0-9a-f]{10}$/);
    expect(a).not.toBe(b);
    expect(repoStateDir('/work/orders-api/.git', { HARNESS_STATE_DIR: '/s' })).toBe(a);
    // A bare repository is named by its folder; a name with odd characters keeps only the safe ones.
    expect(repoStateDir('/srv/git/orders api.git', { HARNESS_STATE_DIR: '/s' })).toMatch(/^\/s\/orders-api-[0-9a-f]{10}$/);
  });

  it('a run works in them, out of the checkout and its .git', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: ['mkdir -p out && echo one > out/01-01.txt'] }]));
    const run = await runCli(['run', SPEC_DIR, '--agent', 'script'], root);
    expect(run.code, run.stderr).toBe(0);
    const integration = worktreeOf(root, 'SPC-007', 'integration');
    expect(run.stdout).toContain(`  its worktree:       ${integration}\n`);
    expect(readFileSync(join(integration, 'out/01-01.txt'), 'utf8')).toBe('one\n');
    expect(integration.startsWith(root + sep)).toBe(false);
    expect(integration.split(sep)).not.toContain('.git');
    expect(existsSync(join(root, '.git/harness/worktrees'))).toBe(false);
  });

  it("moves an older harness's worktrees out of .git, with what is in them, once", async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: ['mkdir -p out && cat notes.txt > out/01-01.txt'] }]));
    // A run of an older harness, stopped mid-plan: its plan worktree under .git, with work not committed yet.
    const old = join(root, '.git/harness/worktrees/SPC-007/01-01');
    mkdirSync(join(root, '.git/harness/worktrees/SPC-007'), { recursive: true });
    git(root, 'worktree', 'add', '--quiet', '-b', 'harness/SPC-007/01-01', old);
    writeFileSync(join(old, 'notes.txt'), 'kept\n');

    const repo = await RunRepo.open(root);
    expect(await repo.moveOldWorktrees('SPC-007')).toEqual(['01-01']);
    const moved = worktreeOf(root, 'SPC-007', '01-01');
    expect(readFileSync(join(moved, 'notes.txt'), 'utf8')).toBe('kept\n');
    expect(git(root, 'worktree', 'list', '--porcelain')).toContain(`worktree ${moved}\n`);
    expect(existsSync(join(root, '.git/harness/worktrees/SPC-007'))).toBe(false);
    expect(await repo.moveOldWorktrees('SPC-007')).toEqual([]);
  });

  it('harness run moves them before anything else, and says so', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: ['mkdir -p out && echo one > out/01-01.txt'] }]));
    const old = join(root, '.git/harness/worktrees/SPC-007/01-01');
    mkdirSync(join(root, '.git/harness/worktrees/SPC-007'), { recursive: true });
    git(root, 'worktree', 'add', '--quiet', '-b', 'harness/SPC-007/01-01', old);

    const run = await runCli(['run', SPEC_DIR, '--agent', 'script'], root);

    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`moved the worktree 01-01 to ${worktreeOf(root, 'SPC-007', '01-01')}, out of the git directory`);
    expect(git(root, 'worktree', 'list', '--porcelain')).not.toContain('/.git/harness/worktrees/');
    expect(git(root, 'show', 'harness/SPC-007/integration:out/01-01.txt')).toBe('one\n');
  });
});
