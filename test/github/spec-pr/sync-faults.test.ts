import nock from 'nock';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { restartApp } from '../../helpers/app-process.js';
import { FakeGitHub, specAt } from '../../helpers/github-repo.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';
import { specOf, type PlanOptions } from '../../helpers/spec.js';

/**
 * A spec PR's sync under faults (issue 24, 5 and 6), through Probot with the real
 * `pull_request.opened` payload on the stateful fake GitHub: one fault at every request index
 * of a first sync, before GitHub acts (it refuses) and after (it acted and the answer was lost:
 * a 502 or a dropped connection), then one redelivery, must end green in the state a fault-free
 * sync leaves (the same issues, sub-issues, dependencies and one status comment); and the same delivery twice at once, then a redelivery, must end with one tracking
 * issue, one issue per plan and one status comment.
 */

interface PullRequestPayload {
  action: string;
  pull_request: { head: { sha: string }; base: { sha: string } };
}

const OPENED = webhookExample<PullRequestPayload>('pull_request', (p) => p.action === 'opened');
const HEAD = OPENED.pull_request.head.sha;
const BASE = OPENED.pull_request.base.sha;
const DIR = 'docs/specs/SPC-042-password-reset';

const PLANS: PlanOptions[] = [
  { id: '01-01', title: 'Reset tokens' },
  { id: '01-02', title: 'Reset endpoint', dependsOn: ['01-01'] },
  { id: '02-01', title: 'Reset email', dependsOn: ['01-01', '01-02'] },
];

/** A new repository, served to a new App process: nothing remembered from another repository's deliveries. */
function repository(): FakeGitHub {
  unpaced();
  const github = new FakeGitHub();
  github.config = 'specs_root: docs/specs\n';
  github.commit(BASE, { 'README.md': '# Hello\n', 'docs/specs/README.md': 'Specs live here.\n' });
  github.commit(HEAD, { 'README.md': '# Hello\n', 'docs/specs/README.md': 'Specs live here.\n', ...specAt(DIR, specOf(PLANS)) });
  github.install();
  return github;
}

/** A delivery of the spec PR's `opened` event; a faulty one may fail (GitHub sees a 500 and the delivery is redelivered). */
async function deliver(id: string): Promise<void> {
  await testProbot()
    .receive({ id, name: 'pull_request', payload: OPENED } as never)
    .catch(() => undefined);
}

/** The redelivery, on a GitHub that answers again: it must succeed, whatever the faulty delivery left. */
async function redeliver(id: string): Promise<void> {
  await testProbot().receive({ id, name: 'pull_request', payload: OPENED } as never);
}

/** What a sync leaves on GitHub, by plan rather than by number: issues, sub-issues, dependencies, status comments. */
function outcome(github: FakeGitHub) {
  const byId = new Map(github.issues.map((i) => [i.id, i]));
  const name = (n: number) => {
    const issue = github.issue(n);
    return /<!-- harness:(?:plan|spec) (\S+) /.exec(issue.body ?? '')?.[1] ?? `#${n}`;
  };
  const open = github.issues.filter((i) => i.state === 'open');
  return {
    issues: open
      .map((i) => ({
        name: name(i.number),
        title: i.title,
        labels: [...i.labels].sort(),
        body: (i.body ?? '')
          .replace(/#\d+/g, '#n')
          .replace(/(parent)=\d+/g, '$1=n')
          .replace(/hash=[0-9a-f]+/, 'hash=h'),
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    // Between open issues: a duplicate closed by the sync may keep its own, which nothing reads.
    subIssues: [...github.subIssues]
      .filter(([parent]) => github.issue(parent).state === 'open')
      .map(([parent, ids]) => [
        name(parent),
        ids
          .filter((id) => byId.get(id)!.state === 'open')
          .map((id) => name(byId.get(id)!.number))
          .sort(),
      ])
      .filter(([, subs]) => subs.length > 0),
    blockedBy: [...github.blockedBy]
      .filter(([n]) => github.issue(n).state === 'open')
      .map(([n, ids]) => [
        name(n),
        [...ids]
          .map((id) => byId.get(id)!)
          .map((i) => (i.state === 'open' ? name(i.number) : `closed ${name(i.number)}`))
          .sort(),
      ])
      .filter(([, blockers]) => blockers.length > 0)
      .sort(),
    statusComments: github.comments.filter((c) => c.body.startsWith('<!-- harness:status')).length,
  };
}

/** Is the latest `harness / spec` check run on the head a completed success? */
function green(github: FakeGitHub): boolean {
  const latest = github.checkRuns.filter((c) => c.name === 'harness / spec' && c.head_sha === HEAD).at(-1);
  return latest?.status === 'completed' && latest.conclusion === 'success';
}

type Before = number | { status: number; headers: Record<string, string> };
/** Faults before GitHub acts (it refused), and after (it acted, and the answer was lost). */
const FAULTS: [string, { before?: Before; after?: number | 'drop' }][] = [
  ['500', { before: 500 }],
  ['502', { before: 502 }],
  ['403 retry-after', { before: { status: 403, headers: { 'retry-after': '60' } } }],
  ['404', { before: 404 }],
  ['422', { before: 422 }],
  ['502 after acting', { after: 502 }],
  ['dropped after acting', { after: 'drop' }],
];
/** The requests of a fault-free first sync of this spec: the sweep's size, stated, so that a sync that asks less is seen. */
const SYNC_REQUESTS = 37;

/** The sweep makes thousands of requests: the App's hourly pace (app-memory.ts) is not what it tests. */
const unpaced = () => restartApp({ requestsPerHour: 0 });

beforeAll(() => nock.disableNetConnect());
beforeEach(() => void unpaced());
afterEach(() => nock.cleanAll());

describe('a spec PR sync with one fault at every request, then one redelivery', () => {
  it('ends as a fault-free sync does, or with the spec check not green', async () => {
    const clean = repository();
    await deliver('clean');
    const expected = outcome(clean);
    const requests = clean.requests.length;
    expect(requests).toBe(SYNC_REQUESTS);
    expect(green(clean)).toBe(true);
    expect(expected.issues.map((i) => i.name)).toEqual(['SPC-042', 'SPC-042/01-01', 'SPC-042/01-02', 'SPC-042/02-01']);
    expect(expected.subIssues).toEqual([['SPC-042', ['SPC-042/01-01', 'SPC-042/01-02', 'SPC-042/02-01']]]);
    expect(expected.blockedBy).toEqual([
      ['SPC-042/01-02', ['SPC-042/01-01']],
      ['SPC-042/02-01', ['SPC-042/01-01', 'SPC-042/01-02']],
    ]);
    nock.cleanAll();

    const wrong: string[] = [];
    let points = 0;
    for (let index = 0; index < requests; index++) {
      for (const [label, fault] of FAULTS) {
        const github = repository();
        let served = 0;
        let answered = 0;
        github.fail = () => (fault.before !== undefined && served++ === index ? fault.before : undefined);
        github.failAfter = () => (fault.after !== undefined && answered++ === index ? fault.after : undefined);
        await deliver(`faulty-${index}`);
        github.fail = () => undefined;
        github.failAfter = () => undefined;
        const at = `${label} at request ${index} (${clean.log()[index]})`;
        try {
          await redeliver(`redelivered-${index}`);
        } catch (e) {
          wrong.push(`${at}: the redelivery failed: ${e instanceof Error ? e.message : String(e)}`);
        }
        points++;
        const got = outcome(github);
        if (!green(github)) wrong.push(`${at}: the spec check is not green after the redelivery`);
        else if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push(`${at}: ${JSON.stringify(got)}`);
        nock.cleanAll();
      }
    }
    expect(wrong).toEqual([]);
    // Every request of the sync, each with every fault.
    expect(points).toBe(SYNC_REQUESTS * FAULTS.length);
  }, 900_000);
});

describe('the same spec PR delivery twice at once', () => {
  it('then a redelivery: one tracking issue, one issue per plan, one status comment', async () => {
    const github = repository();
    const probot = testProbot();
    await Promise.allSettled([
      probot.receive({ id: 'twice', name: 'pull_request', payload: OPENED } as never),
      probot.receive({ id: 'twice', name: 'pull_request', payload: OPENED } as never),
    ]);
    await deliver('redelivered');

    const open = github.issues.filter((i) => i.state === 'open');
    expect(open.filter((i) => i.labels.includes('harness:spec'))).toHaveLength(1);
    for (const plan of PLANS) expect(open.filter((i) => i.body?.startsWith(`<!-- harness:plan SPC-042/${plan.id} `))).toHaveLength(1);
    expect(github.comments.filter((c) => c.body.startsWith('<!-- harness:status'))).toHaveLength(1);
    expect(outcome(github)).toEqual(outcome(await cleanSync()));
    expect(green(github)).toBe(true);
  });
});

async function cleanSync(): Promise<FakeGitHub> {
  nock.cleanAll();
  const github = repository();
  await deliver('clean');
  return github;
}
