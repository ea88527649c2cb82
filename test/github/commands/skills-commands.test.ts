import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { restartApp } from '../../helpers/app-process.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseKnowledge } from '../../../app/engine/knowledge/documents/parse.js';
import { FakeGitHub, spoken } from '../../helpers/github-repo.js';
import { FIXTURES } from '../../helpers/paths.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';
import { FIX, recurring, repairSet } from '../../engine/knowledge/skills/recorded.js';

/**
 * `/harness retrospective` and `/harness audit` through the App, on the stateful fake GitHub:
 * the same judgement and figures as `harness retrospective` and `harness skills`, answered in
 * the thread; an extracted skill becomes its pull request.
 */

const BASE = 'ba5e000000000000000000000000000000000009';
const SIGNALS = 'a11ce00000000000000000000000000000000009';
const SPEC = 'SPC-001';
const ISSUE = 11;
const STORE = '.harness/knowledge';
const SKILL = readFileSync(join(FIXTURES, 'knowledge', 'surface', 'store', 'skills', 'http-retry-with-backoff', 'SKILL.md'), 'utf8');

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

function repository(base: Record<string, string>, signals?: Record<string, string>): FakeGitHub {
  const github = new FakeGitHub();
  github.config = 'slots: 2\n';
  github.commit(BASE, { 'README.md': '# Hello\n', ...base });
  github.branches.set('master', BASE);
  if (signals) {
    github.commit(SIGNALS, { 'README.md': '# Hello\n', ...base, ...signals }, [BASE]);
    github.branches.set(`harness/knowledge/signal/${SPEC}`, SIGNALS);
  }
  github.roles.set('Codertocat', 'write');
  github.roles.set('reader', 'read');
  github.install();
  return github;
}

async function say(body: string, login = 'Codertocat'): Promise<void> {
  const payload = webhookExample<{ comment: { id: number; body: string; user: { login: string } }; sender: { login: string }; issue: Record<string, unknown> }>(
    'issue_comment',
    (p) => p.action === 'created',
  );
  payload.comment.body = body;
  payload.comment.id = 9100 + Math.floor(Math.random() * 1000);
  payload.comment.user.login = login;
  payload.sender.login = login;
  Object.assign(payload.issue, { number: ISSUE, comments: 0, pull_request: undefined });
  await testProbot().receive({ id: `d-${payload.comment.id}`, name: 'issue_comment', payload } as never);
}

const answer = (github: FakeGitHub) => spoken(github.comments.at(-1)!.body);

describe('/harness retrospective', () => {
  it("judges the spec's run from its signals branch, answers with every gate's verdict, and opens a PR for the skill it extracts", async () => {
    // A repair that recurred in two plans: a skill is never made of a one-off.
    const signals = Object.fromEntries(recurring().map((f) => [`${STORE}/${f.path}`, f.text]));
    const github = repository({}, signals);

    await say(`/harness retrospective ${SPEC}`);

    const text = answer(github);
    expect(text).toMatch(/^```\n1 candidate skill in SPC-001's run: 1 extracted, 0 linked, 0 skipped\./);
    for (const gate of ['discovery-depth', 'reusability', 'trigger-clarity', 'verification']) expect(text).toContain(`PASS ${gate}:`);
    const pull = github.pullRequests.find((p) => p.head.startsWith('harness/knowledge/skill/'))!;
    expect(pull).toMatchObject({ base: 'master', state: 'open' });
    expect(text).toContain(`Skill pull requests (merge to approve; close with a comment saying why to reject):`);
    const name = pull.head.slice('harness/knowledge/skill/'.length);
    const skill = github.fileAt(pull.head, `${STORE}/skills/${name}/SKILL.md`)!;
    expect(parseKnowledge('skill', `skills/${name}/SKILL.md`, skill).problems.filter((p) => p.severity === 'error')).toEqual([]);
    // One extraction line, with the gates, on the rolling skill-reviews PR.
    const day = new Date().toISOString().slice(0, 10);
    const lines = github
      .fileAt('harness/knowledge/signal/skill-reviews', `${STORE}/trajectory/${day}.jsonl`)!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; decision: string });
    expect(lines.map((l) => [l.type, l.decision])).toEqual([['extraction', 'extracted']]);

    // Asked again: the skill's PR is found open, not opened twice.
    await say(`/harness retrospective ${SPEC}`);
    expect(github.pullRequests.filter((p) => p.head === pull.head)).toHaveLength(1);
  });

  it('links a candidate that duplicates an archived skill instead of extracting it again', async () => {
    // A repair that recurred in two plans: a skill is never made of a one-off.
    const signals = Object.fromEntries(recurring().map((f) => [`${STORE}/${f.path}`, f.text]));
    const first = repository({}, signals);
    await say(`/harness retrospective ${SPEC}`);
    const pull = first.pullRequests.find((p) => p.head.startsWith('harness/knowledge/skill/'))!;
    const name = pull.head.slice('harness/knowledge/skill/'.length);
    const proposed = first.fileAt(pull.head, `${STORE}/skills/${name}/SKILL.md`)!;
    nock.cleanAll();
    // Another repository whose commits carry the same shas: another world, for an App that remembers none of the first.
    restartApp();

    const github = repository({ [`${STORE}/skills-archived/${name}/SKILL.md`]: proposed }, signals);
    await say(`/harness retrospective ${SPEC}`);

    expect(answer(github)).toMatch(/0 extracted, 1 linked, 0 skipped/);
    expect(github.pullRequests.filter((p) => p.head.startsWith('harness/knowledge/skill/'))).toEqual([]);
  });

  it("makes a skill of one plan's repair when a writer asks for it by plan, and says when the plan has no repair", async () => {
    // One plan failed and was repaired: no skill unless a person asks.
    const signals = Object.fromEntries(repairSet({ insight: FIX }).map((f) => [`${STORE}/${f.path}`, f.text]));
    const github = repository({}, signals);
    await say(`/harness retrospective ${SPEC}`);
    expect(answer(github)).toMatch(/0 extracted, 0 linked, 1 skipped/);
    expect(github.pullRequests.filter((p) => p.head.startsWith('harness/knowledge/skill/'))).toEqual([]);

    await say(`/harness retrospective ${SPEC}/01-02`);
    const text = answer(github);
    expect(text).toContain(`PASS reusability: a person asked for it (/harness retrospective ${SPEC}/01-02), though it was seen in one plan`);
    expect(github.pullRequests.filter((p) => p.head.startsWith('harness/knowledge/skill/'))).toHaveLength(1);

    await say(`/harness retrospective ${SPEC}/01-07`);
    expect(answer(github)).toMatch(new RegExp(`^${SPEC}'s run has no repair of plan 01-07 on record to make a skill of`));
  });

  it('is refused to someone with read access only', async () => {
    const github = repository({});
    await say(`/harness retrospective ${SPEC}`, 'reader');
    expect(answer(github)).toMatch(/write/);
    expect(github.pullRequests).toEqual([]);
  });
});

describe('/harness audit', () => {
  it("answers the pending skills, each active skill's figures from the trajectory, and what to prune", async () => {
    const match = (day: string, type: string) =>
      JSON.stringify({
        timestamp: `${day}T10:00:00Z`,
        type,
        project: 'Hello-World',
        spec: SPEC,
        plan: '01-01',
        entry: 'skills/http-retry-with-backoff/SKILL.md',
        kind: 'skill',
        title: 'HTTP retry',
        score: 3,
        why: 'tags',
        key: `${day}/${type}`,
      });
    const github = repository({
      [`${STORE}/skills/http-retry-with-backoff/SKILL.md`]: SKILL.replace(
        'metadata:\n  tags: http api retry',
        'metadata:\n  tags: http api retry\n  extracted-on: "2026-01-02"',
      ),
      [`${STORE}/trajectory/2026-11-01.jsonl`]: `${match('2026-11-01', 'match')}\n${match('2026-11-01', 'use')}\n`,
    });
    github.commit('5ca1ab1e00000000000000000000000000000009', { 'README.md': '# Hello\n', [`${STORE}/skills/sqlite-wal/SKILL.md`]: 'x' }, [BASE]);
    github.branches.set('harness/knowledge/skill/sqlite-wal', '5ca1ab1e00000000000000000000000000000009');
    github.pullRequests.push({
      number: 77,
      title: 'Skill: sqlite-wal',
      body: '',
      head: 'harness/knowledge/skill/sqlite-wal',
      base: 'master',
      state: 'open',
      merged: false,
      labels: ['harness:knowledge', 'skill'],
      created_at: '2026-11-20T00:00:00Z',
    });

    await say('/harness audit');

    const text = answer(github);
    expect(text).toMatch(/^\*\*Skills in master\*\*: 1 active, 1 pending review\./);
    expect(text).toContain('- #77 `sqlite-wal`');
    expect(text).toMatch(/http-retry-with-backoff\s+1\s+1\s+0\s+100%\s+2026-11-01/);
    expect(text).toMatch(/Nothing to prune among 1 active skill\.|skills? to archive/);
  });
});
