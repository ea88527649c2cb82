import nock from 'nock';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { gateway, type Gateway } from '../../app/gateway/gateway.js';
import type { KnowledgeAppend, StoreAtBranch } from '../../app/gateway/knowledge-append.js';
import { FakeGitHub } from '../helpers/github-repo.js';
import { testOctokit } from '../helpers/octokit.js';

/**
 * appendKnowledge (app/gateway/knowledge-append.ts): files committed onto a branch that a PR
 * collects, through the git data API, the ref only ever moved forward. Whoever writes second
 * builds on the first one's commit, never over it; nothing new is nothing written.
 */

const R = '/repos/Codertocat/Hello-World';
const BRANCH = 'harness/knowledge/signal/SPC-007';
const BASE = 'a'.repeat(40);

let github: FakeGitHub;
let before: number;

function store(): Gateway {
  return gateway(testOctokit().request, { owner: 'Codertocat', repo: 'Hello-World' }, 'workflow');
}

/** An append that adds one line to `.harness/knowledge/log.md`, unless the line is there; `seen` keeps what each build read. */
function line(text: string, seen: (string | undefined)[] = []): KnowledgeAppend {
  return {
    branch: BRANCH,
    base: 'master',
    root: '.harness/knowledge',
    commitMessage: `signals: ${text}`,
    pr: { title: 'Signals of SPC-007', body: 'What happened.', labels: ['harness:knowledge', 'signal'] },
    async build(at: StoreAtBranch) {
      const log = await at.read('log.md');
      seen.push(log);
      if (log?.split('\n').includes(text)) return [];
      return [{ path: 'log.md', text: `${log ?? ''}${text}\n` }];
    },
  };
}

beforeAll(() => nock.disableNetConnect());
beforeEach(() => {
  github = new FakeGitHub();
  github.commit(BASE, { 'README.md': '# Hello\n' });
  github.branches.set('master', BASE);
  github.install();
  before = 0;
});
afterEach(() => nock.cleanAll());

describe('appendKnowledge', () => {
  it('creates the branch from the base with its commit, then opens the PR and labels it', async () => {
    const done = await store().appendKnowledge(line('first'));

    expect(github.log(before)).toEqual([
      `GET ${R}/pulls?head=Codertocat:${BRANCH}&state=all&per_page=100`,
      `GET ${R}/git/ref/heads/${BRANCH}`,
      `GET ${R}/git/ref/heads/master`,
      `GET ${R}/contents/.harness/knowledge/log.md?ref=${BASE}`,
      `GET ${R}/git/commits/${BASE}`,
      `POST ${R}/git/trees`,
      `POST ${R}/git/commits`,
      `POST ${R}/git/refs`,
      `POST ${R}/pulls`,
      `POST ${R}/issues/100/labels`,
    ]);
    expect(done).toMatchObject({ pr: { number: 100, state: 'opened' }, files: ['.harness/knowledge/log.md'], tries: 1 });
    const head = github.branches.get(BRANCH)!;
    expect(github.parents(head)).toEqual([BASE]);
    expect(github.files(BRANCH)).toEqual({ 'README.md': '# Hello\n', '.harness/knowledge/log.md': 'first\n' });
    expect(github.pullRequests[0]).toMatchObject({
      head: BRANCH,
      base: 'master',
      title: 'Signals of SPC-007',
      body: 'What happened.',
      labels: ['harness:knowledge', 'signal'],
      state: 'open',
    });
  });

  it("appends a commit on the open PR's branch, moving the ref forward only, and opens nothing", async () => {
    await store().appendKnowledge(line('first'));
    const first = github.branches.get(BRANCH)!;
    before = github.requests.length;

    const done = await store().appendKnowledge(line('second'));

    expect(github.log(before)).toEqual([
      `GET ${R}/pulls?head=Codertocat:${BRANCH}&state=all&per_page=100`,
      `GET ${R}/git/ref/heads/${BRANCH}`,
      `GET ${R}/contents/.harness/knowledge/log.md?ref=${first}`,
      `GET ${R}/git/commits/${first}`,
      `POST ${R}/git/trees`,
      `POST ${R}/git/commits`,
      `PATCH ${R}/git/refs/heads/${BRANCH}`,
    ]);
    expect(github.writes(before).at(-1)!.body).toEqual({ sha: github.branches.get(BRANCH), force: false });
    expect(done).toMatchObject({ pr: { number: 100, state: 'open' }, tries: 1 });
    expect(github.parents(github.branches.get(BRANCH)!)).toEqual([first]);
    expect(github.files(BRANCH)['.harness/knowledge/log.md']).toBe('first\nsecond\n');
    expect(github.pullRequests).toHaveLength(1);
  });

  it('labels an open PR found without its labels (a writer failed between opening and labelling it)', async () => {
    await store().appendKnowledge(line('first'));
    github.pullRequests[0]!.labels = [];
    before = github.requests.length;

    const done = await store().appendKnowledge(line('second'));

    expect(github.log(before).slice(-2)).toEqual([`PATCH ${R}/git/refs/heads/${BRANCH}`, `POST ${R}/issues/100/labels`]);
    expect(github.writes(before).at(-1)!.body).toEqual({ labels: ['harness:knowledge', 'signal'] });
    expect(done).toMatchObject({ pr: { number: 100, state: 'open' } });
    expect(github.pullRequests[0]!.labels).toEqual(['harness:knowledge', 'signal']);

    before = github.requests.length;
    await store().appendKnowledge(line('second'));
    expect(github.log(before).filter((r) => r.startsWith('POST'))).toEqual([]);
  });

  it("builds again on the other writer's commit when the branch moved under it: both land", async () => {
    await store().appendKnowledge(line('first'));
    before = github.requests.length;
    // Another job finishing at the same moment: its commit lands between this one's read and its ref update.
    let raced = false;
    github.beforeServe = (method, url) => {
      if (raced || method !== 'PATCH' || !url.includes('/git/refs/')) return;
      raced = true;
      github.pushTo(BRANCH, { '.harness/knowledge/log.md': 'first\nother\n' }, 'the other job');
    };
    const seen: (string | undefined)[] = [];

    const done = await store().appendKnowledge(line('mine', seen));

    expect(done.tries).toBe(2);
    expect(seen).toEqual(['first\n', 'first\nother\n']);
    const log = github.log(before);
    expect(log.filter((l) => l.startsWith('PATCH'))).toHaveLength(2);
    expect(log.slice(7, 9)).toEqual([`GET ${R}/pulls?head=Codertocat:${BRANCH}&state=all&per_page=100`, `GET ${R}/git/ref/heads/${BRANCH}`]);
    expect(github.files(BRANCH)['.harness/knowledge/log.md']).toBe('first\nother\nmine\n');
  });

  it('two writers at once: neither overwrites the other', async () => {
    await store().appendKnowledge(line('first'));

    const [a, b] = await Promise.all([store().appendKnowledge(line('from job A')), store().appendKnowledge(line('from job B'))]);

    // Both read the same head; the one whose ref update came second built again on the other's commit.
    expect([a.tries, b.tries].sort()).toEqual([1, 2]);
    expect(github.files(BRANCH)['.harness/knowledge/log.md']!.split('\n').filter(Boolean).sort()).toEqual(['first', 'from job A', 'from job B']);
    expect(github.pullRequests).toHaveLength(1);
  });

  it('writes nothing when there is nothing new (a re-run), and reads only', async () => {
    await store().appendKnowledge(line('first'));
    const head = github.branches.get(BRANCH);
    before = github.requests.length;

    const done = await store().appendKnowledge(line('first'));

    expect(github.writes(before)).toEqual([]);
    expect(done).toEqual({ pr: { number: 100, url: 'https://github.com/Codertocat/Hello-World/pull/100', state: 'open' }, files: [], tries: 1 });
    expect(github.branches.get(BRANCH)).toBe(head);
  });

  it('after its PR was merged, starts clean from the base (the old head a second parent) and opens a new PR', async () => {
    await store().appendKnowledge(line('first'));
    const old = github.branches.get(BRANCH)!;
    github.settle(100, 'merge');
    const merged = github.branches.get('master')!;

    const done = await store().appendKnowledge(line('after the merge'));

    expect(done).toMatchObject({ pr: { number: 101, state: 'opened' } });
    expect(github.parents(github.branches.get(BRANCH)!)).toEqual([old, merged]);
    expect(github.files(BRANCH)['.harness/knowledge/log.md']).toBe('first\nafter the merge\n');
  });

  it('after its PR was closed unmerged, leaves what was rejected out of the new PR', async () => {
    await store().appendKnowledge(line('rejected'));
    github.settle(100, 'close');

    const seen: (string | undefined)[] = [];
    await store().appendKnowledge(line('kept', seen));

    expect(seen).toEqual([undefined]);
    expect(github.files(BRANCH)['.harness/knowledge/log.md']).toBe('kept\n');
    expect(github.pullRequests.map((p) => [p.number, p.state])).toEqual([
      [100, 'closed'],
      [101, 'open'],
    ]);
  });

  it("hands build the open PR's opening time, for the per-phase cap", async () => {
    github.now = () => new Date('2024-05-01T10:00:00Z');
    await store().appendKnowledge(line('first'));
    const opened: (string | undefined)[] = [];
    const append = line('second');
    await store().appendKnowledge({ ...append, build: (at) => (opened.push(at.openedAt), append.build(at)) });
    expect(opened).toEqual(['2024-05-01T10:00:00.000Z']);
  });
});
