import nock from 'nock';
import { optionsMarker } from '../../../app/engine/forge/check-actions.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { changesAnything, type Command } from '../../../app/engine/forge/command.js';
import { helpText } from '../../../app/engine/forge/help.js';
import { commandLine, ParseError, parseCommand } from '../../../app/engine/forge/parse-command.js';
import { permits } from '../../../app/engine/forge/permits.js';
import { slug } from '../../../app/engine/forge/slug.js';
import { spikeDraft } from '../../../app/engine/forge/spike-draft.js';
import { RETRY_ACTION } from '../../../app/engine/forge/check-actions.js';
import { recordedStatus, statusLabel, type StatusValue } from '../../../app/engine/forge/names.js';
import { desiredIssue, withMarkerRecord } from '../../../app/engine/forge/plan-issue.js';
import { parseKnowledge } from '../../../app/engine/knowledge/documents/parse.js';
import { loadSpec } from '../../../app/engine/core/spec/load.js';
import { loadTemplate } from '../../../app/machine/templates.js';
import { githubApi, testProbot, webhookExample } from '../../helpers/probot.js';
import { planMd, specOf, type PlanOptions } from '../../helpers/spec.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

// ---------------------------------------------------------------------------------------------
// Fixtures: the repository of the real issue_comment payload, and a spec of five plans whose
// issues look exactly as the spec-PR sync writes them (desiredIssue).

const REPO = '/repos/Codertocat/Hello-World';
const COMMENT = 492700400;
const SPEC = 'SPC-042';

const PLANS: PlanOptions[] = [
  { id: '01-01' },
  { id: '01-02' },
  { id: '02-01', dependsOn: ['01-01', '01-02'] },
  { id: '02-02', dependsOn: ['01-01'] },
  { id: '02-03', dependsOn: ['01-01'], title: 'Pick the database' },
];
const spec = loadSpec(specOf(PLANS)).spec!;
const NUMBER: Record<string, number> = { '01-01': 10, '01-02': 11, '02-01': 12, '02-02': 13, '02-03': 14 };

interface IssueState {
  status?: StatusValue;
  closed?: 'completed' | 'not_planned';
}

/** A plan issue as the REST API returns it. */
function planIssue(plan: string, state: IssueState = {}) {
  const options = PLANS.find((p) => p.id === plan)!;
  const desired = desiredIssue({
    spec,
    plan: spec.planById.get(plan)!,
    planText: planMd(options),
    specPath: `docs/specs/${SPEC}-reset`,
    blobBase: 'https://github.com/Codertocat/Hello-World/blob/master',
    issueNumbers: new Map(Object.entries(NUMBER)),
  });
  const labels = [...desired.labels, ...(state.status ? [statusLabel(state.status)] : [])];
  // A done plan carries the App's record of its merged plan PR (verified-record.ts); every status, the record the label shows.
  const done = state.closed === 'completed' && state.status === 'verified';
  const recorded = withMarkerRecord(desired.body, 'status', state.status === undefined ? undefined : recordedStatus(state.status));
  return {
    id: 9000 + NUMBER[plan]!,
    number: NUMBER[plan]!,
    title: desired.title,
    body: done ? withMarkerRecord(recorded, 'verified', '77') : recorded,
    labels: labels.map((name) => ({ name })),
    state: state.closed ? 'closed' : 'open',
    state_reason: state.closed ?? null,
    user: { login: 'harness[bot]', type: 'Bot' },
  };
}

/** 01-01 is done; 02-03 runs; the rest are planned but not queued. */
const TODAY: Record<string, IssueState> = { '01-01': { status: 'verified', closed: 'completed' }, '02-03': { status: 'running' } };

function planIssues(states: Record<string, IssueState> = TODAY) {
  return PLANS.map((p) => planIssue(p.id, states[p.id] ?? {}));
}

type CommentPayload = {
  comment: { id: number; body: string; user: { login: string; type: string } };
  issue: Record<string, unknown> & { number: number; body: string | null; pull_request?: unknown };
  sender: { login: string; type: string };
};

/** The real `issue_comment.created` payload, with the comment's body (and where it is) adapted. */
function commentEvent(body: string, adapt: (p: CommentPayload) => void = () => undefined, id = 'delivery-1') {
  const payload = webhookExample<CommentPayload>('issue_comment', (p) => p.action === 'created');
  payload.comment.body = body;
  adapt(payload);
  return { id, name: 'issue_comment', payload } as never;
}

/** The comment is on a plan issue. */
function onPlanIssue(plan: string, state: IssueState = {}) {
  return (p: CommentPayload) => {
    const issue = planIssue(plan, state);
    Object.assign(p.issue, { number: issue.number, title: issue.title, body: issue.body, labels: issue.labels, state: issue.state, user: issue.user });
  };
}

/** The comment is on pull request #1 (GitHub sends PR conversation comments as issue comments). */
function onPullRequest(p: CommentPayload) {
  p.issue.pull_request = { url: `https://api.github.com${REPO}/pulls/1`, html_url: 'https://github.com/Codertocat/Hello-World/pull/1' };
}

function by(login: string, type = 'User') {
  return (p: CommentPayload) => {
    p.sender.login = login;
    p.sender.type = type;
    p.comment.user.login = login;
    p.comment.user.type = type;
  };
}

function both(...adapts: ((p: CommentPayload) => void)[]) {
  return (p: CommentPayload) => adapts.forEach((a) => a(p));
}

// ---------------------------------------------------------------------------------------------
// Expected requests.

function acknowledged(scope: nock.Scope, status: 200 | 201 = 201): void {
  scope.post(`${REPO}/issues/comments/${COMMENT}/reactions`, { content: 'eyes' }).reply(status, { id: 1, content: 'eyes' });
}

/** .github/harness.yml through context.config: the repository's, then the owner's .github repository. */
function config(scope: nock.Scope, yaml?: string, repo = REPO): void {
  const owner = repo.split('/')[2]!;
  if (yaml === undefined) {
    scope.get(`${repo}/contents/.github%2Fharness.yml`).reply(404).get(`/repos/${owner}/.github/contents/.github%2Fharness.yml`).reply(404);
  } else {
    scope.get(`${repo}/contents/.github%2Fharness.yml`).reply(200, yaml);
  }
}

const FLAGS: Record<string, Record<string, boolean>> = {
  admin: { admin: true, maintain: true, push: true, triage: true, pull: true },
  maintain: { admin: false, maintain: true, push: true, triage: true, pull: true },
  write: { admin: false, maintain: false, push: true, triage: true, pull: true },
  triage: { admin: false, maintain: false, push: false, triage: true, pull: true },
  read: { admin: false, maintain: false, push: false, triage: false, pull: true },
};
const LEGACY: Record<string, string> = { admin: 'admin', maintain: 'write', write: 'write', triage: 'read', read: 'read' };

function role(scope: nock.Scope, login: string, roleName: string, flags = FLAGS[roleName]!, repo = REPO): void {
  scope
    .get(`${repo}/collaborators/${login}/permission`)
    .reply(200, { permission: LEGACY[roleName] ?? 'read', role_name: roleName, user: { login, permissions: flags } });
}

function listed(scope: nock.Scope, issues: unknown[], repo = REPO): void {
  // Plan issues are the App's own, told by its login (plan-issues.ts): asked once per App process.
  viewer(scope);
  scope
    .get(`${repo}/issues`)
    .query({ labels: `harness:plan,spec:${SPEC}`, state: 'all', direction: 'asc', per_page: '100' })
    .reply(200, issues);
}

/** The reply: a comment on the issue, captured so the test can read it. */
function answered(scope: nock.Scope, issue = 1, repo = REPO): { text: () => string } {
  let text = '';
  scope
    .post(`${repo}/issues/${issue}/comments`, (b: { body: string }) => {
      if (b.body.startsWith('<!-- harness:answer')) return false;
      // The hidden markers last (engine/forge/reply-markers.ts): what a person reads is the rest.
      text = b.body.replace(/(\n\n(<!-- harness:(reply|refused) \S+ -->\n?)+)$/, '');
      return true;
    })
    .reply(201, { id: 7000, body: 'reply', user: { type: 'Bot' } });
  return { text: () => text };
}

/** A status write: the App's record on the marker line when it changes (ready and blocked are one record), then the label. */
function labelled(scope: nock.Scope, issue: number, add: StatusValue, remove?: StatusValue, repo = REPO): void {
  const plan = Object.entries(NUMBER).find(([, n]) => n === issue)![0];
  if (remove === undefined || recordedStatus(add) !== recordedStatus(remove)) {
    scope
      .patch(`${repo}/issues/${issue}`, (b: { body?: string }) =>
        new RegExp(`^<!-- harness:plan ${SPEC}/${plan} [^\\n]*status=${recordedStatus(add)}[ -]`).test(b.body ?? ''),
      )
      .reply(200, (_uri: string, b: Record<string, unknown>) => ({ ...planIssue(plan), body: b.body }));
  }
  scope.post(`${repo}/issues/${issue}/labels`, { labels: [statusLabel(add)] }).reply(200, []);
  if (remove) scope.delete(`${repo}/issues/${issue}/labels/${encodeURIComponent(statusLabel(remove))}`).reply(200, []);
}

/** The App's own bot, as GraphQL's viewer names it for the installation token (gateway/identity.ts). */
const APP = 'harness[bot]';

function viewer(scope: nock.Scope): void {
  // Asked once per App process, by whichever part wants it first.
  scope
    .post('/graphql', { query: 'query { viewer { login } }' })
    .optionally()
    .reply(200, { data: { viewer: { login: APP } } });
}

/** The comments of an issue, read to see whether a refusal was posted there before. */
function thread(scope: nock.Scope, issue: number, comments: unknown[] = [], repo = REPO): void {
  scope.get(`${repo}/issues/${issue}/comments`).query({ per_page: '100' }).reply(200, comments);
}

/** The answer claim of respond (gateway/claims.ts): the plan branch read, a tag object with the time, the ref on it. */
function answerClaim(scope: nock.Scope, question: number, repo = REPO): void {
  scope
    .get(`${repo}/git/ref/heads%2Fharness%2F${SPEC}%2F02-03`)
    .reply(200, { ref: `refs/heads/harness/${SPEC}/02-03`, object: { sha: 'c0ffee0000000000000000000000000000000003', type: 'commit' } });
  scope
    .post(
      `${repo}/git/tags`,
      (b: { object: string; type: string; tag: string }) =>
        b.object === 'c0ffee0000000000000000000000000000000003' && b.type === 'commit' && b.tag === String(question),
    )
    .reply(201, { sha: '7a90000000000000000000000000000000000001' });
  scope
    .post(`${repo}/git/refs`, { ref: `refs/harness/plans/${SPEC}/02-03/answers/${question}`, sha: '7a90000000000000000000000000000000000001' })
    .reply(201, {});
}

async function run(event: never): Promise<void> {
  await testProbot().receive(event);
}

// ---------------------------------------------------------------------------------------------

describe('the command grammar (engine/commands/parse.ts)', () => {
  const ok: [string, Command][] = [
    ['/harness execute all', { name: 'execute', target: { kind: 'all' } }],
    ['/harness execute 03', { name: 'execute', target: { kind: 'phase', phase: '03' } }],
    ['/harness execute 03-02', { name: 'execute', target: { kind: 'plan', plan: '03-02' } }],
    ['/harness execute SPC-002/all', { name: 'execute', spec: 'SPC-002', target: { kind: 'all' } }],
    ['/harness status', { name: 'status' }],
    ['/harness status SPC-002', { name: 'status', spec: 'SPC-002' }],
    ['/harness verify 03', { name: 'verify', target: { kind: 'phase', phase: '03' } }],
    ['/harness verify SPC-002/03-02', { name: 'verify', spec: 'SPC-002', target: { kind: 'plan', plan: '03-02' } }],
    ['/harness retry 03-02', { name: 'retry', plan: '03-02' }],
    ['/harness abort 03-02', { name: 'abort', plan: '03-02' }],
    ['/harness respond 03-02 use   Postgres, not "SQLite"', { name: 'respond', plan: '03-02', answer: 'use   Postgres, not "SQLite"' }],
    ['/harness respond SPC-002/03-02 approve', { name: 'respond', spec: 'SPC-002', plan: '03-02', answer: 'approve' }],
    ['/harness spike "Can SQLite take concurrent writers?"', { name: 'spike', question: 'Can SQLite take concurrent writers?' }],
    ['/harness spike “Does it resume?”', { name: 'spike', question: 'Does it resume?' }],
    ['/harness reflect', { name: 'reflect' }],
    ['/harness retrospective', { name: 'retrospective' }],
    ['/harness retrospective SPC-002', { name: 'retrospective', spec: 'SPC-002' }],
    ['/harness retrospective 03-02', { name: 'retrospective', plan: '03-02' }],
    ['/harness retrospective SPC-002/03-02', { name: 'retrospective', spec: 'SPC-002', plan: '03-02' }],
    ['/harness help', { name: 'help' }],
    ['   /harness   status   ', { name: 'status' }],
  ];
  it.each(ok)('%s', (line, command) => {
    expect(parseCommand(line)).toEqual(command);
  });

  const bad: [string, string][] = [
    ['/harness', 'no command after /harness'],
    ['/harness exectue all', '`exectue` is not a harness command; did you mean "execute"?'],
    ['/harness Execute all', '`Execute` is not a harness command; did you mean "execute"?'],
    ['/harness execute', 'execute needs a target; the form is `/harness execute <all|PP|PP-NN>`'],
    ['/harness execute 1', '`1` is not `all`, a phase (such as 03) or a plan (such as 03-02); did you mean 01?; the form is `/harness execute <all|PP|PP-NN>`'],
    ['/harness execute 01 02', 'execute takes one target, not "01 02"; the form is `/harness execute <all|PP|PP-NN>`'],
    ['/harness verify all', '`all` is not a phase (such as 03) or a plan (such as 03-02); the form is `/harness verify <PP|PP-NN>`'],
    ['/harness retry 2-3', '`2-3` is not a plan id (plan ids look like 03-02); did you mean 02-03?; the form is `/harness retry <PP-NN>`'],
    ['/harness abort 03', '`03` is not a plan id (plan ids look like 03-02); the form is `/harness abort <PP-NN>`'],
    ['/harness retry spc-2/03-02', '`spc-2` is not a spec id (spec ids look like SPC-002); the form is `/harness retry <PP-NN>`'],
    ['/harness respond 03-02', 'give the answer after the plan id; the form is `/harness respond <PP-NN> <answer…>`'],
    ['/harness spike Can it?', 'put the question in double quotes, and nothing after it; the form is `/harness spike "<question>"`'],
    ['/harness spike ""', 'the question is empty; the form is `/harness spike "<question>"`'],
    [`/harness spike "${'x'.repeat(301)}"`, 'the question is 301 characters; keep it to 300; the form is `/harness spike "<question>"`'],
    ['/harness reflect now', 'reflect takes nothing after it, not "now"; the form is `/harness reflect`'],
    ['/harness status SPC-1 SPC-2', 'status takes at most a spec id, not "SPC-1 SPC-2"; the form is `/harness status [SPEC]`'],
    ['/harness retrospective 3-2', '`3-2` is not a spec id (spec ids look like SPC-002); the form is `/harness retrospective [SPEC | [SPEC/]PP-NN]`'],
    ['/harness retrospective SPC-002/x', '`x` is not a plan id (plan ids look like 03-02); the form is `/harness retrospective [SPEC | [SPEC/]PP-NN]`'],
  ];
  it.each(bad)('%s is refused with a reason', (line, message) => {
    const parsed = parseCommand(line);
    expect(parsed).toBeInstanceOf(ParseError);
    expect((parsed as ParseError).message).toBe(message);
  });

  it('reads only the first /harness line, outside code blocks, and nothing that merely starts with /harness', () => {
    expect(parseCommand('Looks good.\n/harness execute 01\n/harness abort 01-01')).toEqual({ name: 'execute', target: { kind: 'phase', phase: '01' } });
    expect(parseCommand('Try this:\n```\n/harness execute all\n```\n/harness status')).toEqual({ name: 'status' });
    expect(parseCommand('~~~~\n/harness execute all\n~~~\nstill code\n~~~~')).toBeUndefined();
    expect(parseCommand('/harnesses are great')).toBeUndefined();
    expect(parseCommand('please run /harness execute all')).toBeUndefined();
    expect(parseCommand(null)).toBeUndefined();
    expect(commandLine('a\r\n/harness help\r\n')).toBe('help');
  });

  it('only help and status change nothing', () => {
    const all: Command[] = ok.map(([, c]) => c);
    expect(all.filter((c) => !changesAnything(c)).map((c) => c.name)).toEqual(['status', 'status', 'help', 'status']);
  });

  it('orders roles read < triage < write < maintain < admin', () => {
    expect(permits('write', 'write')).toBe(true);
    expect(permits('maintain', 'write')).toBe(true);
    expect(permits('triage', 'write')).toBe(false);
    expect(permits('read', 'triage')).toBe(false);
    expect(permits('none', 'read')).toBe(false);
  });

  it('has a help text in which no line is a command, so the App never answers itself', () => {
    expect(parseCommand(helpText('something'))).toBeUndefined();
  });
});

describe('slugs and drafts', () => {
  it('slugs a question at a word boundary, and text without latin letters by its hash', () => {
    expect(slug('Can SQLite take concurrent writers?')).toBe('can-sqlite-take-concurrent-writers');
    expect(slug('Ça résiste à 10 000 écritures ?')).toBe('ca-resiste-a-10-000-ecritures');
    expect(slug('a'.repeat(30) + ' ' + 'b'.repeat(30))).toBe('a'.repeat(30));
    expect(slug('データベース')).toMatch(/^h-[0-9a-f]{12}$/);
    expect(slug('データベース')).toBe(slug('データベース'));
  });

  it('renders a valid HYPOTHESIS.md from the shipped template', async () => {
    const draft = spikeDraft({
      template: await loadTemplate('spike/HYPOTHESIS.md'),
      question: 'Can SQLite take concurrent writers?',
      project: 'Hello-World',
      spec: SPEC,
      now: new Date('2026-03-02T11:00:00.123Z'),
      askedIn: 'Asked by @ana in #1.',
    });
    const [file] = draft.files;
    expect(file!.path).toBe('.harness/knowledge/spikes/Hello-World/can-sqlite-take-concurrent-writers/HYPOTHESIS.md');
    const parsed = parseKnowledge('hypothesis', file!.path, file!.content);
    expect(parsed.problems).toEqual([]);
    expect(parsed.data).toEqual({
      spike: 'can-sqlite-take-concurrent-writers',
      project: 'Hello-World',
      spec: SPEC,
      question: 'Can SQLite take concurrent writers?',
      status: 'open',
      created: '2026-03-02T11:00:00Z',
      tags: [],
    });
  });
});

describe('/harness on issue and pull request comments', () => {
  it('ignores a comment without a /harness line: not a single request', async () => {
    const scope = githubApi();
    await run(commentEvent('I think /harness execute all would do it.'));
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('execute all on a plan issue: queues ready and blocked plans, leaves the rest, and the round starts what can run', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'admin');
    listed(scope, planIssues());
    labelled(scope, 11, 'ready'); // 01-02 needs nothing
    labelled(scope, 13, 'ready'); // 02-02 needs 01-01, closed as completed and verified
    labelled(scope, 12, 'blocked'); // 02-01 also needs 01-02, not verified yet
    // The scheduling round (app/github/schedule/round.ts) is handed the issues as they are now,
    // so it reads nothing again: it reads the base head once and starts both ready plans.
    scope.get(`${REPO}/git/ref/heads%2Fmaster`).reply(200, { ref: 'refs/heads/master', object: { sha: 'base-sha' } });
    for (const plan of ['01-02', '02-02']) {
      const issue = planIssue(plan, { status: 'ready' });
      scope.post(`${REPO}/git/refs`, { ref: `refs/heads/harness/${SPEC}/${plan}`, sha: 'base-sha' }).reply(201, {});
      scope
        .post(`${REPO}/actions/workflows/harness-worker.yml/dispatches`, {
          ref: 'master',
          inputs: { spec: SPEC, plan, resume: 'false', running: '4' },
          return_run_details: true,
        })
        .reply(204);
      scope
        .post(`${REPO}/check-runs`, (b: { name: string; external_id: string }) => b.name === `harness / plan ${plan}` && b.external_id === `${SPEC}/${plan}`)
        .reply(201, {
          id: 1,
          name: `harness / plan ${plan}`,
          head_sha: 'base-sha',
          external_id: `${SPEC}/${plan}`,
          status: 'queued',
          conclusion: null,
          output: { title: null, summary: null, annotations_count: 0 },
        });
      // The race-safe status write: status:running added, then status:ready (set just above) removed.
      labelled(scope, issue.number, 'running', 'ready');
    }
    const answer = answered(scope, 11);

    await run(commentEvent('/harness execute all', onPlanIssue('01-02')));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(
      [
        `Queued 3 plans of ${SPEC}, every plan:`,
        '- ready: 01-02 (#11), 02-02 (#13)',
        '- blocked until what they need is verified: 02-01 (#12)',
        '- left as they were: 01-01 (verified), 02-03 (running)',
        '',
        'Started now: 01-02, 02-02. Each plan issue shows its status as it changes.',
      ].join('\n'),
    );
  });

  it('execute on a spec PR finds the spec from the sticky status comment and names what the blocked plans wait for', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope, 'slots: 1\n');
    role(scope, 'Codertocat', 'write');
    scope.get(`${REPO}/pulls/1`).reply(200, {
      number: 1,
      base: { ref: 'main', repo: { full_name: 'Codertocat/Hello-World' } },
      head: { ref: 'spec', repo: { full_name: 'Codertocat/Hello-World' } },
    });
    scope
      .get(`${REPO}/issues/1/comments`)
      .query({ per_page: '100' })
      .reply(200, [
        { id: 1, body: `<!-- harness:status SPC-001 -->\nquoted by a person`, user: { type: 'User' } },
        { id: 2, body: `<!-- harness:status ${SPEC} -->\n| plan | …`, user: { login: APP, type: 'Bot' } },
        // Another bot typing the marker names no spec: only the App's own status comment does.
        { id: 3, body: '<!-- harness:status SPC-666 -->', user: { login: 'mallory-bot[bot]', type: 'Bot' } },
      ]);
    viewer(scope);
    listed(scope, planIssues());
    labelled(scope, 12, 'blocked');
    // One slot, held by 02-03: the round starts nothing and changes no label, so it makes no request.
    const answer = answered(scope);

    await run(commentEvent('/harness execute 02-01', onPullRequest));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(
      [
        `Queued 1 plan of ${SPEC}, 02-01:`,
        '- blocked until what they need is verified: 02-01 (#12)',
        '',
        'They wait for 01-02, which is not queued: execute it too.',
        '',
        'Nothing can start yet: the scheduling round starts each plan when what it needs is verified and a slot is free.',
      ].join('\n'),
    );
  });

  it('execute on a PR that changes two specs asks which one, and changes nothing', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'admin');
    scope.get(`${REPO}/pulls/1`).reply(200, {
      number: 1,
      base: { ref: 'master', repo: { full_name: 'Codertocat/Hello-World' } },
      head: { ref: 'x', repo: { full_name: 'Codertocat/Hello-World' } },
    });
    scope
      .get(`${REPO}/issues/1/comments`)
      .query({ per_page: '100' })
      .reply(200, [
        { id: 1, body: `<!-- harness:status ${SPEC} -->`, user: { login: APP, type: 'Bot' } },
        { id: 2, body: '<!-- harness:status SPC-007 -->', user: { login: APP, type: 'Bot' } },
      ]);
    viewer(scope);
    const answer = answered(scope);

    await run(commentEvent('/harness execute all', onPullRequest));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(
      `I could not run that: this pull request changes 2 specs (SPC-007, ${SPEC}); name the one you mean, as in \`/harness execute SPC-007/all\`.`,
    );
  });

  it("status needs no permission: anyone gets the spec's progress table", async () => {
    const scope = githubApi();
    acknowledged(scope);
    listed(scope, planIssues({ ...TODAY, '02-02': { status: 'failed' }, '01-02': { status: 'checkpoint' } }));
    const answer = answered(scope);

    await run(commentEvent(`/harness status ${SPEC}`, by('passer-by')));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(
      [
        `**${SPEC}**: 1 of 5 plans verified · 1 running · 1 checkpoint · 1 failed · 1 planned`,
        '',
        '| plan | phase | title | status | issue |',
        '|---|---|---|---|---|',
        '| 01-01 | 01 | Plan 01-01 | verified | #10 |',
        '| 01-02 | 01 | Plan 01-02 | checkpoint | #11 |',
        '| 02-01 | 02 | Plan 02-01 | planned | #12 |',
        '| 02-02 | 02 | Plan 02-02 | failed | #13 |',
        '| 02-03 | 02 | Pick the database | running | #14 |',
      ].join('\n'),
    );
  });

  it('status on a spec PR never synced lists the PR files once to find the spec', async () => {
    const scope = githubApi();
    acknowledged(scope);
    scope.get(`${REPO}/issues/1/comments`).query({ per_page: '100' }).reply(200, []);
    config(scope);
    scope
      .get(`${REPO}/pulls/1/files`)
      .query({ per_page: '100' })
      .reply(200, [{ filename: `docs/specs/${SPEC}-reset/SPEC.md` }, { filename: 'README.md' }]);
    listed(scope, []);
    const answer = answered(scope);

    await run(commentEvent('/harness status', onPullRequest));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(`**${SPEC}** has no plan issues yet: they are made when the spec's pull request passes the \`harness / spec\` check.`);
  });

  it('verify on a plan issue dispatches the worker to resume the plan; a custom role counts as its base role', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'release-manager', FLAGS.write);
    scope
      .post(`${REPO}/actions/workflows/harness-worker.yml/dispatches`, {
        ref: 'master',
        inputs: { spec: SPEC, plan: '02-01', resume: 'true' },
        return_run_details: true,
      })
      .reply(204);
    const answer = answered(scope, 12);

    await run(commentEvent('/harness verify 02-01', onPlanIssue('02-01', { status: 'failed' })));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(
      `Verifying plan 02-01 of ${SPEC} again: the worker is dispatched on \`master\` and resumes \`harness/${SPEC}/02-01\`. Its check run shows the result.`,
    );
  });

  it('verify of a phase named with its spec works from any issue, as phase-PP', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'maintain');
    listed(scope, planIssues());
    scope
      .post(`${REPO}/actions/workflows/harness-worker.yml/dispatches`, {
        ref: 'master',
        inputs: { spec: SPEC, plan: 'phase-02', resume: 'true' },
        return_run_details: true,
      })
      .reply(204);
    const answer = answered(scope);

    await run(commentEvent(`/harness verify ${SPEC}/02`));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toContain(`Verifying phase 02 of ${SPEC} again`);
  });

  it('verify of a phase the spec does not have says which phases it has', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'admin');
    listed(scope, planIssues());
    const answer = answered(scope);

    await run(commentEvent(`/harness verify ${SPEC}/07`));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(`I could not run that: ${SPEC} has no phase 07; its phases are 01, 02.`);
  });

  it('retry a failed plan: deletes its branch, makes it ready, and runs a round', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope, 'slots: 1\n');
    role(scope, 'Codertocat', 'write');
    scope
      .get(`${REPO}/git/ref/heads%2Fharness%2F${SPEC}%2F02-03`)
      .reply(200, { ref: `refs/heads/harness/${SPEC}/02-03`, object: { sha: 'feed000000000000000000000000000000000014', type: 'commit' } });
    scope.post(`${REPO}/git/refs`, { ref: `refs/harness/kept/${SPEC}/02-03/feed00000000`, sha: 'feed000000000000000000000000000000000014' }).reply(201, {});
    scope.delete(`${REPO}/git/refs/heads%2Fharness%2F${SPEC}%2F02-03`).reply(204);
    labelled(scope, 14, 'ready', 'failed');
    // The plan came from the issue commented on, so the round reads the spec's issues itself.
    // 02-02 holds the one slot: the round starts nothing.
    listed(scope, planIssues({ ...TODAY, '02-02': { status: 'running' }, '02-03': { status: 'ready' } }));
    const answer = answered(scope, 14);

    await run(commentEvent('/harness retry 02-03', onPlanIssue('02-03', { status: 'failed' })));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(
      `Retrying ${SPEC} plan 02-03 (#14): its branch \`harness/${SPEC}/02-03\` is deleted and the plan is ready again. A scheduling round starts it as soon as a slot is free. What the branch held is kept at \`refs/harness/kept/${SPEC}/02-03/feed00000000\` (\`git fetch origin refs/harness/kept/${SPEC}/02-03/feed00000000\` to look at it).`,
    );
  });

  it('retry refuses a plan that has not failed', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'write');
    const answer = answered(scope, 14);

    await run(commentEvent('/harness retry 02-03', onPlanIssue('02-03', { status: 'running' })));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(`${SPEC} plan 02-03 (#14) is running, not failed: retry only starts a failed plan again.`);
  });

  it("abort: cancels the plan's unfinished worker runs, marks it failed and cancels its check run with a Retry button", async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'admin');
    const runs = '/actions/workflows/harness-worker.yml/runs';
    scope.get(`${REPO}${runs}`).query({ status: 'queued', per_page: '100' }).reply(200, { total_count: 0, workflow_runs: [] });
    scope
      .get(`${REPO}${runs}`)
      .query({ status: 'in_progress', per_page: '100' })
      .reply(200, {
        total_count: 2,
        workflow_runs: [
          { id: 77, display_title: `harness ${SPEC}/02-03`, status: 'in_progress' },
          { id: 78, display_title: `harness ${SPEC}/02-02`, status: 'in_progress' },
        ],
      });
    scope.post(`${REPO}/actions/runs/77/cancel`).reply(202, {});
    labelled(scope, 14, 'failed', 'running');
    scope
      .get(`${REPO}/commits/heads%2Fharness%2F${SPEC}%2F02-03/check-runs`)
      .query({ check_name: 'harness / plan 02-03' })
      .reply(200, {
        total_count: 1,
        check_runs: [
          {
            id: 501,
            name: 'harness / plan 02-03',
            head_sha: 'abc',
            external_id: `${SPEC}/02-03`,
            status: 'in_progress',
            conclusion: null,
            output: { title: null, summary: null, annotations_count: 0 },
          },
        ],
      });
    scope
      .patch(`${REPO}/check-runs/501`, {
        status: 'completed',
        conclusion: 'cancelled',
        output: { title: 'Aborted', summary: 'Aborted by @Codertocat. Retry starts the plan again from scratch.' },
        actions: [{ ...RETRY_ACTION }],
      })
      .reply(200, {});
    const answer = answered(scope, 14);

    await run(commentEvent('/harness abort 02-03', onPlanIssue('02-03', { status: 'running' })));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(`Aborted ${SPEC} plan 02-03 (#14, was running): cancelled worker run 77; it is failed now, and retry starts it again.`);
  });

  it("abort: cancels the run the dispatch recorded on the check run, without searching the worker's runs", async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'admin');
    // The check run's Details link is the run GitHub named at dispatch (return_run_details).
    scope
      .get(`${REPO}/commits/heads%2Fharness%2F${SPEC}%2F02-03/check-runs`)
      .query({ check_name: 'harness / plan 02-03' })
      .reply(200, {
        total_count: 1,
        check_runs: [
          {
            id: 501,
            name: 'harness / plan 02-03',
            head_sha: 'abc',
            external_id: `${SPEC}/02-03`,
            status: 'in_progress',
            conclusion: null,
            details_url: 'https://github.com/Codertocat/Hello-World/actions/runs/4242',
            output: { title: null, summary: null, annotations_count: 0 },
          },
        ],
      });
    scope.post(`${REPO}/actions/runs/4242/cancel`).reply(202, {});
    labelled(scope, 14, 'failed', 'running');
    scope
      .patch(`${REPO}/check-runs/501`, {
        status: 'completed',
        conclusion: 'cancelled',
        output: { title: 'Aborted', summary: 'Aborted by @Codertocat. Retry starts the plan again from scratch.' },
        actions: [{ ...RETRY_ACTION }],
      })
      .reply(200, {});
    const answer = answered(scope, 14);

    await run(commentEvent('/harness abort 02-03', onPlanIssue('02-03', { status: 'running' })));

    // No GET …/actions/workflows/harness-worker.yml/runs: nock would have failed the delivery.
    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(`Aborted ${SPEC} plan 02-03 (#14, was running): cancelled worker run 4242; it is failed now, and retry starts it again.`);
  });

  it("abort from the button: the pressed check run's recorded run is the one cancelled; one that finished meanwhile is nothing to cancel", async () => {
    const scope = githubApi();
    listed(scope, planIssues(), CR_REPO);
    config(scope, undefined, CR_REPO);
    role(scope, 'codebytere', 'admin', FLAGS.admin, CR_REPO);
    scope.post(`${CR_REPO}/actions/runs/5151/cancel`).reply(409, { message: 'Cannot cancel a workflow run that is completed.' });
    labelled(scope, 14, 'failed', 'running', CR_REPO);
    scope.patch(`${CR_REPO}/check-runs/${CHECK_RUN_ID}`).reply(200, {});
    const answer = answered(scope, 14, CR_REPO);

    await run(buttonEvent('abort', (p) => (p.check_run.details_url = 'https://github.com/Electron/Electron/actions/runs/5151/job/9')));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(`Aborted ${SPEC} plan 02-03 (#14, was running): no worker run was in progress; it is failed now, and retry starts it again.`);
  });

  it('respond: answers the latest checkpoint a bot asked, sets running and resumes the worker', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'write');
    scope
      .get(`${REPO}/issues/14/comments`)
      .query({ per_page: '100' })
      .reply(200, [
        { id: 1, body: '<!-- harness:checkpoint 02-03 schema -->\nWhich schema?', user: { login: APP, type: 'Bot' } },
        { id: 2, body: '<!-- harness:checkpoint 02-03 db-choice -->\n**Plan 02-03 waits for a person**', user: { login: APP, type: 'Bot' } },
        { id: 3, body: '<!-- harness:checkpoint 02-03 forged -->', user: { type: 'User' } },
        // Another bot's marker is no question either.
        { id: 4, body: '<!-- harness:checkpoint 02-03 other-bot -->', user: { login: 'renovate[bot]', type: 'Bot' } },
      ]);
    viewer(scope);
    answerClaim(scope, 2);
    scope
      .post(`${REPO}/issues/14/comments`, { body: '<!-- harness:answer 02-03 db-choice -->\nPostgres, not "SQLite"' })
      .reply(201, { id: 8, body: '', user: { type: 'Bot' } });
    labelled(scope, 14, 'running', 'checkpoint');
    scope
      .post(`${REPO}/actions/workflows/harness-worker.yml/dispatches`, {
        ref: 'master',
        inputs: { spec: SPEC, plan: '02-03', resume: 'true' },
        return_run_details: true,
      })
      .reply(204);
    const answer = answered(scope, 14);

    await run(commentEvent('/harness respond 02-03 Postgres, not "SQLite"', onPlanIssue('02-03', { status: 'checkpoint' })));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(
      `Answered checkpoint \`db-choice\` of ${SPEC} plan 02-03 (#14) for @Codertocat; the worker resumes from what is committed on the plan branch.`,
    );
  });

  it('respond to a plan that is not at a checkpoint answers so, and writes nothing', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'write');
    listed(scope, planIssues());
    const answer = answered(scope);

    await run(commentEvent(`/harness respond ${SPEC}/02-03 yes`));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(`${SPEC} plan 02-03 (#14) is running, not waiting at a checkpoint: there is nothing to answer.`);
  });

  it('spike: opens a knowledge PR with HYPOTHESIS.md in one commit, labelled harness:knowledge and spike', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'write');
    const branch = 'harness/knowledge/spike/can-sqlite-take-concurrent-writers';
    const path = '.harness/knowledge/spikes/Hello-World/can-sqlite-take-concurrent-writers/HYPOTHESIS.md';
    scope
      .get(`${REPO}/pulls`)
      .query({ head: `Codertocat:${branch}`, state: 'all', per_page: '100' })
      .reply(200, []);
    scope.get(`${REPO}/git/ref/heads%2Fmaster`).reply(200, { ref: 'refs/heads/master', object: { sha: 'base-sha' } });
    scope.get(`${REPO}/git/commits/base-sha`).reply(200, { sha: 'base-sha', tree: { sha: 'base-tree' } });
    let content = '';
    scope
      .post(`${REPO}/git/trees`, (b: { base_tree: string; tree: { path: string; mode: string; type: string; content: string }[] }) => {
        content = b.tree[0]!.content;
        return b.base_tree === 'base-tree' && b.tree.length === 1 && b.tree[0]!.path === path && b.tree[0]!.mode === '100644' && b.tree[0]!.type === 'blob';
      })
      .reply(201, { sha: 'new-tree' });
    scope
      .post(`${REPO}/git/commits`, { message: 'spike: Can SQLite take concurrent writers?', tree: 'new-tree', parents: ['base-sha'] })
      .reply(201, { sha: 'new-commit' });
    scope.post(`${REPO}/git/refs`, { ref: `refs/heads/${branch}`, sha: 'new-commit' }).reply(201, {});
    scope
      .post(
        `${REPO}/pulls`,
        (b: { title: string; head: string; base: string; body: string }) =>
          b.title === 'Spike: Can SQLite take concurrent writers?' && b.head === branch && b.base === 'master' && b.body.includes(path),
      )
      .reply(201, { number: 50, html_url: 'https://github.com/Codertocat/Hello-World/pull/50', state: 'open', merged_at: null });
    scope.post(`${REPO}/issues/50/labels`, { labels: ['harness:knowledge', 'spike'] }).reply(200, []);
    // The worker runs the spike on its branch: spec "knowledge" and plan "spike/<slug>" name harness/knowledge/spike/<slug>.
    scope
      .post(`${REPO}/actions/workflows/harness-worker.yml/dispatches`, {
        ref: 'master',
        inputs: { spec: 'knowledge', plan: 'spike/can-sqlite-take-concurrent-writers', resume: 'false' },
        return_run_details: true,
      })
      .reply(204);
    const answer = answered(scope);

    await run(commentEvent('/harness spike "Can SQLite take concurrent writers?"'));

    expect(scope.pendingMocks()).toEqual([]);
    const parsed = parseKnowledge('hypothesis', path, content);
    expect(parsed.problems).toEqual([]);
    expect(parsed.data).toMatchObject({
      spike: 'can-sqlite-take-concurrent-writers',
      project: 'Hello-World',
      question: 'Can SQLite take concurrent writers?',
      status: 'open',
    });
    expect(parsed.body).toContain('Asked by @Codertocat in [a comment](https://github.com/Codertocat/Hello-World/issues/1#issuecomment-492700400) on #1.');
    expect(answer.text()).toBe(
      'Opened spike #50 for "Can SQLite take concurrent writers?": its worker drafts the hypothesis and the experiment, runs it in `.harness/knowledge/spikes/Hello-World/can-sqlite-take-concurrent-writers/` and writes the decision there. https://github.com/Codertocat/Hello-World/pull/50',
    );
  });

  it('spike asked again finds its PR and opens nothing', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'write');
    scope
      .get(`${REPO}/pulls`)
      .query({ head: 'Codertocat:harness/knowledge/spike/can-sqlite-take-concurrent-writers', state: 'all', per_page: '100' })
      .reply(200, [{ number: 50, html_url: 'https://github.com/Codertocat/Hello-World/pull/50', state: 'open', merged_at: null }]);
    // Its branch has the decision: nothing is run again.
    const folder = '.harness/knowledge/spikes/Hello-World/can-sqlite-take-concurrent-writers';
    scope
      .get(`${REPO}/contents/${encodeURIComponent(folder)}`)
      .query({ ref: 'harness/knowledge/spike/can-sqlite-take-concurrent-writers' })
      .reply(
        200,
        ['HYPOTHESIS.md', 'EXPERIMENT.md', 'DECISION.md'].map((name) => ({ name, path: `${folder}/${name}`, type: 'file', sha: name })),
      );
    const answer = answered(scope);

    await run(commentEvent('/harness spike "Can SQLite take concurrent writers?"'));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(
      `This question has a spike already: #50 (https://github.com/Codertocat/Hello-World/pull/50), decided in \`${folder}/DECISION.md\`.`,
    );
  });

  it('reflect with no signals says there is nothing to reflect on', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'write');
    scope.get(`${REPO}/contents/.harness%2Fknowledge`).query({ ref: 'master' }).reply(404);
    const answer = answered(scope);

    await run(commentEvent('/harness reflect'));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe('I found no signals to reflect on: there is no `.harness/knowledge/signals/` on `master` yet.');
  });

  it('help: anyone gets the command list', async () => {
    const scope = githubApi();
    acknowledged(scope);
    const answer = answered(scope);

    await run(commentEvent('/harness help', by('passer-by')));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(helpText());
  });

  it.each([
    ['/harness deploy', '`deploy` is not a harness command'],
    ['/harness exectue all', '`exectue` is not a harness command; did you mean "execute"?'],
    ['/harness retry 2-3', '`2-3` is not a plan id (plan ids look like 03-02); did you mean 02-03?; the form is `/harness retry <PP-NN>`'],
  ])('%s is answered with the help text and the reason, and nothing runs', async (body, reason) => {
    const scope = githubApi();
    acknowledged(scope);
    const answer = answered(scope);

    await run(commentEvent(body, by('passer-by')));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(helpText(reason));
  });
});

describe('who may run what', () => {
  it('refuses a read-only commenter a command that changes things', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'read');
    const answer = answered(scope, 11);
    thread(scope, 11);

    await run(commentEvent('/harness execute all', onPlanIssue('01-02')));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(
      'Sorry @Codertocat, `execute` changes things, so it needs the write role on this repository or above, and you have the read role. Nothing was run. Anyone may ask for `status` or `help`; for the rest, ask someone with access.',
    );
  });

  it('takes the least role from .github/harness.yml (permission: maintain refuses write)', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope, 'permission: maintain\n');
    role(scope, 'Codertocat', 'write');
    const answer = answered(scope);
    thread(scope, 1);

    await run(commentEvent('/harness reflect'));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toContain('it needs the maintain role on this repository or above, and you have the write role');
  });

  it('counts someone GitHub does not know on the repository as having no role', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    scope.get(`${REPO}/collaborators/ghost/permission`).reply(404, { message: 'Not Found' });
    const answer = answered(scope, 14);
    thread(scope, 14);

    await run(commentEvent('/harness abort 02-03', both(by('ghost'), onPlanIssue('02-03', { status: 'running' }))));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toContain('and you have no role. Nothing was run.');
  });

  it('refuses bots everything, politely, without checking anything else', async () => {
    const scope = githubApi();
    acknowledged(scope);
    const answer = answered(scope);
    viewer(scope);
    thread(scope, 1);

    await run(commentEvent('/harness status', by('renovate[bot]', 'Bot')));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe('Thanks, but harness takes commands from people only, not from bots (@renovate[bot]), so nothing was run.');
    expect(parseCommand(answer.text())).toBeUndefined();
  });

  it('runs nothing that changes things on a pull request from a fork, whoever asks', async () => {
    const scope = githubApi();
    acknowledged(scope);
    config(scope);
    role(scope, 'Codertocat', 'admin');
    scope.get(`${REPO}/pulls/1`).reply(200, {
      number: 1,
      base: { ref: 'master', repo: { full_name: 'Codertocat/Hello-World' } },
      head: { ref: 'spec', repo: { full_name: 'stranger/Hello-World' } },
    });
    const answer = answered(scope);
    thread(scope, 1);

    await run(commentEvent('/harness execute all', onPullRequest));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(
      'Sorry @Codertocat, commands that change anything do not run on pull requests from forks: what they act on would come from outside this repository. Nothing was run.',
    );
  });
});

describe('exactly once', () => {
  it('a redelivered webhook (same X-GitHub-Delivery) finds its reaction there (200) and does nothing more', async () => {
    const scope = githubApi();
    acknowledged(scope, 201);
    answered(scope);
    acknowledged(scope, 200);

    const probot = testProbot();
    await probot.receive(commentEvent('/harness help', undefined, 'delivery-42'));
    await probot.receive(commentEvent('/harness help', undefined, 'delivery-42'));

    expect(scope.pendingMocks()).toEqual([]);
  });

  it('a failure takes the reaction back, so that the command can be tried again, and says what went wrong', async () => {
    const scope = githubApi();
    acknowledged(scope);
    viewer(scope);
    scope.get(`${REPO}/issues`).query(true).reply(500, { message: 'Server Error' });
    scope.delete(`${REPO}/issues/comments/${COMMENT}/reactions/1`).reply(204);
    const answer = answered(scope);

    await expect(run(commentEvent(`/harness status ${SPEC}`))).rejects.toThrow();

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe('Something went wrong running `status`: Server Error. Write the command again to retry.');
  });
});

// ---------------------------------------------------------------------------------------------

const CR_REPO = '/repos/electron/electron';

type CheckPayload = {
  check_run: { id: number; name: string; external_id: string; details_url?: string };
  requested_action: { identifier: string };
  sender: { login: string; type: string };
};

/** The real `check_run.requested_action` payload, on a harness plan check run. */
function buttonEvent(identifier: string, adapt: (p: CheckPayload) => void = () => undefined) {
  const payload = webhookExample<CheckPayload>('check_run', (p) => p.action === 'requested_action');
  payload.check_run.name = 'harness / plan 02-03';
  payload.check_run.external_id = `${SPEC}/02-03`;
  payload.requested_action.identifier = identifier;
  adapt(payload);
  return { id: 'delivery-button', name: 'check_run', payload } as never;
}

const CHECK_RUN_ID = 1494503112;

describe('check run buttons work like the commands', () => {
  it('retry: the same as /harness retry, answered on the plan issue', async () => {
    const scope = githubApi();
    const issues = planIssues({ ...TODAY, '02-02': { status: 'running' }, '02-03': { status: 'failed' } });
    listed(scope, issues, CR_REPO);
    config(scope, 'slots: 1\n', CR_REPO);
    role(scope, 'codebytere', 'write', FLAGS.write, CR_REPO);
    scope.get(`${CR_REPO}/git/ref/heads%2Fharness%2F${SPEC}%2F02-03`).reply(404, { message: 'Not Found' });
    scope.delete(`${CR_REPO}/git/refs/heads%2Fharness%2F${SPEC}%2F02-03`).reply(422, { message: 'Reference does not exist' });
    labelled(scope, 14, 'ready', 'failed', CR_REPO);
    // The round gets the list already read: one slot, held by 02-02, so it starts nothing.
    const answer = answered(scope, 14, CR_REPO);

    await run(buttonEvent('retry'));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toContain(`its branch \`harness/${SPEC}/02-03\` was already gone and the plan is ready again`);
  });

  it('abort: cancels the runs and concludes the pressed check run itself', async () => {
    const scope = githubApi();
    listed(scope, planIssues(), CR_REPO);
    config(scope, undefined, CR_REPO);
    role(scope, 'codebytere', 'admin', FLAGS.admin, CR_REPO);
    const runs = `${CR_REPO}/actions/workflows/harness-worker.yml/runs`;
    scope
      .get(runs)
      .query({ status: 'queued', per_page: '100' })
      .reply(200, { total_count: 1, workflow_runs: [{ id: 90, display_title: `harness ${SPEC}/02-03`, status: 'queued' }] });
    scope.get(runs).query({ status: 'in_progress', per_page: '100' }).reply(200, { total_count: 0, workflow_runs: [] });
    scope.post(`${CR_REPO}/actions/runs/90/cancel`).reply(202, {});
    labelled(scope, 14, 'failed', 'running', CR_REPO);
    scope
      .patch(`${CR_REPO}/check-runs/${CHECK_RUN_ID}`, {
        status: 'completed',
        conclusion: 'cancelled',
        output: { title: 'Aborted', summary: 'Aborted by @codebytere. Retry starts the plan again from scratch.' },
        actions: [{ ...RETRY_ACTION }],
      })
      .reply(200, {});
    const answer = answered(scope, 14, CR_REPO);

    await run(buttonEvent('abort'));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(`Aborted ${SPEC} plan 02-03 (#14, was running): cancelled worker run 90; it is failed now, and retry starts it again.`);
  });

  it('approve: answers the checkpoint with "approve" and resumes the worker', async () => {
    const scope = githubApi();
    listed(scope, planIssues({ ...TODAY, '02-03': { status: 'checkpoint' } }), CR_REPO);
    config(scope, undefined, CR_REPO);
    role(scope, 'codebytere', 'write', FLAGS.write, CR_REPO);
    scope
      .get(`${CR_REPO}/issues/14/comments`)
      .query({ per_page: '100' })
      .reply(200, [{ id: 1, body: '<!-- harness:checkpoint 02-03 looks-right -->', user: { login: 'github-actions[bot]', type: 'Bot' } }]);
    viewer(scope);
    answerClaim(scope, 1, CR_REPO);
    scope
      .post(`${CR_REPO}/issues/14/comments`, { body: '<!-- harness:answer 02-03 looks-right -->\napprove' })
      .reply(201, { id: 2, body: '', user: { type: 'Bot' } });
    labelled(scope, 14, 'running', 'checkpoint', CR_REPO);
    scope
      .post(`${CR_REPO}/actions/workflows/harness-worker.yml/dispatches`, {
        ref: 'master',
        inputs: { spec: SPEC, plan: '02-03', resume: 'true' },
        return_run_details: true,
      })
      .reply(204);
    const answer = answered(scope, 14, CR_REPO);

    await run(buttonEvent('approve'));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toContain('Answered checkpoint `looks-right`');
  });

  it("a decision's option button answers with that option, read from the check run the worker wrote (issue 8)", async () => {
    const scope = githubApi();
    listed(scope, planIssues({ ...TODAY, '02-03': { status: 'checkpoint' } }), CR_REPO);
    config(scope, undefined, CR_REPO);
    role(scope, 'codebytere', 'write', FLAGS.write, CR_REPO);
    scope
      .get(`${CR_REPO}/issues/14/comments`)
      .query({ per_page: '100' })
      .reply(200, [{ id: 1, body: '<!-- harness:checkpoint 02-03 tone -->', user: { login: APP, type: 'Bot' } }]);
    viewer(scope);
    answerClaim(scope, 1, CR_REPO);
    scope.post(`${CR_REPO}/issues/14/comments`, { body: '<!-- harness:answer 02-03 tone -->\ncasual' }).reply(201, { id: 2, body: '', user: { type: 'Bot' } });
    labelled(scope, 14, 'running', 'checkpoint', CR_REPO);
    scope
      .post(`${CR_REPO}/actions/workflows/harness-worker.yml/dispatches`, {
        ref: 'master',
        inputs: { spec: SPEC, plan: '02-03', resume: 'true' },
        return_run_details: true,
      })
      .reply(204);
    const answer = answered(scope, 14, CR_REPO);

    await run(
      buttonEvent('option-2', (p) =>
        Object.assign(p.check_run, {
          output: { title: 'Waiting: Formal or casual?', summary: '…', text: `### Plan verification\n\n${optionsMarker(['formal', 'casual'])}` },
        }),
      ),
    );

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toContain('Answered checkpoint `tone`');
  });

  it('an option button without options on its check run does nothing', async () => {
    const scope = githubApi();
    await run(buttonEvent('option-1', (p) => Object.assign(p.check_run, { output: { title: 'x', summary: 'y', text: null } })));
    expect(scope.pendingMocks()).toEqual([]);
  });

  it('"Re-run" on a failed plan\'s check run (check_run.rerequested) is a retry, with the same permission check', async () => {
    const scope = githubApi();
    const issues = planIssues({ ...TODAY, '02-02': { status: 'running' }, '02-03': { status: 'failed' } });
    listed(scope, issues, CR_REPO);
    config(scope, 'slots: 1\n', CR_REPO);
    role(scope, 'codebytere', 'write', FLAGS.write, CR_REPO);
    scope.get(`${CR_REPO}/git/ref/heads%2Fharness%2F${SPEC}%2F02-03`).reply(404, { message: 'Not Found' });
    scope.delete(`${CR_REPO}/git/refs/heads%2Fharness%2F${SPEC}%2F02-03`).reply(422, { message: 'Reference does not exist' });
    labelled(scope, 14, 'ready', 'failed', CR_REPO);
    const answer = answered(scope, 14, CR_REPO);
    const payload = webhookExample<CheckPayload & { action: string }>('check_run', (p) => p.action === 'rerequested' || p.action === 'requested_action');
    payload.action = 'rerequested';
    payload.check_run.name = 'harness / plan 02-03';
    payload.check_run.external_id = `${SPEC}/02-03`;
    delete (payload as Partial<CheckPayload>).requested_action;

    await run({ id: 'delivery-rerun', name: 'check_run', payload } as never);

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toContain(`its branch \`harness/${SPEC}/02-03\` was already gone and the plan is ready again`);
  });

  it('approve pressed twice: the second finds the plan running and starts nothing', async () => {
    const scope = githubApi();
    listed(scope, planIssues(), CR_REPO);
    config(scope, undefined, CR_REPO);
    role(scope, 'codebytere', 'write', FLAGS.write, CR_REPO);
    const answer = answered(scope, 14, CR_REPO);

    await run(buttonEvent('approve'));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(`${SPEC} plan 02-03 (#14) is running, not waiting at a checkpoint: there is nothing to answer.`);
  });

  it('abort pressed twice: the second finds the plan failed and cancels nothing', async () => {
    const scope = githubApi();
    listed(scope, planIssues({ ...TODAY, '02-03': { status: 'failed' } }), CR_REPO);
    config(scope, undefined, CR_REPO);
    role(scope, 'codebytere', 'write', FLAGS.write, CR_REPO);
    const answer = answered(scope, 14, CR_REPO);

    await run(buttonEvent('abort'));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(`${SPEC} plan 02-03 (#14) is failed: there is nothing to abort.`);
  });

  it('checks the permission of whoever pressed the button', async () => {
    const scope = githubApi();
    listed(scope, planIssues(), CR_REPO);
    config(scope, undefined, CR_REPO);
    role(scope, 'codebytere', 'triage', FLAGS.triage, CR_REPO);
    const answer = answered(scope, 14, CR_REPO);

    await run(buttonEvent('abort'));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toContain('Sorry @codebytere, `abort` changes things, so it needs the write role');
  });

  it("ignores buttons it does not know and check runs that are not a harness plan's", async () => {
    const scope = githubApi();
    await run(buttonEvent('deploy'));
    await run(
      buttonEvent('retry', (p) => {
        p.check_run.name = 'API Review';
        p.check_run.external_id = '';
      }),
    );
    await run(buttonEvent('retry', (p) => (p.check_run.external_id = `${SPEC}/02-02`)));
    expect(scope.pendingMocks()).toEqual([]);
  });
});
