import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KNOWLEDGE_CHECK } from '../../../app/engine/knowledge/documents/knowledge-check.js';
import { parseKnowledge } from '../../../app/engine/knowledge/documents/parse.js';
import { FakeGitHub } from '../../helpers/github-repo.js';
import { FIXTURES } from '../../helpers/paths.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';

/**
 * A skill's review on GitHub, on the stateful fake: its pull request merged is an `approval` in
 * the trajectory; closed without merging, a `rejection` with the reason from the closing
 * comment and the skill kept in skills-archived/. Every knowledge PR gets the `harness /
 * knowledge` check, with annotations where the problems are.
 */

const R = '/repos/Codertocat/Hello-World';
const BASE = 'ba5e000000000000000000000000000000000007';
const HEAD = 'a11ce00000000000000000000000000000000007';
const NAME = 'http-retry-with-backoff';
const SKILL = readFileSync(join(FIXTURES, 'knowledge', 'surface', 'store', 'skills', NAME, 'SKILL.md'), 'utf8');
const PATH = `.harness/knowledge/skills/${NAME}/SKILL.md`;
const PR = 42;
const CLOSED_AT = '2026-11-20T10:00:00Z';
const REVIEWS = 'harness/knowledge/signal/skill-reviews';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

function repository(skill = SKILL): FakeGitHub {
  const github = new FakeGitHub();
  github.config = 'slots: 2\n';
  github.commit(BASE, { 'README.md': '# Hello\n' });
  github.commit(HEAD, { 'README.md': '# Hello\n', [PATH]: skill }, [BASE]);
  github.branches.set('master', BASE);
  github.branches.set(`harness/knowledge/skill/${NAME}`, HEAD);
  github.pullFiles.set(PR, [PATH]);
  github.pulls.set(PR, {
    base: { ref: 'master', full_name: 'Codertocat/Hello-World' },
    head: { ref: `harness/knowledge/skill/${NAME}`, full_name: 'Codertocat/Hello-World' },
  });
  github.roles.set('Codertocat', 'write');
  github.roles.set('passerby', 'read');
  github.install();
  return github;
}

type PullPayload = {
  action: string;
  number: number;
  pull_request: Record<string, unknown> & { head: { ref: string; sha: string; repo: { full_name: string } }; base: { ref: string } };
  sender: { login: string };
};

function closed(merged: boolean, id = 'closed') {
  const payload = webhookExample<PullPayload>('pull_request', (p) => p.action === 'closed');
  Object.assign(payload.pull_request, { number: PR, merged, merged_by: merged ? { login: 'Codertocat' } : null, closed_at: CLOSED_AT });
  Object.assign(payload.pull_request.head, { ref: `harness/knowledge/skill/${NAME}`, sha: HEAD });
  payload.pull_request.head.repo.full_name = 'Codertocat/Hello-World';
  payload.pull_request.base.ref = 'master';
  payload.number = PR;
  payload.sender.login = 'Codertocat';
  return { id, name: 'pull_request', payload } as never;
}

function pushed(action: 'opened' | 'synchronize', id: string = action) {
  const payload = webhookExample<PullPayload>('pull_request', (p) => p.action === 'opened');
  payload.action = action;
  Object.assign(payload.pull_request, { number: PR });
  Object.assign(payload.pull_request.head, { ref: `harness/knowledge/skill/${NAME}`, sha: HEAD });
  payload.pull_request.head.repo.full_name = 'Codertocat/Hello-World';
  payload.number = PR;
  return { id, name: 'pull_request', payload } as never;
}

const lines = (github: FakeGitHub) =>
  github
    .fileAt(REVIEWS, '.harness/knowledge/trajectory/2026-11-20.jsonl')!
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; entry: string; why: string; reason?: string; pr: number; key: string });

describe('a skill pull request closed', () => {
  it('merged: one approval line in the trajectory, however often the event comes', async () => {
    const github = repository();

    await testProbot().receive(closed(true));
    await testProbot().receive(closed(true, 'redelivered'));

    expect(lines(github).map((l) => [l.type, l.entry, l.why])).toEqual([['approval', `skills/${NAME}/SKILL.md`, `merged by @Codertocat in #${PR}`]]);
    const pull = github.pullRequests.find((p) => p.head === REVIEWS)!;
    expect(pull).toMatchObject({ base: 'master', state: 'open', title: 'Skill reviews: approvals, rejections and the archive' });
    expect(github.pullRequests.filter((p) => p.head === REVIEWS)).toHaveLength(1);
  });

  it('closed: archives the skill with the reason from the closing comment of a person who may review, and logs the rejection', async () => {
    const github = repository();
    github.comments.push(
      { id: 1, issue: PR, body: 'Looks good to me', userType: 'User', login: 'passerby', created_at: '2026-11-20T09:58:00Z' },
      {
        id: 2,
        issue: PR,
        body: 'We retry in the gateway already; a skill for it would mislead agents.',
        userType: 'User',
        login: 'Codertocat',
        created_at: '2026-11-20T09:59:00Z',
      },
      { id: 3, issue: PR, body: 'Nice!', userType: 'User', login: 'passerby', created_at: '2026-11-20T09:59:30Z' },
    );

    await testProbot().receive(closed(false));
    await testProbot().receive(closed(false, 'redelivered'));

    const reason = 'We retry in the gateway already; a skill for it would mislead agents.';
    expect(lines(github).map((l) => [l.type, l.entry, l.reason])).toEqual([['rejection', `skills-archived/${NAME}/SKILL.md`, reason]]);
    const archived = github.fileAt(REVIEWS, `.harness/knowledge/skills-archived/${NAME}/SKILL.md`)!;
    expect(archived).toContain(`- archived on 2026-11-20 by @Codertocat: ${reason}`);
    const parsed = parseKnowledge('skill', `skills-archived/${NAME}/SKILL.md`, archived);
    expect(parsed.data?.metadata).toMatchObject({ 'archived-on': '2026-11-20', 'archived-reason': reason });
    // Still the skill as proposed: deduplication reads its name, description and sections.
    expect(archived).toContain('## Trigger conditions');
  });

  it('closed with no comment from anyone who may review: archived as closed without a reason', async () => {
    const github = repository();
    github.comments.push({ id: 1, issue: PR, body: 'please no', userType: 'User', login: 'passerby', created_at: '2026-11-20T09:58:00Z' });

    await testProbot().receive(closed(false));

    expect(lines(github)[0]).toMatchObject({ type: 'rejection', reason: 'closed without a reason' });
  });

  for (const closer of [
    { login: 'triager', type: 'User' as const },
    { login: 'other-app[bot]', type: 'Bot' as const },
  ]) {
    it(`closed by ${closer.login}, who may close but not review: no rejection, nothing archived (issue 36)`, async () => {
      const github = repository();
      github.roles.set('triager', 'triage');
      github.comments.push({
        id: 1,
        issue: PR,
        body: 'Useless skill, archive it forever.',
        userType: closer.type,
        login: closer.login,
        created_at: '2026-11-20T09:59:00Z',
      });
      const event = closed(false) as { payload: PullPayload & { sender: Record<string, unknown> } };
      Object.assign(event.payload.sender, closer);

      await testProbot().receive(event as never);

      expect(github.branches.has(REVIEWS)).toBe(false);
      expect(github.pullRequests).toEqual([]);
    });
  }

  it('leaves pull requests that propose no skill alone', async () => {
    const github = repository();
    const from = github.requests.length;
    const other = closed(true) as { payload: PullPayload };
    other.payload.pull_request.head.ref = 'harness/knowledge/lesson/retry-budget';
    await testProbot().receive(other as never);
    expect(github.log(from)).toEqual([]);
  });
});

describe('the harness / knowledge check', () => {
  it('passes a valid skill, once per head commit', async () => {
    const github = repository();

    await testProbot().receive(pushed('opened'));
    await testProbot().receive(pushed('opened', 'again'));

    const runs = github.checkRuns.filter((c) => c.name === KNOWLEDGE_CHECK);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ head_sha: HEAD, status: 'completed', conclusion: 'success', annotations: [] });
  });

  it('fails a skill without a required section or with a secret, with annotations on their lines', async () => {
    const key = `ghp_${'A1b2C3d4E5'.repeat(3)}xY9z0w`;
    const broken = SKILL.replace(/## Anti-patterns\n\n[^\n]*\n\n/, '').replace('never retry a 4xx.', `never retry a 4xx. The token we used: ${key}`);
    const github = repository(broken);

    await testProbot().receive(pushed('synchronize'));

    const run = github.checkRuns.find((c) => c.name === KNOWLEDGE_CHECK)!;
    expect(run).toMatchObject({ status: 'completed', conclusion: 'failure' });
    const notes = run.annotations as { path: string; start_line: number; annotation_level: string; title: string; message: string }[];
    expect(notes.every((a) => a.path === PATH)).toBe(true);
    const secretLine = broken.split('\n').findIndex((l) => l.includes(key)) + 1;
    expect(notes.find((a) => a.title === 'secret')).toMatchObject({ start_line: secretLine, annotation_level: 'failure' });
    expect(notes.some((a) => /Anti-patterns/.test(a.message) && a.annotation_level === 'failure')).toBe(true);
    expect(github.log().filter((l) => l.includes('/check-runs'))).toEqual([
      `GET ${R}/commits/${HEAD}/check-runs?check_name=${KNOWLEDGE_CHECK}`,
      `POST ${R}/check-runs`,
    ]);
  });
});
