import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { workerForge } from '../../../app/worker-action/worker-run.js';
import { runWorker } from '../../../app/worker-action/worker.js';
import { FakeGitHub } from '../../helpers/github-repo.js';
import { testOctokit } from '../../helpers/octokit.js';
import { FIXTURES } from '../../helpers/paths.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';
import { testLog } from '../../helpers/worker-github.js';
import { git, isolateGit, workerRepo } from '../../helpers/worker-repo.js';

/**
 * Research ahead on GitHub: while phase 01 executes, a scheduling round spends its idle slots
 * on research-phase for 02 and 03 (never 04, never twice); the worker writes the research
 * document on the claim branch and opens its pull request; a phase the base has research for
 * is left alone. Rounds through Probot and the stateful fake GitHub; the worker on real git.
 */

const SPEC = 'SPC-001';
const BASE = 'ba5e000000000000000000000000000000000003';

let restoreGit: () => void;
beforeAll(() => {
  restoreGit = isolateGit();
  nock.disableNetConnect();
});
afterEach(() => nock.cleanAll());
afterAll(() => restoreGit());

const PLANS: [string, string, string?][] = [
  ['01-01', 'running'],
  ['01-02', 'blocked', '01-01'],
  ['02-01', 'blocked', '01-02'],
  ['03-01', 'blocked', '02-01'],
  ['04-01', 'blocked', '03-01'],
];

function repository(config: string): FakeGitHub {
  const github = new FakeGitHub();
  github.config = config;
  github.commit(BASE, { 'README.md': '# Hello\n' });
  github.branches.set('master', BASE);
  github.roles.set('Codertocat', 'write');
  github.issues = PLANS.map(([plan, status, needs], i) => ({
    id: 900_000 + i,
    number: 10 + i,
    title: `[${plan}] Plan ${plan}`,
    body: `<!-- harness:plan ${SPEC}/${plan} hash=0123456789abcdef -->\nPlan ${plan}.`,
    labels: ['harness:plan', `spec:${SPEC}`, `phase:${plan.slice(0, 2)}`, `status:${status}`, ...(needs ? [`needs:${needs}`] : [])],
    state: 'open',
    state_reason: null,
  }));
  // As the App recorded them: the record on each marker line, the label its view.
  for (const [i, [, status]] of PLANS.entries()) github.planStatus(10 + i, status as 'running');
  github.install();
  return github;
}

let delivery = 0;
/** `/harness execute SPC-001/01` on an ordinary issue: its plans are queued already, so it is a round. */
async function round(): Promise<void> {
  const payload = webhookExample<{ comment: { id: number; body: string }; issue: { comments: number } }>('issue_comment', (p) => p.action === 'created');
  payload.comment.body = `/harness execute ${SPEC}/01`;
  payload.comment.id = 7000 + ++delivery;
  payload.issue.comments = 0;
  await testProbot().receive({ id: `round-${delivery}`, name: 'issue_comment', payload } as never);
}

const researchDispatches = (github: FakeGitHub) =>
  github.dispatches.map((d) => (d.body as { inputs: { plan: string } }).inputs.plan).filter((p) => p.startsWith('research-'));

describe('research ahead in a scheduling round', () => {
  it('researches the next two phases in idle slots while phase 01 executes, once', async () => {
    const github = repository('planning:\n  agent: command\n  research_ahead: true\n');
    await round();
    expect(researchDispatches(github)).toEqual(['research-02', 'research-03']);
    expect(github.dispatches.at(-1)!.body).toMatchObject({ ref: 'master', inputs: { spec: SPEC, plan: 'research-03', resume: 'false' } });
    expect(github.branches.get(`harness/${SPEC}/research-02`)).toBe(BASE);
    expect(github.branches.get(`harness/${SPEC}/research-03`)).toBe(BASE);

    const before = github.requests.length;
    await round();
    expect(researchDispatches(github)).toEqual(['research-02', 'research-03']);
    expect(github.log(before).filter((r) => r.includes('/git/refs') && r.startsWith('POST'))).toEqual([]);
  });

  it('is on by default where an agent writes, and off when research_ahead is false or the plans are scripts with no planning agent', async () => {
    const on = repository('planning:\n  agent: command\n');
    await round();
    expect(researchDispatches(on)).toEqual(['research-02', 'research-03']);
    nock.cleanAll();

    for (const config of ['planning:\n  agent: command\n  research_ahead: false\n', 'agent: script\n']) {
      const off = repository(config);
      await round();
      expect(researchDispatches(off), config).toEqual([]);
      expect(
        off.log().some((r) => r.includes('matching-refs/heads/harness/SPC-001/research-')),
        config,
      ).toBe(false);
      nock.cleanAll();
    }
  });
});

describe('research ahead on the worker', () => {
  const SPEC_DIR = 'docs/specs/SPC-001-notes';
  const ROADMAP = `---\nphases:\n  - id: "01"\n    title: One\n    goal: One works.\n    must_pass:\n      - { id: one, type: file_exists, path: README.md }\n  - id: "02"\n    title: Two\n    goal: Two works.\n    must_pass:\n      - { id: two, type: file_exists, path: README.md }\n---\n\n# Roadmap\n`;

  async function setup(extra: Record<string, string> = {}) {
    const command = [JSON.stringify(process.execPath), JSON.stringify(join(FIXTURES, 'agents', 'planning-agent.mjs'))].join(' ');
    const config = `agent: script\nplanning:\n  agent: command\n  research_ahead: true\nagents:\n  command:\n    command: ${JSON.stringify(command)}\n`;
    const repo = await workerRepo(
      {
        '.github/harness.yml': config,
        [`${SPEC_DIR}/SPEC.md`]: `---\nid: ${SPEC}\ntitle: Notes\n---\n\n# Notes\n`,
        [`${SPEC_DIR}/ROADMAP.md`]: ROADMAP,
        ...extra,
      },
      `harness/${SPEC}/research-02`,
    );
    const github = new FakeGitHub();
    // GitHub's refs are the remote's: what the worker pushed is there when it asks for a pull request.
    github.beforeServe = () => {
      for (const line of git(repo.remote, 'for-each-ref', '--format=%(refname:short) %(objectname)', 'refs/heads').split('\n')) {
        const [name, sha] = line.split(' ');
        github.branches.set(name!, sha!);
      }
    };
    github.install();
    const outcome = await runWorker({
      inputs: { spec: SPEC, target: { kind: 'research', phase: '02' }, resume: false },
      base: 'master',
      root: repo.checkout,
      tempDir: repo.temp,
      forge: workerForge(testOctokit().request, { owner: 'Codertocat', repo: 'Hello-World' }),
      log: testLog(),
      env: {},
    });
    return { repo, github, outcome };
  }

  it("writes the phase's research document on the claim branch and opens its pull request", async () => {
    const { repo, github, outcome } = await setup();
    expect(outcome.failure).toBeUndefined();
    expect(outcome.result).toBe('verified');
    expect(git(repo.remote, 'log', '-1', '--format=%s', `refs/heads/harness/${SPEC}/research-02`)).toBe(`plan ${SPEC}: research for phase 02`);
    expect(git(repo.remote, 'diff', '--name-only', `${repo.base}..refs/heads/harness/${SPEC}/research-02`)).toBe(
      `${SPEC_DIR}/planning/research/phase-02-research.md`,
    );
    expect(github.pullRequests).toEqual([
      expect.objectContaining({ head: `harness/${SPEC}/research-02`, base: 'master', title: `Research ahead: ${SPEC} phase 02` }),
    ]);
  });

  it('leaves a phase alone when the base has its research already', async () => {
    const { repo, github, outcome } = await setup({ [`${SPEC_DIR}/planning/research/phase-02-research.md`]: '# by a person\n' });
    expect(outcome).toMatchObject({ result: 'verified' });
    expect(outcome.summary).toContain('is on master already: nothing to research');
    expect(git(repo.remote, 'rev-parse', `refs/heads/harness/${SPEC}/research-02`)).toBe(repo.base);
    expect(github.pullRequests).toEqual([]);
  });
});
