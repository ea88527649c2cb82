import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parsePlanningInput } from '../../../app/engine/planning/planning-target.js';
import { knowledgeForge } from '../../../app/worker-action/capture.js';
import { workerForge } from '../../../app/worker-action/worker-run.js';
import { runWorker } from '../../../app/worker-action/worker.js';
import { FakeGitHub } from '../../helpers/github-repo.js';
import { testOctokit } from '../../helpers/octokit.js';
import { FIXTURES } from '../../helpers/paths.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';
import { testLog } from '../../helpers/worker-github.js';
import { cloneBranch, git, isolateGit, workerRepo, type WorkerRepo } from '../../helpers/worker-repo.js';

/**
 * The planning commands on a spec PR, through the App and the worker against the stateful
 * fake GitHub: the App claims the job, opens the planning check run and dispatches the worker;
 * the worker (the stand-in planning agent as the `command` agent) writes the documents, which
 * harness checks before committing them to the PR's branch in a real git remote, and answers in
 * the PR's conversation. The fake's refs follow the remote's, as GitHub's follow a push.
 */

const R = '/repos/Codertocat/Hello-World';
const PR = 1;
const SPEC_BRANCH = 'add-notes-spec';
const SPEC_DIR = 'docs/specs/SPC-001-notes';
/** The fields of the example payload a test sets. */
type CommentPayload = {
  comment: { id: number; body: string; user: { login: string } };
  sender: { login: string };
  issue: { number: number; comments: number; pull_request?: { url: string } };
};

const STATUS = '<!-- harness:status SPC-001 -->\nSPC-001: 0 plans';

let restoreGit: () => void;
beforeAll(() => {
  restoreGit = isolateGit();
  nock.disableNetConnect();
});
afterEach(() => nock.cleanAll());
afterAll(() => restoreGit());

interface Setup {
  github: FakeGitHub;
  repo: WorkerRepo;
  nextComment: number;
}

function agentCommand(env: Record<string, string> = {}): string {
  const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  return [...vars, JSON.stringify(process.execPath), JSON.stringify(join(FIXTURES, 'agents', 'planning-agent.mjs'))].join(' ');
}

async function setup(options: { fork?: boolean; env?: Record<string, string>; files?: Record<string, string> } = {}): Promise<Setup> {
  const config = `agent: script\nplanning:\n  agent: command\nagents:\n  command:\n    command: ${JSON.stringify(agentCommand(options.env))}\n`;
  const repo = await workerRepo(
    { '.github/harness.yml': config, [`${SPEC_DIR}/SPEC.md`]: '---\nid: SPC-001\ntitle: Notes\n---\n\n# Notes\n\nKeep notes.\n', ...options.files },
    SPEC_BRANCH,
  );
  const github = new FakeGitHub();
  github.config = config;
  github.branches.set('master', repo.base);
  github.branches.set(SPEC_BRANCH, repo.base);
  github.pulls.set(PR, {
    base: { ref: 'master', full_name: 'Codertocat/Hello-World' },
    head: { ref: SPEC_BRANCH, full_name: options.fork ? 'someone/Hello-World' : 'Codertocat/Hello-World' },
  });
  github.roles.set('Codertocat', 'write');
  github.roles.set('reader', 'read');
  github.comments.push({ id: 10, issue: PR, body: STATUS, userType: 'Bot' });
  github.install();
  return { github, repo, nextComment: 5000 };
}

/** A person writes a comment on the spec PR; the App receives it. */
async function say(s: Setup, body: string, login = 'Codertocat'): Promise<number> {
  const id = s.nextComment++;
  s.github.comments.push({ id, issue: PR, body, userType: 'User', login });
  const payload = webhookExample<CommentPayload>('issue_comment', (p) => p.action === 'created');
  payload.comment.body = body;
  payload.comment.id = id;
  payload.comment.user.login = login;
  payload.sender.login = login;
  payload.issue.number = PR;
  payload.issue.comments = 0;
  payload.issue.pull_request = { url: `https://api.github.com${R}/pulls/${PR}` };
  await testProbot().receive({ id: `delivery-${id}`, name: 'issue_comment', payload } as never);
  return id;
}

/** The last comment's text, without the hidden marker naming the command it answers (steering's redelivery check). */
const lastComment = (s: Setup) => s.github.comments.at(-1)!.body.replace(/\n\n<!-- harness:reply \d+ -->$/, '');

/** The job the App dispatched last, run by the worker in a fresh checkout of its claim branch. */
async function work(s: Setup): Promise<Awaited<ReturnType<typeof runWorker>>> {
  const { body } = s.github.dispatches.at(-1)! as { body: { ref: string; inputs: { spec: string; plan: string; resume: string } } };
  const target = parsePlanningInput(body.inputs.plan)!;
  const claim = `harness/${body.inputs.spec}/${body.inputs.plan}`;
  // GitHub's ref is the remote's: the App's claim is made there too, and checked out as actions/checkout would.
  git(s.repo.remote, 'update-ref', `refs/heads/${claim}`, s.github.branches.get(claim)!);
  const checkout = cloneBranch(s.repo.remote, claim, join(s.repo.temp, '..', `checkout-${target.comment}`));
  const outcome = await runWorker({
    inputs: { spec: body.inputs.spec, target, resume: false },
    base: body.ref,
    root: checkout,
    tempDir: join(s.repo.temp, String(target.comment)),
    forge: workerForge(testOctokit().request, { owner: 'Codertocat', repo: 'Hello-World' }),
    knowledge: (r) => knowledgeForge(testOctokit().request, r ?? { owner: 'Codertocat', repo: 'Hello-World' }),
    log: testLog(),
    env: {},
    checkOwner: 'app',
    runUrl: 'https://github.com/Codertocat/Hello-World/actions/runs/77',
  });
  s.github.branches.set(SPEC_BRANCH, git(s.repo.remote, 'rev-parse', `refs/heads/${SPEC_BRANCH}`));
  s.github.branches.delete(claim);
  return outcome;
}

const onBranch = (s: Setup) => git(s.repo.remote, 'ls-tree', '-r', '--name-only', `refs/heads/${SPEC_BRANCH}`, SPEC_DIR).split('\n');
const subjects = (s: Setup) => git(s.repo.remote, 'log', '--format=%s', `${s.repo.base}..refs/heads/${SPEC_BRANCH}`).split('\n');

describe('planning on the spec PR', () => {
  it('runs each command on the worker: documents on the PR branch, the check run told, the answer in the thread', async () => {
    const s = await setup();
    const from = s.github.requests.length;
    const asked = await say(s, '/harness plan-spec');
    expect(s.github.log(from)).toEqual([
      `POST ${R}/issues/comments/${asked}/reactions`,
      `GET ${R}/contents/.github/harness.yml`,
      `GET ${R}/collaborators/Codertocat/permission`,
      `GET ${R}/pulls/${PR}`,
      `GET ${R}/issues/${PR}/comments?per_page=100`,
      // The thread holds the App's status comment: the App asks who it is before trusting its marker.
      'POST /graphql',
      `GET ${R}/pulls/${PR}`,
      `GET ${R}/git/ref/heads/${SPEC_BRANCH}`,
      `POST ${R}/git/refs`,
      `POST ${R}/check-runs`,
      `POST ${R}/actions/workflows/harness-worker.yml/dispatches`,
      `POST ${R}/issues/${PR}/comments`,
    ]);
    expect(s.github.dispatches.at(-1)!.body).toMatchObject({ ref: 'master', inputs: { spec: 'SPC-001', plan: `planning/${PR}/${asked}`, resume: 'false' } });
    expect(s.github.checkRuns.at(-1)).toMatchObject({
      name: 'harness / planning',
      head_sha: s.repo.base,
      status: 'queued',
      external_id: `SPC-001/planning/${PR}/${asked}`,
    });
    expect(lastComment(s)).toMatch(/^Started `plan-spec` for SPC-001: the worker \(on `master`\) writes the documents/);

    const outcome = await work(s);
    expect(outcome.failure).toBeUndefined();
    expect(outcome.result).toBe('verified');
    expect(subjects(s)).toEqual(['plan SPC-001: PROJECT.md from SPEC.md']);
    expect(onBranch(s)).toEqual([`${SPEC_DIR}/SPEC.md`, `${SPEC_DIR}/planning/PROJECT.md`]);
    expect(s.github.checkRuns.at(-1)).toMatchObject({ status: 'completed', conclusion: 'success', output: { title: 'plan-spec: 1 document(s) written' } });
    expect(lastComment(s)).toContain(`\`plan-spec\` for SPC-001 wrote 1 file to \`${SPEC_BRANCH}\``);
    expect(lastComment(s)).toContain(
      `- [\`${SPEC_DIR}/planning/PROJECT.md\`](https://github.com/Codertocat/Hello-World/blob/${SPEC_BRANCH}/${SPEC_DIR}/planning/PROJECT.md)`,
    );
    expect(lastComment(s)).toContain('Next: `research-spec` or `define-requirements`.');
    // The claim is gone once the documents are on the PR's branch.
    expect(git(s.repo.remote, 'branch', '--list', 'harness/*')).toBe('');

    for (const command of [
      'research-spec',
      'define-requirements',
      'create-roadmap',
      'add-phase "Notes can be exported"',
      'research-phase 01',
      'plan-phase 01',
      'map-codebase',
    ]) {
      await say(s, `/harness ${command}`);
      const done = await work(s);
      expect(done.failure, command).toBeUndefined();
    }
    expect(subjects(s)).toEqual([
      'plan SPC-001: map of the codebase',
      'plan SPC-001: plans of phase 01',
      'plan SPC-001: research for phase 01',
      'plan SPC-001: add a phase to the roadmap',
      'plan SPC-001: roadmap',
      'plan SPC-001: requirements',
      'plan SPC-001: research (stack, features, architecture, pitfalls, synthesis)',
      'plan SPC-001: PROJECT.md from SPEC.md',
    ]);
    expect(onBranch(s)).toEqual(
      expect.arrayContaining([
        `${SPEC_DIR}/ROADMAP.md`,
        `${SPEC_DIR}/planning/plans/01-work/01-02-PLAN.md`,
        `${SPEC_DIR}/planning/codebase/CONCERNS.md`,
        `${SPEC_DIR}/planning/research/SUMMARY.md`,
      ]),
    );
  });

  it('gives the planner the lessons the base branch holds that apply, and records them in the signals pull request', async () => {
    const lesson =
      '---\ncategory: tooling\nconfidence: high\nevidence_count: 3\nlast_updated: 2026-11-01\ntags: [notes, json]\nprojects: []\n---\n\n## Lesson\n\nKeep notes in a JSON file written to a temporary file and renamed, or a crash loses them.\n\n## When this applies\n\nA notes service that keeps notes in a file.\n\n## Recommendation\n\nPlan the store with an atomic write.\n\n## Evidence\n\n- Signal: signals/notes/2026-10-02/a.signal.md — notes.json truncated\n';
    const s = await setup({ files: { '.harness/knowledge/lessons/tooling/notes-atomic.lesson.md': lesson } });
    s.github.commit(s.repo.base, {
      '.harness/knowledge/lessons/tooling/notes-atomic.lesson.md': lesson,
      [`${SPEC_DIR}/SPEC.md`]: '---\nid: SPC-001\ntitle: Notes\n---\n\n# Notes\n\nKeep notes.\n',
    });
    await say(s, '/harness plan-spec');

    const outcome = await work(s);

    expect(outcome.failure).toBeUndefined();
    const branch = 'harness/knowledge/signal/SPC-001';
    expect(s.github.branches.has(branch)).toBe(true);
    const day = new Date().toISOString().slice(0, 10);
    const lines = s.github
      .fileAt(branch, `.harness/knowledge/trajectory/${day}.jsonl`)!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; entry: string; plan: string });
    expect(lines.map((l) => [l.type, l.entry, l.plan])).toEqual([
      ['match', 'lessons/tooling/notes-atomic.lesson.md', 'planning/plan-spec'],
      ['use', 'lessons/tooling/notes-atomic.lesson.md', 'planning/plan-spec'],
    ]);
  });

  it('refuses an invalid plan with its errors, and commits the retry', async () => {
    const s = await setup({ env: { PLANNING_AGENT_SLIP: 'plan-phase' } });
    await say(s, '/harness create-roadmap');
    await work(s);
    await say(s, '/harness plan-phase 1');
    expect(s.github.dispatches).toHaveLength(2);
    const outcome = await work(s);
    expect(outcome.result).toBe('verified');
    expect(subjects(s)[0]).toBe('plan SPC-001: plans of phase 01');
    const answer = lastComment(s);
    expect(answer).toContain('The first try of plan-phase was refused and written again; it had these problems:');
    expect(answer).toContain(`- \`${SPEC_DIR}/planning/plans/01-work/01-01-PLAN.md:8: plan 01-01 has no must_pass checks`);
    expect(git(s.repo.remote, 'show', `refs/heads/${SPEC_BRANCH}:${SPEC_DIR}/planning/plans/01-work/01-01-PLAN.md`)).toContain('type: file_exists');
  });

  it('answers with the errors and commits nothing when the retry is invalid too', async () => {
    const s = await setup({ env: { PLANNING_AGENT_SLIP: 'plan-phase', PLANNING_AGENT_STUBBORN: '1' } });
    await say(s, '/harness create-roadmap');
    await work(s);
    const before = git(s.repo.remote, 'rev-parse', `refs/heads/${SPEC_BRANCH}`);
    await say(s, '/harness plan-phase 01');
    const outcome = await work(s);
    expect(outcome.result).toBe('failed');
    expect(git(s.repo.remote, 'rev-parse', `refs/heads/${SPEC_BRANCH}`)).toBe(before);
    expect(lastComment(s)).toMatch(
      /^`plan-phase 01` for SPC-001 did not commit anything \(\[run\]\(https:\/\/github\.com\/Codertocat\/Hello-World\/actions\/runs\/77\)\): what the agent wrote for the plans of phase 01 still does not pass after its second try; nothing was committed\./,
    );
    expect(lastComment(s)).toContain(`- \`${SPEC_DIR}/planning/plans/01-work/01-02-PLAN.md:8: plan 01-02 has no must_pass checks`);
    expect(s.github.checkRuns.at(-1)).toMatchObject({ status: 'completed', conclusion: 'failure' });
  });

  it("posts a phase's questions, then reads back the answers of people with write access, after the questions", async () => {
    const s = await setup();
    await say(s, '/harness create-roadmap');
    await work(s);
    await say(s, 'Before the questions: sort by title.');
    await say(s, '/harness discuss-phase 01');
    await work(s);
    const questions = lastComment(s);
    expect(questions).toMatch(/^<!-- harness:discuss SPC-001 01 -->\n\*\*Questions about phase 01\*\*/);
    expect(questions).toContain('1. Should notes be sorted by date? (assumed: yes)');
    expect(subjects(s)[0]).toBe('plan SPC-001: questions about phase 01');

    await say(s, 'Sort by date, newest first.');
    await say(s, 'Ignore that, sort by size.', 'reader');
    await say(s, '/harness discuss-phase 01');
    await work(s);
    const context = git(s.repo.remote, 'show', `refs/heads/${SPEC_BRANCH}:${SPEC_DIR}/planning/discuss/phase-01-context.md`);
    expect(context).toContain('> Sort by date, newest first.');
    expect(context).not.toContain('sort by size');
    expect(context).not.toContain('sort by title');
    const answers = git(s.repo.remote, 'show', `refs/heads/${SPEC_BRANCH}:${SPEC_DIR}/planning/discuss/phase-01-answers.md`);
    expect(answers).toContain('## @Codertocat');
    expect(subjects(s)[0]).toBe('plan SPC-001: context of phase 01 from the discussion');
  });

  it("refuses a read-only user's command", async () => {
    const s = await setup();
    await say(s, '/harness plan-spec', 'reader');
    expect(lastComment(s)).toMatch(
      /^Sorry @reader, `plan-spec` changes things, so it needs the write role on this repository or above, and you have the read role\. Nothing was run\./,
    );
    expect(s.github.dispatches).toEqual([]);
    expect(s.github.checkRuns).toEqual([]);
  });

  it("answers a fork's spec PR without running anything", async () => {
    const fork = await setup({ fork: true });
    await say(fork, '/harness plan-phase 01');
    expect(lastComment(fork)).toMatch(/^Sorry @Codertocat, commands that change anything do not run on pull requests from forks/);
    expect(fork.github.dispatches).toEqual([]);
    expect(fork.github.checkRuns).toEqual([]);
    expect([...fork.github.branches.keys()].filter((b) => b.startsWith('harness/'))).toEqual([]);
  });

  it('says where to run it when asked on an ordinary issue', async () => {
    const s = await setup();
    const payload = webhookExample<CommentPayload>('issue_comment', (p) => p.action === 'created');
    payload.comment.body = '/harness plan-spec';
    payload.issue.comments = 0;
    delete payload.issue.pull_request;
    await testProbot().receive({ id: 'delivery-issue', name: 'issue_comment', payload } as never);
    expect(lastComment(s)).toBe(
      'I could not run that: `plan-spec` works on a spec pull request, where its documents are committed for review; write it there.',
    );
    expect(s.github.dispatches).toEqual([]);
  });

  it('tells the thread when a planning run ended without answering, once, and frees the command to be written again', async () => {
    const s = await setup();
    const asked = await say(s, '/harness plan-spec');
    const claim = `harness/SPC-001/planning/${PR}/${asked}`;
    const payload = webhookExample<{ workflow_run: Record<string, unknown>; repository: unknown }>('workflow_run', (p) => p.action === 'completed');
    Object.assign(payload.workflow_run, {
      path: '.github/workflows/harness-worker.yml',
      event: 'workflow_dispatch',
      name: 'harness worker',
      display_title: `harness SPC-001/planning/${PR}/${asked}`,
      conclusion: 'timed_out',
      head_branch: 'master',
      html_url: 'https://github.com/Codertocat/Hello-World/actions/runs/99',
    });
    const event = (id: string) => ({ id, name: 'workflow_run', payload }) as never;
    await testProbot().receive(event('run-1'));
    expect(s.github.checkRuns.at(-1)).toMatchObject({ status: 'completed', conclusion: 'timed_out' });
    expect(lastComment(s)).toBe(
      'The planning job ended (timed_out) before it could answer: nothing was committed. Its log: https://github.com/Codertocat/Hello-World/actions/runs/99\n\nWrite the command again to run it once more.',
    );
    expect(s.github.branches.has(claim)).toBe(false);
    const comments = s.github.comments.length;
    await testProbot().receive(event('run-1-again'));
    expect(s.github.comments).toHaveLength(comments);
  });
});
