import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Git, GitError } from '../../app/machine/git.js';
import { gitEnv } from '../../app/machine/git-env.js';
import { headFromFiles } from '../../app/machine/git-head.js';
import { git, makeRepo } from '../helpers/repo.js';

/** The git processes a trace2 log says started, as "subcommand" lines. */
function started(trace: string): string[] {
  return readFileSync(trace, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"event":"start"'))
    .map((l) => (JSON.parse(l) as { argv: string[] }).argv[1]!);
}

describe("harness's own git commands", () => {
  it('start no automatic maintenance after a commit, where plain git does', async () => {
    const repo = await makeRepo({});
    const plain = join(repo, '.git', 'plain.trace');
    const ours = join(repo, '.git', 'ours.trace');
    execFileSync('git', ['commit', '--quiet', '--allow-empty', '-m', 'plain'], { cwd: repo, env: { ...process.env, GIT_TRACE2_EVENT: plain } });
    expect(started(plain)).toContain('maintenance');

    await new Git(repo, { env: { GIT_TRACE2_EVENT: ours } }).commit({ subject: 'ours', trailers: [] }, { allowEmpty: true });
    expect(started(ours)).toEqual(['commit']);
  });

  it("keep the caller's own GIT_CONFIG entries and add theirs after them", () => {
    const env = gitEnv({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_VALUE_0: 'Someone' });
    expect(env).toMatchObject({
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_0: 'user.name',
      GIT_CONFIG_VALUE_0: 'Someone',
      GIT_CONFIG_KEY_1: 'maintenance.auto',
      GIT_CONFIG_VALUE_1: 'false',
      GIT_CONFIG_KEY_2: 'gc.auto',
      GIT_CONFIG_VALUE_2: '0',
      GIT_TERMINAL_PROMPT: '0',
    });
  });
});

describe("harness's git commands, started as processes of their own", () => {
  it('run with the environment as it is then, fail as git does, and start one git process each', async () => {
    const repo = await makeRepo({});
    const trace = join(repo, '.git', 'ours.trace');
    const ours = new Git(repo, { env: { GIT_TRACE2_EVENT: trace } });
    try {
      await ours.run(['status']);
      // Set after the first command: the next one sees it.
      process.env.GIT_AUTHOR_NAME = 'Set Later';
      await ours.commit({ subject: 'later', trailers: [] }, { allowEmpty: true });
      expect(git(repo, 'log', '-1', '--format=%an').trim()).toBe('Set Later');
    } finally {
      delete process.env.GIT_AUTHOR_NAME;
    }
    const failed = await ours.run(['rev-parse', '--verify', 'no-such-ref']).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(GitError);
    expect((failed as GitError).code).toBe(128);
    expect((failed as GitError).stderr).toMatch(/Needed a single revision/);
    // The one rev-parse is the failing one: HEAD after the commit was read from the files.
    expect(started(trace)).toEqual(['status', 'commit', 'rev-parse']);
  });

  it('fail with a GitError saying why when git cannot start', async () => {
    const failed = await new Git(join(tmpdir(), 'harness-no-such-directory')).run(['status']).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(GitError);
    expect((failed as GitError).code).toBeNull();
    expect((failed as GitError).message).toMatch(/ENOENT/);
  });
});

describe('headFromFiles', () => {
  it("reads what git rev-parse HEAD says: a branch's loose ref, a packed one, a detached HEAD, a linked worktree", async () => {
    const repo = await makeRepo({});
    const head = () => git(repo, 'rev-parse', 'HEAD').trim();
    expect(await headFromFiles(repo)).toBe(head());

    git(repo, 'pack-refs', '--all');
    expect(await headFromFiles(repo)).toBe(head());

    git(repo, 'commit', '--quiet', '--allow-empty', '-m', 'second');
    expect(await headFromFiles(repo)).toBe(head());

    git(repo, 'checkout', '--quiet', '--detach', 'HEAD~1');
    expect(await headFromFiles(repo)).toBe(head());

    const linked = join(repo, '.git', 'linked');
    git(repo, 'worktree', 'add', '--quiet', '-b', 'side', linked, 'main');
    git(linked, 'commit', '--quiet', '--allow-empty', '-m', 'on the side');
    expect(await headFromFiles(linked)).toBe(git(linked, 'rev-parse', 'HEAD').trim());
    expect(await headFromFiles(linked)).not.toBe(head());
  });

  it('leaves to git what the files do not settle: an unborn branch, a directory below the top', async () => {
    const repo = await makeRepo({ 'src/a.txt': 'a\n' });
    expect(await headFromFiles(join(repo, 'src'))).toBeUndefined();
    // Git answers for it instead.
    expect(await new Git(join(repo, 'src')).head()).toBe(git(repo, 'rev-parse', 'HEAD').trim());
    git(repo, 'checkout', '--quiet', '--orphan', 'fresh');
    expect(await headFromFiles(repo)).toBeUndefined();
    // And refuses an unborn branch as it always did.
    await expect(new Git(repo).head()).rejects.toThrow(/rev-parse HEAD/);
  });
});
