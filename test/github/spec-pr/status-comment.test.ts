import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../../app/engine/core/spec/load.js';
import { PLAN_READING } from '../../../app/engine/importers/dialects.js';
import { gateway } from '../../../app/gateway/gateway.js';
import { AppMemory } from '../../../app/github/app-memory.js';
import { refreshStatusComment, statusCommentInterval, STATUS_COMMENT_INTERVAL_MS } from '../../../app/github/spec-pr/status-comment.js';
import { FakeGitHub } from '../../helpers/github-repo.js';
import { testOctokit } from '../../helpers/octokit.js';
import { specOf } from '../../helpers/spec.js';

const R = '/repos/Codertocat/Hello-World';
const PR = 2;
const spec = loadSpec(
  specOf([
    { id: '01-01', title: 'Tokens' },
    { id: '01-02', title: 'Endpoint', dependsOn: ['01-01'] },
  ]),
  PLAN_READING,
).spec!;

/** A plan issue at `status`, as the App records it: `status=` on the marker line (ready and blocked are `queued`), the label its view. */
function issue(plan: string, number: number, status: string) {
  const record = status === 'ready' || status === 'blocked' ? 'queued' : status;
  return {
    id: number,
    number,
    title: `[${plan}] x`,
    body: `<!-- harness:plan SPC-042/${plan} hash=0123456789abcdef status=${record} -->\n`,
    labels: ['harness:plan', 'spec:SPC-042', `status:${status}`],
    state: 'open' as const,
    stateReason: null,
    url: '',
  };
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('the status comment a round refreshes', () => {
  it('is found once, then edited by its id; while plans run, a change within a minute of the last edit waits for the next round, and once nothing runs it is written at once', async () => {
    const github = new FakeGitHub();
    github.install();
    const api = gateway(testOctokit().request, { owner: 'Codertocat', repo: 'Hello-World' }, 'app');
    let now = 1_000_000;
    const memory = new AppMemory({ clock: { now: () => now, sleep: async (ms) => void (now += ms) } });

    expect(await refreshStatusComment(api, memory, PR, spec, [issue('01-01', 10, 'running'), issue('01-02', 11, 'blocked')])).toBe('created');
    const id = github.comments[0]!.id;
    const before = github.requests.length;

    now += 10_000;
    expect(await refreshStatusComment(api, memory, PR, spec, [issue('01-01', 10, 'verified'), issue('01-02', 11, 'running')], { coalesce: true })).toBe(
      'deferred',
    );
    expect(github.log(before)).toEqual([]);

    now += STATUS_COMMENT_INTERVAL_MS;
    expect(await refreshStatusComment(api, memory, PR, spec, [issue('01-01', 10, 'verified'), issue('01-02', 11, 'running')], { coalesce: true })).toBe(
      'updated',
    );
    expect(await refreshStatusComment(api, memory, PR, spec, [issue('01-01', 10, 'verified'), issue('01-02', 11, 'verified')])).toBe('updated');
    expect(github.log(before)).toEqual([`PATCH ${R}/issues/comments/${id}`, `PATCH ${R}/issues/comments/${id}`]);
    expect(github.comments[0]!.body).toMatch(/01-02[^\n]*verified/);
  });

  it('waits longer with many plans running: 5 s a plan past a minute, 5 min 20 s for 64', async () => {
    expect([1, 12, 13, 64].map(statusCommentInterval)).toEqual([60_000, 60_000, 65_000, 320_000]);
    const github = new FakeGitHub();
    github.install();
    const api = gateway(testOctokit().request, { owner: 'Codertocat', repo: 'Hello-World' }, 'app');
    let now = 1_000_000;
    const memory = new AppMemory({ clock: { now: () => now, sleep: async (ms) => void (now += ms) } });
    await refreshStatusComment(api, memory, PR, spec, [issue('01-01', 10, 'running'), issue('01-02', 11, 'blocked')]);
    const before = github.requests.length;

    now += 120_000;
    expect(await refreshStatusComment(api, memory, PR, spec, [issue('01-01', 10, 'verified'), issue('01-02', 11, 'running')], { coalesce: 64 })).toBe(
      'deferred',
    );
    now += 200_000;
    expect(await refreshStatusComment(api, memory, PR, spec, [issue('01-01', 10, 'verified'), issue('01-02', 11, 'running')], { coalesce: 64 })).toBe(
      'updated',
    );
    expect(github.log(before)).toHaveLength(1);
  });

  it('says when the App waits on a GitHub limit, and until when; the line goes once the wait is over', async () => {
    const github = new FakeGitHub();
    github.install();
    const api = gateway(testOctokit().request, { owner: 'Codertocat', repo: 'Hello-World' }, 'app');
    const issues = [issue('01-01', 10, 'running'), issue('01-02', 11, 'blocked')];
    const waiting = { limit: 'content per hour' as const, until: Date.parse('2026-11-02T09:00:00Z') };

    const memory = new AppMemory();
    await refreshStatusComment(api, memory, PR, spec, issues, { waiting });
    expect(github.comments[0]!.body).toContain(
      "\n\n> ⏳ GitHub's content per hour limit: waiting until 09:00 UTC: the App's next requests wait for it, and plans start then.\n",
    );
    await refreshStatusComment(api, memory, PR, spec, issues);
    expect(github.comments[0]!.body).not.toContain('⏳');
  });

  it('deleted meanwhile, is found again (or made again) instead of failing the round', async () => {
    const github = new FakeGitHub();
    github.install();
    const api = gateway(testOctokit().request, { owner: 'Codertocat', repo: 'Hello-World' }, 'app');
    const memory = new AppMemory();
    await refreshStatusComment(api, memory, PR, spec, [issue('01-01', 10, 'running'), issue('01-02', 11, 'blocked')]);
    github.comments.length = 0;
    expect(await refreshStatusComment(api, memory, PR, spec, [issue('01-01', 10, 'verified'), issue('01-02', 11, 'running')])).toBe('created');
    expect(github.comments).toHaveLength(1);
  });
});
