import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { knowledgeBranch } from '../../../app/engine/forge/knowledge-draft.js';
import { parseSpikeInputs, parseSpikeRunTitle, parseTargetBranch, spikeInputs, spikeRunTitle } from '../../../app/engine/forge/worker-target.js';
import { parseKnowledge } from '../../../app/engine/knowledge/documents/parse.js';
import { spoken } from '../../helpers/github-repo.js';
import { githubApi, testProbot, webhookExample } from '../../helpers/probot.js';

/**
 * `/harness spike` on GitHub: the App opens the spike's knowledge PR and dispatches the worker
 * on its branch; asked again, it tells where the spike is, or runs an undecided one again; and
 * when a spike's worker run ends, it says so on the PR. Real payloads, the exact requests.
 */

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const REPO = '/repos/Codertocat/Hello-World';
const COMMENT = 492700400;
const QUESTION = 'Can SQLite take concurrent writers?';
const SLUG = 'can-sqlite-take-concurrent-writers';
const BRANCH = `harness/knowledge/spike/${SLUG}`;
const FOLDER = `.harness/knowledge/spikes/Hello-World/${SLUG}`;
const PR = { number: 50, html_url: 'https://github.com/Codertocat/Hello-World/pull/50', state: 'open', merged_at: null };
const DISPATCHES = `${REPO}/actions/workflows/harness-worker.yml/dispatches`;
const RUNS = `${REPO}/actions/workflows/harness-worker.yml/runs`;

type CommentPayload = { comment: { id: number; body: string; user: { login: string; type: string } }; sender: { login: string; type: string } };

function commentEvent(body: string, id = 'delivery-1') {
  const payload = webhookExample<CommentPayload>('issue_comment', (p) => p.action === 'created');
  payload.comment.body = body;
  return { id, name: 'issue_comment', payload } as never;
}

function asked(scope: nock.Scope, role = 'write'): void {
  scope.post(`${REPO}/issues/comments/${COMMENT}/reactions`, { content: 'eyes' }).reply(201, { id: 1, content: 'eyes' });
  scope.get(`${REPO}/contents/.github%2Fharness.yml`).reply(404).get('/repos/Codertocat/.github/contents/.github%2Fharness.yml').reply(404);
  const push = ['write', 'maintain', 'admin'].includes(role);
  scope
    .get(`${REPO}/collaborators/Codertocat/permission`)
    .reply(200, { permission: push ? 'write' : 'read', role_name: role, user: { login: 'Codertocat', permissions: { push, pull: true } } });
}

function answered(scope: nock.Scope): { text: () => string } {
  let text = '';
  scope
    .post(`${REPO}/issues/1/comments`, (b: { body: string }) => {
      text = spoken(b.body);
      return true;
    })
    .reply(201, { id: 7000, body: 'reply', user: { type: 'Bot' } });
  return { text: () => text };
}

/** The knowledge PR opened: the requests of the gateway's openKnowledgePr, in order, with what was committed kept. */
function opened(scope: nock.Scope, slug = SLUG): { sent: { content: string; message: string; title: string; body: string } } {
  const branch = knowledgeBranch('spike', slug);
  const sent = { content: '', message: '', title: '', body: '' };
  scope
    .get(`${REPO}/pulls`)
    .query({ head: `Codertocat:${branch}`, state: 'all', per_page: '100' })
    .reply(200, []);
  scope.get(`${REPO}/git/ref/heads%2Fmaster`).reply(200, { ref: 'refs/heads/master', object: { sha: 'base-sha' } });
  scope.get(`${REPO}/git/commits/base-sha`).reply(200, { sha: 'base-sha', tree: { sha: 'base-tree' } });
  scope
    .post(`${REPO}/git/trees`, (b: { tree: { path: string; content: string }[] }) => {
      sent.content = b.tree[0]!.content;
      return b.tree.length === 1 && b.tree[0]!.path === `.harness/knowledge/spikes/Hello-World/${slug}/HYPOTHESIS.md`;
    })
    .reply(201, { sha: 'new-tree' });
  scope
    .post(`${REPO}/git/commits`, (b: { message: string }) => {
      sent.message = b.message;
      return true;
    })
    .reply(201, { sha: 'new-commit' });
  scope.post(`${REPO}/git/refs`, { ref: `refs/heads/${branch}`, sha: 'new-commit' }).reply(201, {});
  scope
    .post(`${REPO}/pulls`, (b: { title: string; head: string; base: string; body: string }) => {
      Object.assign(sent, { title: b.title, body: b.body });
      return b.head === branch && b.base === 'master';
    })
    .reply(201, PR);
  scope.post(`${REPO}/issues/50/labels`, { labels: ['harness:knowledge', 'spike'] }).reply(200, []);
  return { sent };
}

/** The open PR found for the branch, when the question is asked again. */
function foundOpen(scope: nock.Scope): void {
  scope
    .get(`${REPO}/pulls`)
    .query({ head: `Codertocat:${BRANCH}`, state: 'all', per_page: '100' })
    .reply(200, [PR]);
}

function folderHolds(scope: nock.Scope, names: string[]): void {
  scope
    .get(`${REPO}/contents/${encodeURIComponent(FOLDER)}`)
    .query({ ref: BRANCH })
    .reply(
      200,
      names.map((name) => ({ name, path: `${FOLDER}/${name}`, type: 'file', sha: name })),
    );
}

function runs(scope: nock.Scope, queued: { id: number; display_title: string; status: string }[], inProgress: typeof queued = []): void {
  scope.get(RUNS).query({ status: 'queued', per_page: '100' }).reply(200, { total_count: queued.length, workflow_runs: queued });
  scope.get(RUNS).query({ status: 'in_progress', per_page: '100' }).reply(200, { total_count: inProgress.length, workflow_runs: inProgress });
}

async function run(event: never): Promise<void> {
  await testProbot().receive(event);
}

describe('a spike as the worker takes it (engine/forge/worker-target.ts)', () => {
  it('is dispatched with spec "knowledge" and plan "spike/<slug>", which name its branch and title its run', () => {
    const inputs = spikeInputs(SLUG);
    expect(inputs).toEqual({ spec: 'knowledge', plan: `spike/${SLUG}` });
    // templates/workflows/harness-worker.yml checks out harness/<spec>/<plan> and titles the run harness <spec>/<plan>.
    expect(`harness/${inputs.spec}/${inputs.plan}`).toBe(knowledgeBranch('spike', SLUG));
    expect(spikeRunTitle(SLUG)).toBe(`harness knowledge/spike/${SLUG}`);
    expect(parseSpikeRunTitle(spikeRunTitle(SLUG))).toEqual({ kind: 'spike', slug: SLUG });
    expect(parseSpikeInputs('knowledge', `spike/${SLUG}`)).toEqual({ kind: 'spike', slug: SLUG });
    // Nothing else reads as a spike, and a spike's branch is no plan's.
    expect(parseSpikeInputs('SPC-002', `spike/${SLUG}`)).toBeUndefined();
    expect(parseSpikeInputs('knowledge', 'spike/Not A Slug')).toBeUndefined();
    expect(parseSpikeRunTitle('harness SPC-002/03-02')).toBeUndefined();
    expect(parseTargetBranch(BRANCH)).toBeUndefined();
  });
});

describe('/harness spike', () => {
  it('opens the knowledge PR with the question, then dispatches the worker on its branch', async () => {
    const scope = githubApi();
    asked(scope);
    const { sent } = opened(scope);
    scope.post(DISPATCHES, { ref: 'master', inputs: { spec: 'knowledge', plan: `spike/${SLUG}`, resume: 'false' }, return_run_details: true }).reply(204);
    const answer = answered(scope);

    await run(commentEvent(`/harness spike "${QUESTION}"`));

    expect(scope.pendingMocks()).toEqual([]);
    expect(sent.message).toBe(`spike: ${QUESTION}`);
    expect(sent.title).toBe(`Spike: ${QUESTION}`);
    expect(sent.body).toContain("The spike's worker drafts the hypothesis and the experiment (EXPERIMENT.md) in the same folder");
    const record = parseKnowledge('hypothesis', `${FOLDER}/HYPOTHESIS.md`, sent.content);
    expect(record.problems).toEqual([]);
    expect(record.data).toMatchObject({ spike: SLUG, project: 'Hello-World', question: QUESTION, status: 'open' });
    // What the agent will write is said as such, never left as a blank to fill in.
    expect(sent.content).not.toMatch(/to be written/i);
    expect(answer.text()).toBe(
      `Opened spike #50 for "${QUESTION}": its worker drafts the hypothesis and the experiment, runs it in \`${FOLDER}/\` and writes the decision there. ${PR.html_url}`,
    );
  });

  it('keeps the PR when the worker cannot be dispatched, and says why', async () => {
    const scope = githubApi();
    asked(scope);
    opened(scope);
    scope.post(DISPATCHES).reply(404, { message: 'Not Found' });
    const answer = answered(scope);

    await run(commentEvent(`/harness spike "${QUESTION}"`));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toMatch(
      new RegExp(`^Opened spike #50 for "${QUESTION.replace('?', '\\?')}" \\(${PR.html_url}\\), but its worker could not be started: Not Found`),
    );
    expect(answer.text()).toMatch(/Once that is fixed, ask again to start it\.$/);
  });

  it('asked again while its worker is queued, says so and dispatches nothing', async () => {
    const scope = githubApi();
    asked(scope);
    foundOpen(scope);
    folderHolds(scope, ['HYPOTHESIS.md']);
    runs(scope, [
      { id: 91, display_title: 'harness SPC-042/02-03', status: 'queued' },
      { id: 92, display_title: `harness knowledge/spike/${SLUG}`, status: 'queued' },
    ]);
    const answer = answered(scope);

    await run(commentEvent(`/harness spike "${QUESTION}"`));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(`This question has a spike already: #50 (${PR.html_url}); its worker is queued.`);
  });

  it('asked again with no decision and no worker, runs it again from what its branch holds', async () => {
    const scope = githubApi();
    asked(scope);
    foundOpen(scope);
    folderHolds(scope, ['HYPOTHESIS.md', 'EXPERIMENT.md']);
    runs(scope, [], [{ id: 93, display_title: 'harness SPC-042/02-03', status: 'in_progress' }]);
    scope.post(DISPATCHES, { ref: 'master', inputs: { spec: 'knowledge', plan: `spike/${SLUG}`, resume: 'true' }, return_run_details: true }).reply(204);
    const answer = answered(scope);

    await run(commentEvent(`/harness spike "${QUESTION}"`));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toBe(
      `This question has a spike already: #50 (${PR.html_url}), with no decision yet: its worker is started again, from what its branch holds.`,
    );
  });

  it('is refused to someone without write access, before anything is opened or dispatched', async () => {
    const scope = githubApi();
    asked(scope, 'triage');
    const answer = answered(scope);
    // Refused once per thread: the thread is read for an earlier refusal first.
    scope.get(`${REPO}/issues/1/comments`).query({ per_page: '100' }).reply(200, []);

    await run(commentEvent(`/harness spike "${QUESTION}"`));

    expect(scope.pendingMocks()).toEqual([]);
    expect(answer.text()).toMatch(
      /^Sorry @Codertocat, `spike` changes things, so it needs the write role on this repository or above, and you have the triage role\. Nothing was run\./,
    );
  });

  it('takes a secret out of the question before it is committed, shown in the PR or answered', async () => {
    const token = `ghp_${'x1Y2z3'.repeat(6)}`;
    const own = 'the-apps-own-secret-value';
    process.env.HARNESS_TEST_SECRET = own;
    try {
      const question = `Does the token ${token} or ${own} work?`;
      const safeSlug = 'does-the-token-redacted-or-redacted-work';
      const scope = githubApi();
      asked(scope);
      const { sent } = opened(scope, safeSlug);
      scope.post(DISPATCHES, { ref: 'master', inputs: { spec: 'knowledge', plan: `spike/${safeSlug}`, resume: 'false' }, return_run_details: true }).reply(204);
      const answer = answered(scope);

      await run(commentEvent(`/harness spike "${question}"`));

      expect(scope.pendingMocks()).toEqual([]);
      for (const text of [sent.content, sent.message, sent.title, sent.body, answer.text()]) {
        expect(text).toContain('Does the token [REDACTED] or [REDACTED] work?');
        expect(text).not.toContain(token);
        expect(text).not.toContain(own);
      }
    } finally {
      delete process.env.HARNESS_TEST_SECRET;
    }
  });
});

function spikeRunCompleted(conclusion: string, delivery = 'run-1') {
  const payload = webhookExample<Record<string, Record<string, unknown>>>(
    'workflow_run',
    (p) => p.action === 'completed' && (p.workflow_run as { status: string }).status === 'completed',
  );
  payload.repository = webhookExample<Record<string, Record<string, unknown>>>('check_run').repository!;
  Object.assign(payload.workflow_run!, {
    id: 4242,
    path: '.github/workflows/harness-worker.yml',
    event: 'workflow_dispatch',
    name: 'harness worker',
    display_title: `harness knowledge/spike/${SLUG}`,
    conclusion,
    html_url: 'https://github.com/Codertocat/Hello-World/actions/runs/4242',
    head_branch: 'master',
  });
  return { id: delivery, name: 'workflow_run', payload } as never;
}

describe("a spike's worker run ending", () => {
  it("is said on the spike's open PR once, whatever the redeliveries; no plan issue, check run or round is touched", async () => {
    const scope = githubApi();
    scope
      .get(`${REPO}/pulls`)
      .query({ head: `Codertocat:${BRANCH}`, state: 'open', per_page: '100' })
      .reply(200, [PR]);
    scope
      .get(`${REPO}/issues/50/comments`)
      .query({ per_page: '100' })
      .reply(200, [{ id: 1, body: 'Looks interesting', user: { login: 'ana', type: 'User' } }]);
    let said = '';
    scope
      .post(`${REPO}/issues/50/comments`, (b: { body: string }) => {
        said = b.body;
        return true;
      })
      .reply(201, { id: 2, body: '', user: { type: 'Bot' } });

    await run(spikeRunCompleted('timed_out'));

    expect(scope.pendingMocks()).toEqual([]);
    expect(said).toBe(
      [
        '<!-- harness:spike-run 4242 -->',
        "The spike's [worker run](https://github.com/Codertocat/Hello-World/actions/runs/4242) ended without a decision (timed_out). What it finished is committed on this branch, and the description says why it stopped when the worker could tell. Ask again with the same `/harness spike` question to run it from there.",
      ].join('\n'),
    );

    const again = githubApi();
    again
      .get(`${REPO}/pulls`)
      .query({ head: `Codertocat:${BRANCH}`, state: 'open', per_page: '100' })
      .reply(200, [PR]);
    again
      .get(`${REPO}/issues/50/comments`)
      .query({ per_page: '100' })
      .reply(200, [{ id: 2, body: said, user: { login: 'harness[bot]', type: 'Bot' } }]);
    // The marker counts because the App wrote it: its login, asked of GitHub.
    again.post('/graphql', { query: 'query { viewer { login } }' }).reply(200, { data: { viewer: { login: 'harness[bot]' } } });

    await run(spikeRunCompleted('timed_out', 'run-1-again'));

    expect(again.pendingMocks()).toEqual([]);
  });

  it("says the decision is in when the run succeeded, and nothing when the spike's PR is closed", async () => {
    const scope = githubApi();
    scope
      .get(`${REPO}/pulls`)
      .query({ head: `Codertocat:${BRANCH}`, state: 'open', per_page: '100' })
      .reply(200, [PR]);
    scope.get(`${REPO}/issues/50/comments`).query({ per_page: '100' }).reply(200, []);
    let said = '';
    scope
      .post(`${REPO}/issues/50/comments`, (b: { body: string }) => {
        said = b.body;
        return true;
      })
      .reply(201, { id: 3, body: '', user: { type: 'Bot' } });

    await run(spikeRunCompleted('success'));

    expect(scope.pendingMocks()).toEqual([]);
    expect(said).toContain('decided it: the description above now says what it found');

    const closed = githubApi();
    closed
      .get(`${REPO}/pulls`)
      .query({ head: `Codertocat:${BRANCH}`, state: 'open', per_page: '100' })
      .reply(200, []);
    await run(spikeRunCompleted('success', 'run-closed'));
    expect(closed.pendingMocks()).toEqual([]);
  });
});
