import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOT_EMAIL, BOT_NAME, Checkout } from '../../app/worker-action/checkout.js';
import { commitOnMain, git, isolateGit, workerRepo } from '../helpers/worker-repo.js';

let restore: () => void;
beforeAll(() => {
  restore = isolateGit();
});
afterAll(() => restore());

describe('the checkout at the worker start', () => {
  it('gives a checkout without an identity the bot, as git itself reads it back', async () => {
    const repo = await workerRepo({}, 'harness/SPC-001/01-01');
    const checkout = new Checkout(repo.checkout);
    expect(await checkout.ensureIdentity()).toEqual({ name: BOT_NAME, email: BOT_EMAIL });
    expect(git(repo.checkout, 'config', 'user.name')).toBe(BOT_NAME);
    expect(git(repo.checkout, 'config', 'user.email')).toBe(BOT_EMAIL);
    // A second start (the same runner) adds nothing: the identity is there now.
    await checkout.ensureIdentity();
    expect(git(repo.checkout, 'config', '--get-all', 'user.name').split('\n')).toEqual([BOT_NAME]);
  });

  it('keeps an identity the workflow configured, and adds only what is missing', async () => {
    const repo = await workerRepo({}, 'harness/SPC-001/01-01');
    git(repo.checkout, 'config', 'user.name', 'Release Bot');
    const checkout = new Checkout(repo.checkout);
    expect(await checkout.ensureIdentity()).toEqual({ name: 'Release Bot', email: BOT_EMAIL });
    expect(git(repo.checkout, 'config', 'user.name')).toBe('Release Bot');
    expect(git(repo.checkout, 'config', 'user.email')).toBe(BOT_EMAIL);
  });

  it('takes the global identity over the bot', async () => {
    const repo = await workerRepo({}, 'harness/SPC-001/01-01');
    const global = process.env.GIT_CONFIG_GLOBAL!;
    writeFileSync(global, '[user]\n\tname = Ada\n\temail = ada@example.com\n');
    try {
      expect(await new Checkout(repo.checkout).ensureIdentity()).toEqual({ name: 'Ada', email: 'ada@example.com' });
      expect(readFileSync(join(repo.checkout, '.git', 'config'), 'utf8')).not.toContain('[user]');
    } finally {
      writeFileSync(global, '');
    }
  });

  it('finds the plan base of a shallow checkout from the head it started at, deepening it', async () => {
    const repo = await workerRepo({ 'a.txt': 'a\n' }, 'harness/SPC-001/01-01');
    const moved = await commitOnMain(repo.remote, { 'b.txt': 'b\n' });
    // actions/checkout's default: depth 1, over a URL (a local path would ignore --depth).
    const shallow = `${repo.checkout}-shallow`;
    git(repo.remote, 'clone', '--quiet', '--depth=1', '--branch', 'harness/SPC-001/01-01', `file://${repo.remote}`, shallow);
    expect(git(shallow, 'rev-parse', '--is-shallow-repository')).toBe('true');
    const checkout = new Checkout(shallow);
    expect(await checkout.startingHead()).toBe(repo.base);
    expect(await checkout.planBase('main')).toBe(repo.base);
    expect(git(shallow, 'rev-parse', '--is-shallow-repository')).toBe('false');
    expect(git(shallow, 'rev-parse', 'refs/remotes/origin/main')).toBe(moved);
  });

  it('reads what a passing attempt added since a failed one: the diff from its head, lock files left out; undefined for a commit it does not have', async () => {
    const repo = await workerRepo({ 'package.json': '{\n  "scripts": {\n    "test": "vitest run"\n  }\n}\n' }, 'harness/SPC-001/01-01');
    const failed = git(repo.checkout, 'rev-parse', 'HEAD');
    writeFileSync(join(repo.checkout, 'package.json'), '{\n  "scripts": {\n    "pretest": "node seed.js",\n    "test": "vitest run"\n  }\n}\n');
    writeFileSync(join(repo.checkout, 'package-lock.json'), '{ "lockfileVersion": 3 }\n');
    git(repo.checkout, 'add', '-A');
    git(repo.checkout, '-c', 'user.name=Agent', '-c', 'user.email=agent@example.com', 'commit', '--quiet', '-m', 'seed before the tests');
    const diff = await new Checkout(repo.checkout).diffSince(failed);
    expect(diff!.split('\n').filter((l) => l.startsWith('+'))).toEqual(['+++ b/package.json', '+    "pretest": "node seed.js",']);
    expect(await new Checkout(repo.checkout).diffSince('0123456789abcdef0123456789abcdef01234567')).toBeUndefined();
  });
});
