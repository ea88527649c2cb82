import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConditionalCache, conditionalRequests, type HookedOctokit } from '../../app/gateway/conditional.js';
import { LimitPacer } from '../../app/gateway/limit-model.js';
import type { Clock } from '../../app/gateway/pacer.js';
import { FakeGitHub } from '../helpers/github-repo.js';
import { testOctokit } from '../helpers/octokit.js';

const repo = { owner: 'Codertocat', repo: 'Hello-World' };

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

function client(cache: ConditionalCache, scope = 'installation:1', window?: LimitPacer) {
  const octokit = testOctokit();
  conditionalRequests(octokit as unknown as HookedOctokit, cache, scope, window);
  return octokit;
}

describe('conditional reads', () => {
  it('asks again with the ETag, and a 304 is answered from the cache, as GitHub sent it the first time', async () => {
    const github = new FakeGitHub();
    github.config = 'slots: 3\n';
    github.install();
    const cache = new ConditionalCache();
    const octokit = client(cache);
    const read = () => octokit.request('GET /repos/{owner}/{repo}/contents/{path}', { ...repo, path: '.github/harness.yml' });

    const first = await read();
    const second = await read();
    expect(github.statuses).toEqual([200, 304]);
    expect(second.status).toBe(200);
    expect(second.data).toEqual(first.data);
    expect(cache.stats).toEqual({ immutable: 0, notModified: 1, full: 1 });
  });

  it('reads in full again what changed, and hands out copies: a caller changing its answer does not change the cache', async () => {
    const github = new FakeGitHub();
    github.issues.push({ id: 1, number: 1, title: 'One', body: null, labels: ['harness:plan'], state: 'open', state_reason: null });
    github.install();
    const octokit = client(new ConditionalCache());
    const list = () => octokit.request('GET /repos/{owner}/{repo}/issues', { ...repo, labels: 'harness:plan', state: 'all' });

    const first = await list();
    (first.data as { title: string }[])[0]!.title = 'changed by the caller';
    expect(((await list()).data as { title: string }[])[0]!.title).toBe('One');
    github.issues[0]!.title = 'One, renamed';
    expect(((await list()).data as { title: string }[])[0]!.title).toBe('One, renamed');
    expect(github.statuses).toEqual([200, 304, 200]);
  });

  it('reads a git object named by its sha once: it cannot change, so it is answered again with no request', async () => {
    const github = new FakeGitHub();
    github.commit('a'.repeat(40), { 'docs/PLAN.md': '# Plan\n' });
    github.install();
    const cache = new ConditionalCache();
    const octokit = client(cache);
    const tree = github.treeAt('a'.repeat(40), '')!;
    const read = () => octokit.request('GET /repos/{owner}/{repo}/git/trees/{tree_sha}', { ...repo, tree_sha: tree, recursive: '1' });
    const first = await read();
    const again = await read();
    expect(again.data).toEqual(first.data);
    expect(github.requests).toHaveLength(1);
    expect(cache.stats.immutable).toBe(1);
  });

  it('never answers one installation with what another read', async () => {
    const github = new FakeGitHub();
    github.config = 'slots: 3\n';
    github.install();
    const cache = new ConditionalCache();
    const read = (scope: string) => client(cache, scope).request('GET /repos/{owner}/{repo}/contents/{path}', { ...repo, path: '.github/harness.yml' });
    await read('installation:1');
    await read('installation:2');
    expect(github.statuses).toEqual([200, 200]);
  });

  it('forgets the least recently used answers past its bound', async () => {
    const github = new FakeGitHub();
    github.config = 'slots: 3\n';
    github.install();
    const cache = new ConditionalCache(1);
    const octokit = client(cache);
    await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', { ...repo, path: '.github/harness.yml' });
    await octokit.request('GET /repos/{owner}/{repo}', repo);
    expect(cache.size).toBe(1);
    await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', { ...repo, path: '.github/harness.yml' });
    expect(github.statuses).toEqual([200, 200, 200]);
  });

  it('paces what counts against the rate limit and nothing else: writes and first reads wait for room, a 304 is not counted', async () => {
    const github = new FakeGitHub();
    github.config = 'slots: 3\n';
    github.install();
    let now = 0;
    const clock: Clock = { now: () => now, sleep: async (ms) => void (now += ms) };
    const window = new LimitPacer({ primaryPerHour: 2, clock });
    const octokit = client(new ConditionalCache(), 'installation:1', window);
    const read = () => octokit.request('GET /repos/{owner}/{repo}/contents/{path}', { ...repo, path: '.github/harness.yml' });

    await read();
    await read();
    await read();
    expect(window.usedThisHour).toBe(1);
    await octokit.request('POST /repos/{owner}/{repo}/labels', { ...repo, name: 'x', color: 'ededed' });
    expect(now).toBe(0);
    await octokit.request('POST /repos/{owner}/{repo}/labels', { ...repo, name: 'y', color: 'ededed' });
    expect(now).toBe(3_600_000);
    expect(window.waited).toEqual({ requests: 1, ms: 3_600_000 });
  });
});
