import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { IssueRecord } from '../../../app/gateway/issues.js';
import { specVerified } from '../../../app/github/schedule/phase-reflection.js';
import { FakeGitHub } from '../../helpers/github-repo.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';
import { recurring, repairSet } from '../../engine/knowledge/skills/recorded.js';
import { FIXTURES } from '../../helpers/paths.js';

/**
 * Reflection when the App sees a phase's verification pass (knowledge.reflect.on_phase) or
 * the spec's last one (on_spec), through Probot with a real `workflow_run.completed` payload
 * and the stateful fake GitHub holding the recorded store on master.
 */

const R = '/repos/Codertocat/Hello-World';
const BASE = 'ba5e000000000000000000000000000000000002';
const SPEC = 'SPC-001';
const STORE = join(FIXTURES, 'knowledge', 'reflect', 'store');

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

function storeFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(STORE, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      files[`.harness/knowledge/${relative(STORE, join(entry.parentPath, entry.name))}`] = readFileSync(join(entry.parentPath, entry.name), 'utf8');
  }
  return files;
}

/** A plan issue as the spec PR sync leaves it: marker line, harness labels; a done plan closed as completed and verified. */
function planIssue(number: number, plan: string, done: boolean): IssueRecord {
  return {
    id: 900_000 + number,
    number,
    title: `[${SPEC}] ${plan}`,
    // A done plan carries the App's record of its merged plan PR (verified-record.ts).
    body: `<!-- harness:plan ${SPEC}/${plan} hash=0123456789abcdef${done ? ' verified=42' : ''} -->\nPlan ${plan}.`,
    labels: ['harness:plan', `spec:${SPEC}`, `phase:${plan.slice(0, 2)}`, done ? 'status:verified' : 'status:ready'],
    state: done ? 'closed' : 'open',
    stateReason: done ? 'completed' : null,
    url: `https://github.com/Codertocat/Hello-World/issues/${number}`,
  };
}

function repository(config: string, plans: [string, boolean][]): FakeGitHub {
  const github = new FakeGitHub();
  github.config = config;
  github.commit(BASE, { 'README.md': '# Hello\n', ...storeFiles() });
  github.branches.set('master', BASE);
  github.branches.set(`harness/${SPEC}/phase-01`, BASE);
  github.issues = plans.map(([plan, done], i) => {
    const { id, number, title, body, labels, state, stateReason } = planIssue(10 + i, plan, done);
    return { id, number, title, body, labels, state, state_reason: stateReason };
  });
  github.install();
  return github;
}

function phasePassed(phase = '01') {
  const payload = webhookExample<Record<string, Record<string, unknown>>>(
    'workflow_run',
    (p) => p.action === 'completed' && (p.workflow_run as { status: string }).status === 'completed',
  );
  payload.repository = webhookExample<Record<string, Record<string, unknown>>>('check_run').repository!;
  Object.assign(payload.workflow_run!, {
    path: '.github/workflows/harness-worker.yml',
    event: 'workflow_dispatch',
    name: 'harness worker',
    display_title: `harness ${SPEC}/phase-${phase}`,
    conclusion: 'success',
    head_branch: 'master',
    head_sha: BASE,
  });
  return { id: `run-phase-${phase}`, name: 'workflow_run', payload } as never;
}

describe('reflection when a phase passes its verification', () => {
  it('on_phase: after the round, the lesson PRs are opened on the default branch', async () => {
    const github = repository('knowledge:\n  reflect: { on_phase: true }\n', [
      ['01-01', true],
      ['01-02', true],
      ['02-01', false],
    ]);
    await testProbot().receive(phasePassed());

    const log = github.log();
    const first = log.indexOf(`GET ${R}/contents/.harness/knowledge?ref=master`);
    expect(first).toBeGreaterThan(0);
    // The round comes first: lessons never hold up the next plans.
    expect(log.slice(0, first).some((l) => l.startsWith(`GET ${R}/issues?labels=harness:plan,spec:${SPEC}`))).toBe(true);
    expect(github.pullRequests.map((p) => [p.title, p.labels])).toEqual([
      ['Lesson: Struggle: test, sqlite, database', ['harness:knowledge', 'lesson']],
      ['Lesson evidence: 1 signal more for stop-background-servers', ['harness:knowledge', 'lesson']],
    ]);

    // The same event delivered again opens nothing more.
    await testProbot().receive(phasePassed());
    expect(github.pullRequests).toHaveLength(2);
  });

  it('on_spec: not while plans are left, and once the last phase passes with every plan done', async () => {
    const waiting = repository('knowledge:\n  reflect: { on_phase: false, on_spec: true }\n  skills: { extract: { verification: false } }\n', [
      ['01-01', true],
      ['02-01', false],
    ]);
    await testProbot().receive(phasePassed());
    expect(waiting.log()).not.toContain(`GET ${R}/contents/.harness/knowledge?ref=master`);
    nock.cleanAll();

    const done = repository('knowledge:\n  reflect: { on_phase: false, on_spec: true }\n', [
      ['01-01', true],
      ['01-02', true],
    ]);
    await testProbot().receive(phasePassed());
    expect(done.pullRequests).toHaveLength(2);
  });

  it('neither: no reflection at all', async () => {
    const github = repository('knowledge:\n  reflect: { on_phase: false, on_spec: false }\n  skills: { extract: { verification: false } }\n', [
      ['01-01', true],
    ]);
    await testProbot().receive(phasePassed());
    expect(github.log()).not.toContain(`GET ${R}/contents/.harness/knowledge?ref=master`);
  });
});

describe('skills when a phase passes its verification', () => {
  it("judges the phase's plans' candidates from the spec's signals branch and opens a PR for the skill extracted, once", async () => {
    const github = repository('knowledge:\n  reflect: { on_phase: false, on_spec: false }\n', [
      ['01-01', true],
      ['01-02', true],
      ['01-03', true],
      ['02-01', false],
    ]);
    // The same repair in two plans of the phase (not 01-01, whose failure a lesson of the store already cites): a skill is made of a repair that recurred.
    const signals = Object.fromEntries(recurring({}, ['01-02', '01-03']).map((f) => [`.harness/knowledge/${f.path}`, f.text]));
    github.commit('5157a15000000000000000000000000000000002', { 'README.md': '# Hello\n', ...storeFiles(), ...signals }, [BASE]);
    github.branches.set(`harness/knowledge/signal/${SPEC}`, '5157a15000000000000000000000000000000002');

    await testProbot().receive(phasePassed());
    await testProbot().receive(phasePassed());

    const skills = github.pullRequests.filter((p) => p.head.startsWith('harness/knowledge/skill/'));
    expect(skills).toHaveLength(1);
    expect(skills[0]!.body).toContain('PASS trigger-clarity');
  });

  it("extracts nothing for another phase's plans", async () => {
    const github = repository('knowledge:\n  reflect: { on_phase: false, on_spec: false }\n', [
      ['01-01', true],
      ['02-01', false],
    ]);
    const signals = Object.fromEntries(repairSet({ plan: '02-01' }).map((f) => [`.harness/knowledge/${f.path}`, f.text]));
    github.commit('5157a15000000000000000000000000000000003', { 'README.md': '# Hello\n', ...storeFiles(), ...signals }, [BASE]);
    github.branches.set(`harness/knowledge/signal/${SPEC}`, '5157a15000000000000000000000000000000003');

    await testProbot().receive(phasePassed());

    expect(github.pullRequests.filter((p) => p.head.startsWith('harness/knowledge/skill/'))).toEqual([]);
  });
});

describe('specVerified', () => {
  const issue = (n: number, plan: string, done: boolean) => planIssue(n, plan, done);
  it('is the last phase passing with every plan done on record; plans the App recorded as dropped from the spec do not count', () => {
    expect(specVerified('02', [issue(1, '01-01', true), issue(2, '02-01', true)])).toBe(true);
    expect(specVerified('01', [issue(1, '01-01', true), issue(2, '02-01', true)])).toBe(false);
    expect(specVerified('02', [issue(1, '01-01', false), issue(2, '02-01', true)])).toBe(false);
    // Taken out of the spec, as the sync records it (`removed=` with the close): the state alone says nothing.
    const dropped: IssueRecord = { ...issue(3, '03-01', false), state: 'closed', stateReason: 'not_planned' };
    dropped.body = dropped.body!.replace(' -->', ' removed=5 -->');
    expect(specVerified('02', [issue(1, '01-01', true), issue(2, '02-01', true), dropped])).toBe(true);
    expect(specVerified('01', [])).toBe(false);
  });
});
