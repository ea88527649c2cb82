import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { signalEntries } from '../../app/engine/knowledge/documents/store-index.js';
import { knowledgeForge } from '../../app/worker-action/capture.js';
import { runWorker } from '../../app/worker-action/worker.js';
import { workerForge, type WorkerDeps } from '../../app/worker-action/worker-run.js';
import { FakeGitHub } from '../helpers/github-repo.js';
import { testOctokit } from '../helpers/octokit.js';
import { OWNER, REPO, testLog } from '../helpers/worker-github.js';
import { isolateGit, workerRepo, type WorkerRepo } from '../helpers/worker-repo.js';
import { SPEC, specRepo, step, type WorkerPlan } from '../helpers/worker-spec.js';

/**
 * The worker's signals on GitHub (app/worker-action/capture.ts): each job appends to the spec's
 * signals PR, branch harness/knowledge/signal/SPC-007, labelled harness:knowledge and signal —
 * created by the first job, appended to by the next, built on again when another writer moved
 * it meanwhile, and left as it is by a re-run of the same job. Every file made safe first.
 */

const R = `/repos/${OWNER}/${REPO}`;
const SIGNALS = `harness/knowledge/signal/${SPEC}`;
const BASE = 'b'.repeat(40);
const RUN = (id: number) => `https://github.com/${OWNER}/${REPO}/actions/runs/${id}`;

const DEVIATING: WorkerPlan = {
  id: '01-01',
  title: 'Greeting',
  checks: ['{ id: greeting, type: file_exists, path: out/greeting.txt }'],
  blocks: [step('Write the greeting', 'mkdir -p out stray && echo hello > out/greeting.txt && echo x > stray/notes.txt')],
};

/** Fails, printing a GitHub token it put together and the checkout's path. */
const LEAKING: WorkerPlan = {
  id: '01-02',
  title: 'Deploy key',
  checks: ['{ id: key, type: file_exists, path: out/key.txt }'],
  blocks: [step('Fetch the key', `echo "denied for ghp_$(printf 'A1b2C3d4E5%.0s' 1 2 3)xY9z0w at $PWD/deploy.sh" >&2; exit 1`)],
};

const PLAIN: WorkerPlan = {
  id: '01-03',
  title: 'Page',
  checks: ['{ id: page, type: file_exists, path: out/page.html }'],
  blocks: [step('Write the page', 'mkdir -p out stray && echo "<h1>hi</h1>" > out/page.html && echo y > stray/page.txt')],
};

const LEAKED = `ghp_${'A1b2C3d4E5'.repeat(3)}xY9z0w`;

let github: FakeGitHub;
let restoreGit: () => void;

function fakeRepository(owner = OWNER, repo = REPO): FakeGitHub {
  const fake = new FakeGitHub(owner, repo);
  fake.defaultBranch = 'main';
  fake.commit(BASE, { 'README.md': '# demo\n' });
  fake.branches.set('main', BASE);
  fake.now = () => new Date('2024-05-01T12:00:00Z');
  return fake;
}

beforeAll(() => {
  restoreGit = isolateGit();
  nock.disableNetConnect();
});
beforeEach(() => {
  github = fakeRepository();
  for (const [n, plan] of [
    [3, '01-01'],
    [4, '01-02'],
    [5, '01-03'],
  ] as const) {
    github.issues.push({
      id: 900_000 + n,
      number: n,
      title: `[${plan}] Plan ${plan}`,
      body: `<!-- harness:plan ${SPEC}/${plan} hash=0123456789abcdef status=running -->\n**Spec** …`,
      labels: ['harness:plan', `spec:${SPEC}`, `phase:01`, 'status:running'],
      state: 'open',
      state_reason: null,
    });
    // The plan branches the App claimed, for the plan PRs.
    github.branches.set(`harness/${SPEC}/${plan}`, BASE);
  }
  github.install({ ownOnly: true });
});
afterEach(() => nock.cleanAll());
afterAll(() => restoreGit());

async function job(plan: WorkerPlan, run: number, options: { config?: string; repo?: WorkerRepo } = {}) {
  const repo =
    options.repo ??
    (await workerRepo(specRepo([DEVIATING, LEAKING, PLAIN], options.config ? { '.github/harness.yml': options.config } : {}), `harness/${SPEC}/${plan.id}`));
  const log = testLog();
  const request = testOctokit().request;
  const deps: WorkerDeps = {
    inputs: { spec: SPEC, target: { kind: 'plan', plan: plan.id }, resume: false },
    base: 'main',
    root: repo.checkout,
    tempDir: repo.temp,
    forge: workerForge(request, { owner: OWNER, repo: REPO }, 'harness[bot]'),
    knowledge: (r) => knowledgeForge(request, r ?? { owner: OWNER, repo: REPO }),
    secrets: ['the-job-token-0123456789'],
    log,
    now: () => new Date('2024-05-01T12:30:00Z'),
    runUrl: RUN(run),

    // No progress writes: how many a job makes follows how fast the machine runs it, and every request is asserted.
    checkIntervalMs: 2 ** 30,
  };
  const from = github.requests.length;
  const outcome = await runWorker(deps);
  return { outcome, log, repo, from };
}

function signalFiles(fake: FakeGitHub, ref = SIGNALS) {
  return Object.entries(fake.files(ref))
    .filter(([p]) => p.endsWith('.signal.md'))
    .map(([path, text]) => ({ path, text, data: parseKnowledge('signal', path, text).data! }));
}

describe("the worker's signals PR", () => {
  it('is created by a first job, appended to by a second, and left alone by a re-run of that job', async () => {
    const first = await job(DEVIATING, 101);
    expect(first.outcome.result).toBe('verified');
    const created = github.branches.get(SIGNALS)!;
    expect(github.log(first.from)).toEqual([
      `GET ${R}/issues?labels=harness:plan,spec:${SPEC},phase:01&state=all&direction=asc&per_page=100`,
      `GET ${R}/issues/3/comments?per_page=100`,
      // The worker's own check run for the plan, in progress (issue 8).
      `POST ${R}/check-runs`,
      // The plan's earlier attempts: no signals branch yet, so the store on main.
      `GET ${R}/git/ref/heads/${SIGNALS}`,
      `GET ${R}/contents/.harness/knowledge/index.md?ref=main`,
      // The append: no PR, no branch; built on main, the branch created with its commit, the PR opened and labelled.
      `GET ${R}/pulls?head=${OWNER}:${SIGNALS}&state=all&per_page=100`,
      `GET ${R}/git/ref/heads/${SIGNALS}`,
      `GET ${R}/git/ref/heads/main`,
      `GET ${R}/contents/.harness/knowledge/index.md?ref=${BASE}`,
      `GET ${R}/contents/.harness/knowledge/trajectory/2024-05-01.jsonl?ref=${BASE}`,
      `GET ${R}/git/commits/${BASE}`,
      `POST ${R}/git/trees`,
      `POST ${R}/git/commits`,
      `POST ${R}/git/refs`,
      `POST ${R}/pulls`,
      `POST ${R}/issues/100/labels`,
      // Then the plan PR, as before.
      `GET ${R}/pulls?head=${OWNER}:harness/${SPEC}/01-01&base=main&state=open&per_page=100`,
      `POST ${R}/pulls`,
      // Its final state, on the commit it started from and on the pushed head.
      `PATCH ${R}/check-runs/1`,
      `POST ${R}/check-runs`,
      // The plan issue marked as the plan ended, while the App's record still says running (read again): the record, then its label.
      `GET ${R}/issues/3`,
      `PATCH ${R}/issues/3`,
      `POST ${R}/issues/3/labels`,
      `DELETE ${R}/issues/3/labels/status:running`,
    ]);
    const pr = github.pullRequests.find((p) => p.head === SIGNALS)!;
    expect(pr).toMatchObject({ number: 100, base: 'main', title: `Signals of ${SPEC}`, labels: ['harness:knowledge', 'signal'], state: 'open' });
    expect(pr.body).toContain(`Merging accepts them into \`.harness/knowledge/\``);
    expect(signalFiles(github).map((s) => [s.data.type, s.data.plan])).toEqual([['deviation', '01-01']]);
    expect(first.log.lines).toContain(`signals: deviation on this repository's ${SIGNALS} (PR #100, opened)`);

    const second = await job(LEAKING, 102);
    expect(second.outcome.result).toBe('failed');
    expect(github.log(second.from)).toEqual([
      `GET ${R}/issues?labels=harness:plan,spec:${SPEC},phase:01&state=all&direction=asc&per_page=100`,
      `GET ${R}/issues/4/comments?per_page=100`,
      `POST ${R}/check-runs`,
      `GET ${R}/git/ref/heads/${SIGNALS}`,
      `GET ${R}/contents/.harness/knowledge/index.md?ref=${created}`,
      `GET ${R}/pulls?head=${OWNER}:${SIGNALS}&state=all&per_page=100`,
      `GET ${R}/git/ref/heads/${SIGNALS}`,
      `GET ${R}/contents/.harness/knowledge/index.md?ref=${created}`,
      `GET ${R}/contents/.harness/knowledge/trajectory/2024-05-01.jsonl?ref=${created}`,
      `GET ${R}/git/commits/${created}`,
      `POST ${R}/git/trees`,
      `POST ${R}/git/commits`,
      `PATCH ${R}/git/refs/heads/${SIGNALS}`,
      // The check run fails where the job started: nothing new was pushed.
      `PATCH ${R}/check-runs/4`,
      `GET ${R}/issues/4`,
      `PATCH ${R}/issues/4`,
      `POST ${R}/issues/4/labels`,
      `DELETE ${R}/issues/4/labels/status:running`,
    ]);
    expect(github.parents(github.branches.get(SIGNALS)!)).toEqual([created]);
    const signals = signalFiles(github);
    expect(signals.map((s) => [s.data.type, s.data.plan, s.data.metadata?.attempt])).toEqual([
      ['deviation', '01-01', 1],
      ['struggle', '01-02', 1],
    ]);
    // The agent's words are in the signal, made safe; and in the job's failure and summary, made safe.
    const struggle = signals[1]!.text;
    expect(struggle).toContain('denied for [REDACTED] at ${PROJECT_ROOT}/deploy.sh');
    for (const text of [...Object.values(github.files(SIGNALS)), second.outcome.failure!, second.outcome.summary]) {
      expect(text).not.toContain(LEAKED);
      expect(text).not.toContain(second.repo.checkout);
    }
    expect(signalEntries(github.files(SIGNALS)['.harness/knowledge/index.md']).map((e) => e.type)).toEqual(['struggle', 'deviation']);

    // GitHub's "Re-run job": the same workflow run, the same failure, nothing new on the branch.
    const head = github.branches.get(SIGNALS);
    const again = await job(LEAKING, 102);
    expect(again.outcome.result).toBe('failed');
    expect(github.writes(again.from).filter((w) => /knowledge|\/git\//.test(w.url))).toEqual([]);
    expect(github.branches.get(SIGNALS)).toBe(head);
    expect(again.log.lines).toContain(`signals: nothing new on this repository's ${SIGNALS} (PR #100); 1 there already`);

    // A retry (a new workflow run) is a new attempt, which fails the same way: stuck, numbered 2.
    const retried = await job(LEAKING, 103);
    expect(retried.outcome.result).toBe('failed');
    expect(signalFiles(github).map((s) => [s.data.type, s.data.metadata?.attempt])).toContainEqual(['stuck', 2]);
  });

  it("builds again on another writer's commit when the branch moved under it", async () => {
    await job(DEVIATING, 201);
    // The App notes a person's frustration on the same PR while this job is writing.
    let raced = false;
    github.beforeServe = (method, url) => {
      if (raced || method !== 'PATCH' || !url.endsWith(`/git/refs/heads/${SIGNALS}`)) return;
      raced = true;
      github.pushTo(SIGNALS, { '.harness/knowledge/from-the-app.md': 'another writer\n' }, 'the App');
    };

    const racing = await job(PLAIN, 202);

    expect(raced).toBe(true);
    expect(github.log(racing.from).filter((l) => l === `PATCH ${R}/git/refs/heads/${SIGNALS}`)).toHaveLength(2);
    expect(racing.log.lines.some((l) => l.includes('the branch moved meanwhile, added on try 2'))).toBe(true);
    const files = github.files(SIGNALS);
    expect(files['.harness/knowledge/from-the-app.md']).toBe('another writer\n');
    expect(
      signalFiles(github)
        .map((s) => s.data.plan)
        .sort(),
    ).toEqual(['01-01', '01-03']);
  });

  it('writes to the knowledge repository the config names, and says which token that needs when GitHub refuses', async () => {
    const shared = fakeRepository(OWNER, 'knowledge');
    shared.install({ ownOnly: true });
    const config = `knowledge:\n  repository: ${OWNER}/knowledge\n`;

    const done = await job(DEVIATING, 301, { config });

    expect(done.outcome.result).toBe('verified');
    const branch = `harness/knowledge/signal/${REPO}/${SPEC}`;
    expect(shared.pullRequests.map((p) => [p.head, p.base, p.title])).toEqual([[branch, 'main', `Signals of ${SPEC} from ${REPO}`]]);
    expect(Object.keys(shared.files(branch)).filter((p) => p !== 'README.md')).toEqual([
      'index.md',
      expect.stringMatching(new RegExp(`^signals/${REPO}/2024-05-01/.*-deviation\\.signal\\.md$`)),
    ]);
    expect(github.branches.has(SIGNALS)).toBe(false);

    // The job's own token may not write there.
    shared.fail = (method) => (method === 'GET' ? undefined : 403);
    const refused = await job(PLAIN, 302, { config });
    expect(refused.outcome.result).toBe('verified');
    const warning = refused.log.lines.find((l) => l.startsWith('warning: signals of 01-03'))!;
    expect(warning).toContain(
      `The knowledge repository ${OWNER}/knowledge is another repository, which a job's GITHUB_TOKEN cannot write: give the worker a token that can`,
    );
    expect(refused.outcome.summary).toContain('GITHUB_TOKEN cannot write');
  });

  it('never holds up the work: a GitHub that refuses every signal leaves the plan verified and says why', async () => {
    github.fail = (method, url) => (url.includes('/git/') && method !== 'GET' ? 500 : undefined);
    const done = await job(DEVIATING, 401);
    expect(done.outcome.result).toBe('verified');
    expect(done.outcome.pullRequest).toBeDefined();
    expect(done.log.lines.find((l) => l.startsWith('warning: signals of 01-01 verified were not filed on this repository'))).toBeDefined();
  });
});
