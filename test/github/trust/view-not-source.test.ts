import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub, type FakeIssue } from '../../helpers/github-repo.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';

/**
 * Labels, titles, states and issues' authors are a view of what the App decided, never a
 * source of it (issue 36, 1 and 2; docs/security.md). What a plan needs is read from the body
 * the App wrote (its **Depends on** line and plan text), which only the App and writers can
 * edit; a plan's issue is one the App's own bot opened, never any bot's.
 */

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const SPEC = 'SPC-001';
const BASE = 'ba5e000000000000000000000000000000000001';

/** A plan issue's body as the App writes it (desiredIssue): marker, the **Depends on** line, the plan text. */
function planBody(plan: string, needs: string[], records = ''): string {
  const text = [
    '---',
    `plan_id: "${plan}"`,
    `title: Plan ${plan}`,
    `depends_on: [${needs.map((d) => `"${d}"`).join(', ')}]`,
    `files_modified: ["src/${plan}.ts"]`,
    'must_pass:',
    `  - { id: exists, type: file_exists, path: "src/${plan}.ts" }`,
    '---',
    '',
    'Do the work.',
  ].join('\n');
  return [
    `<!-- harness:plan ${SPEC}/${plan} hash=0123456789abcdef${records} -->`,
    `**Spec** ${SPEC}`,
    '',
    `**Depends on:** ${needs.length > 0 ? needs.join(', ') : 'nothing'}`,
    '',
    '<details><summary>The plan</summary>',
    '',
    '````markdown',
    text,
    '````',
    '',
    '</details>',
  ].join('\n');
}

/** A plan issue as the App wrote it: a status label given is the view of the App's record of it on the marker line (`status=`). */
function planIssue(number: number, plan: string, needs: string[], labels: string[]): FakeIssue {
  const status = labels.find((l) => l.startsWith('status:'))?.slice('status:'.length);
  const record = status === undefined ? '' : ` status=${status === 'ready' || status === 'blocked' ? 'queued' : status}`;
  return {
    id: 9000 + number,
    number,
    title: `[${plan}] Plan ${plan}`,
    body: planBody(plan, needs, record),
    labels: ['harness:plan', `spec:${SPEC}`, `phase:${plan.slice(0, 2)}`, ...needs.map((d) => `needs:${d}`), ...labels],
    state: 'open',
    state_reason: null,
  };
}

function repository(issues: FakeIssue[]): FakeGitHub {
  const github = new FakeGitHub();
  github.config = 'slots: 2\n';
  github.commit(BASE, { 'README.md': '# Hello\n' });
  github.branches.set('master', BASE);
  github.roles.set('Codertocat', 'write');
  github.roles.set('triager', 'triage');
  github.issues.push(...issues);
  github.install();
  return github;
}

/** A harness check run of another plan completing: any event that runs a round. */
function round(id: string) {
  const payload = webhookExample<Record<string, Record<string, unknown>>>('check_run', (p) => p.action === 'completed');
  payload.check_run!.name = 'harness / plan 01-09';
  payload.check_run!.external_id = `${SPEC}/01-09`;
  return { id, name: 'check_run', payload } as never;
}

/** The real `issues.unlabeled` delivery of someone taking a label off an issue. */
function unlabeled(issue: FakeIssue, label: string, by: string) {
  const payload = webhookExample<Record<string, Record<string, unknown>>>('issues', (p) => p.action === 'unlabeled');
  Object.assign(payload.issue!, {
    number: issue.number,
    title: issue.title,
    body: issue.body,
    labels: issue.labels.map((name) => ({ name })),
    user: { login: 'harness[bot]', type: 'Bot' },
  });
  payload.label = { name: label } as never;
  Object.assign(payload.sender!, { login: by, type: 'User' });
  return { id: `unlabeled-${issue.number}`, name: 'issues', payload } as never;
}

/** A writer's `/harness execute all` on a plan issue (the real issue_comment payload). */
function executeAll(on: FakeIssue) {
  const payload = webhookExample<Record<string, Record<string, unknown>>>('issue_comment', (p) => p.action === 'created');
  Object.assign(payload.comment!, { id: 7001, body: '/harness execute all', user: { login: 'Codertocat', type: 'User' } });
  Object.assign(payload.sender!, { login: 'Codertocat', type: 'User' });
  Object.assign(payload.issue!, {
    user: { login: 'harness[bot]', type: 'Bot' },
    number: on.number,
    title: on.title,
    body: on.body,
    labels: on.labels.map((name) => ({ name })),
    state: 'open',
    comments: 0,
  });
  return { id: 'execute-all', name: 'issue_comment', payload } as never;
}

/** The plans whose workers were dispatched (research ahead of a phase, also a dispatch, aside). */
const dispatched = (github: FakeGitHub) =>
  github.dispatches.map((d) => (d.body as { inputs: { plan: string } }).inputs.plan).filter((p) => /^\d+-\d+$/.test(p));

describe('a triager takes `needs:01-01` off 02-01 while 01-01 runs (issue 36, 1)', () => {
  it('the next round still holds 02-01: what a plan needs is read from the body the App wrote, never the labels', async () => {
    const needing = planIssue(12, '02-01', ['01-01'], ['status:blocked']);
    const github = repository([planIssue(11, '01-01', [], ['status:running']), needing]);
    // What the triage role can do: take the label off.
    github.issue(12).labels = github.issue(12).labels.filter((l) => l !== 'needs:01-01');

    await testProbot().receive(unlabeled(github.issue(12), 'needs:01-01', 'triager'));
    await testProbot().receive(round('after-unlabel'));

    expect(dispatched(github)).toEqual([]);
    expect(github.issue(12).labels).toContain('status:blocked');
    expect(github.branches.has(`harness/${SPEC}/02-01`)).toBe(false);
  });

  it('`/harness execute all` by a writer queues 02-01 as blocked, not ready, and starts only 01-01', async () => {
    const github = repository([planIssue(11, '01-01', [], []), planIssue(12, '02-01', ['01-01'], [])]);
    github.issue(12).labels = github.issue(12).labels.filter((l) => l !== 'needs:01-01');

    await testProbot().receive(executeAll(github.issue(11)));

    expect(dispatched(github)).toEqual(['01-01']);
    expect(github.issue(12).labels).toContain('status:blocked');
  });

  it('a `phase:` label moved to another phase changes nothing either: the plan id names its phase', async () => {
    const github = repository([planIssue(11, '01-01', [], ['status:running']), planIssue(12, '02-01', ['01-01'], ['status:blocked'])]);
    github.issue(12).labels = github
      .issue(12)
      .labels.filter((l) => l !== 'needs:01-01' && l !== 'phase:02')
      .concat('phase:01');

    await testProbot().receive(round('after-relabel'));

    expect(dispatched(github)).toEqual([]);
  });
});

describe("another App's issue opened before the first sync, marked and labelled as 01-01's (issue 36, 2)", () => {
  /** What any other App (or GitHub Actions) can open: the plan's labels, a marker saying `verified=spec`, closed as completed. */
  function forged(number: number, login: string): FakeIssue {
    return {
      ...planIssue(number, '01-01', [], ['status:verified']),
      body: planBody('01-01', [], ' verified=spec'),
      state: 'closed',
      state_reason: 'completed',
      user: { login, type: 'Bot' },
    };
  }

  for (const login of ['renovate[bot]', 'github-actions[bot]']) {
    it(`by ${login}: is not 01-01's issue; 01-01 runs and the plan that needs it waits`, async () => {
      const github = repository([forged(5, login), planIssue(11, '01-01', [], ['status:ready']), planIssue(12, '01-02', ['01-01'], ['status:blocked'])]);

      await testProbot().receive(round('after-forgery'));

      expect(dispatched(github)).toEqual(['01-01']);
      expect(github.issue(12).labels).toContain('status:blocked');
      // The forged issue is neither used nor touched.
      expect(github.writes().filter((w) => w.url.includes('/issues/5'))).toEqual([]);
    });
  }

  it("by a person with the labels: not the plan's either", async () => {
    const github = repository([
      { ...forged(5, 'mallory'), user: { login: 'mallory', type: 'User' } },
      planIssue(11, '01-01', [], ['status:ready']),
      planIssue(12, '01-02', ['01-01'], ['status:blocked']),
    ]);

    await testProbot().receive(round('after-forgery'));

    expect(dispatched(github)).toEqual(['01-01']);
  });
});
