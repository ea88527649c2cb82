import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spikeDraft } from '../../app/engine/forge/spike-draft.js';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { loadTemplate } from '../../app/machine/templates.js';
import { parseInputs } from '../../app/worker-action/inputs.js';
import { runWorker } from '../../app/worker-action/worker.js';
import type { WorkerDeps } from '../../app/worker-action/worker-run.js';
import { writeTree } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/paths.js';
import { api, OWNER, REPO, REPO_PATH, testForge, testLog } from '../helpers/worker-github.js';
import { git, isolateGit, remoteCommits, workerRepo, type WorkerRepo } from '../helpers/worker-repo.js';

/**
 * The worker running a spike (`/harness spike` dispatched it with spec `knowledge` and plan
 * `spike/<slug>`): the runner's checkout of the spike's branch as the App opened it, the command
 * agent running the stand-in spike agent, a real remote to push to, and GitHub behind nock,
 * which sees exactly the spike's PR looked up and told what was found, and nothing else (no
 * plan issue is read or written).
 */

const BOT = 'github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>';
const RUN_URL = `https://github.com/${OWNER}/${REPO}/actions/runs/77`;
const QUESTION = 'Can run state live in plain files?';
const SLUG = 'can-run-state-live-in-plain-files';
const BRANCH = `harness/knowledge/spike/${SLUG}`;
const FOLDER = `.harness/knowledge/spikes/${REPO}/${SLUG}`;
const PR = { number: 61, html_url: `https://github.com/${OWNER}/${REPO}/pull/61` };
const TOKEN = `ghp_${'A1b2C3d4E5f6G7h8I9j0'.repeat(2).slice(0, 36)}`;

let restoreGit: () => void;
beforeAll(() => {
  restoreGit = isolateGit();
  nock.disableNetConnect();
});
afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
});
afterAll(() => restoreGit());

/** The repository with the stand-in as its agent, and the spike's branch as the App opened it: one commit adding the question's record. */
async function spikeRepo(env: Record<string, string> = {}): Promise<WorkerRepo & { opened: string }> {
  const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  const command = [...vars, JSON.stringify(process.execPath), JSON.stringify(join(FIXTURES, 'agents', 'spike-agent.mjs'))].join(' ');
  const repo = await workerRepo(
    { '.github/harness.yml': `agent: command\nagents:\n  command:\n    command: ${JSON.stringify(command)}\n`, 'src/app.js': 'export {};\n' },
    BRANCH,
  );
  const draft = spikeDraft({
    template: await loadTemplate('spike/HYPOTHESIS.md'),
    question: QUESTION,
    project: REPO,
    now: new Date('2024-05-01T11:00:00Z'),
    askedIn: 'Asked by @ana in #3.',
  });
  await writeTree(repo.checkout, Object.fromEntries(draft.files.map((f) => [f.path, f.content])));
  git(repo.checkout, 'add', '-A');
  git(repo.checkout, '-c', 'user.name=harness[bot]', '-c', 'user.email=bot@example.com', 'commit', '-q', '-m', draft.commitMessage);
  git(repo.checkout, 'push', '-q', 'origin', `HEAD:refs/heads/${BRANCH}`);
  return { ...repo, opened: git(repo.checkout, 'rev-parse', 'HEAD') };
}

function deps(repo: WorkerRepo, agent?: 'script'): { deps: WorkerDeps; log: ReturnType<typeof testLog> } {
  const log = testLog();
  return {
    log,
    deps: {
      inputs: { spec: 'knowledge', target: { kind: 'spike', slug: SLUG }, resume: false, ...(agent ? { agent } : {}) },
      base: 'main',
      root: repo.checkout,
      tempDir: repo.temp,
      forge: testForge(),
      log,
      env: {},
      now: () => new Date('2024-05-01T12:30:00Z'),
      runUrl: RUN_URL,
    },
  };
}

/** The spike's open PR found, then its description rewritten: the body kept for the test. */
function prTold(open: (typeof PR)[] = [PR]): { body: () => string } {
  let body = '';
  const scope = api()
    .get(`${REPO_PATH}/pulls`)
    .query({ head: `${OWNER}:${BRANCH}`, state: 'open', per_page: '100' })
    .reply(200, open);
  if (open.length > 0) {
    scope
      .patch(`${REPO_PATH}/pulls/${PR.number}`, (b: { title: string; body: string }) => {
        body = b.body;
        return b.title === `Spike: ${QUESTION}`;
      })
      .reply(200, PR);
  }
  return { body: () => body };
}

function remoteFile(repo: WorkerRepo, path: string): string {
  return git(repo.remote, 'show', `refs/heads/${BRANCH}:${path}`);
}

describe('the worker action: a spike', () => {
  it('runs the spike on its branch, pushes its records and tells its PR what was found', async () => {
    process.env.SPIKE_TEST_API_KEY = 'worker-side-secret-42';
    process.env.SPIKE_AGENT_KEY = 'worker-side-secret-42';
    try {
      const repo = await spikeRepo({ SPIKE_AGENT_OUTSIDE: '1', SPIKE_AGENT_SECRET: '1' });
      const pr = prTold();
      const { deps: d, log } = deps(repo);

      const outcome = await runWorker(d);

      expect(outcome.failure).toBeUndefined();
      expect(outcome).toMatchObject({ result: 'verified', pullRequest: { number: 61, url: PR.html_url } });
      // Two commits on the App's, by the bot, pushed as the checkout has them.
      expect(git(repo.remote, 'rev-parse', `refs/heads/${BRANCH}`)).toBe(git(repo.checkout, 'rev-parse', 'HEAD'));
      expect(remoteCommits(repo.remote, BRANCH, repo.opened).map((c) => [c.subject, c.author, c.trailers])).toEqual([
        [`spike ${SLUG}: hypothesis and experiment`, BOT, `Spike: ${SLUG}\nSpike-Stage: design`],
        [`spike ${SLUG}: decision (confirmed)`, BOT, `Spike: ${SLUG}\nSpike-Stage: run`],
      ]);
      expect(git(repo.remote, 'diff', '--name-only', `${repo.base}..refs/heads/${BRANCH}`).split('\n')).toEqual([
        `${FOLDER}/DECISION.md`,
        `${FOLDER}/EXPERIMENT.md`,
        `${FOLDER}/HYPOTHESIS.md`,
        `${FOLDER}/results/roundtrip.txt`,
      ]);
      const decision = parseKnowledge('decision', `${FOLDER}/DECISION.md`, remoteFile(repo, `${FOLDER}/DECISION.md`));
      expect(decision.problems).toEqual([]);
      expect(decision.data).toMatchObject({ spike: SLUG, project: REPO, outcome: 'confirmed', decided: '2024-05-01T12:30:00Z' });
      expect(remoteFile(repo, `${FOLDER}/results/roundtrip.txt`)).toMatch(/token=\[REDACTED\]\nkey=\[REDACTED\]\ncwd=\$\{PROJECT_ROOT\}$/);

      const body = pr.body();
      expect(body).toMatch(
        new RegExp(`^\\*\\*${QUESTION.replace('?', '\\?')}\\*\\* — confirmed, with medium confidence\\.\n\n> Keep run state in plain files\\.\n`),
      );
      expect(body).toContain(`The spike was designed and run by the \`command\` agent in [this worker run](${RUN_URL}); its records are in \`${FOLDER}/\`.`);
      expect(body).toContain(
        '### Method\n\nA benchmark within a time box of 5 minutes, against 2 criteria:\n\n- `roundtrip`: ms to write and read back 200 files; target under 2000\n- `intact`: files read back unchanged, out of 200; target 200',
      );
      expect(body).toMatch(
        /### Results\n\n\| criterion \| target \| measured \| met \| from \|\n\|---\|---\|---\|---\|---\|\n\| roundtrip \| under 2000 \| [\d.]+ ms \| yes \| results\/roundtrip\.txt \|\n\| intact \| 200 \| 200 \| yes \| results\/roundtrip\.txt \|/,
      );
      expect(body).toContain(
        "### Kept out of the records\n\n- Put back as they were, written outside the spike's folder: `.gitignore`, `README.md`, `notes/outside.txt`, `hidden.txt`",
      );
      expect(body).toContain(`- Redacted: 2 secrets (\`${FOLDER}/results/roundtrip.txt:3\`, \`${FOLDER}/results/roundtrip.txt:4\`)`);
      for (const text of [body, outcome.summary, git(repo.remote, 'log', '-p', '--all')]) {
        expect(text).not.toContain(TOKEN);
        expect(text).not.toContain('worker-side-secret-42');
        expect(text).not.toContain(repo.checkout);
      }
      expect(outcome.summary).toMatch(/^## harness spike can-run-state-live-in-plain-files\n\n\*\*✅ Decided\*\*: \[#61\]/);
      expect(log.lines).toContain(`told the spike's PR #61 what was found: ${PR.html_url}`);
    } finally {
      delete process.env.SPIKE_TEST_API_KEY;
      delete process.env.SPIKE_AGENT_KEY;
    }
  });

  it('fails the job with why a stage failed, pushes what the stages before finished, and says so on the PR', async () => {
    const repo = await spikeRepo({ SPIKE_AGENT_FAIL: 'run' });
    const pr = prTold();

    const outcome = await runWorker(deps(repo).deps);

    expect(outcome.result).toBe('failed');
    expect(outcome.failure).toBe(`spike ${SLUG}: the command agent failed: the command exited with code 1\nthe experiment crashed; the run stage was undone`);
    expect(remoteCommits(repo.remote, BRANCH, repo.opened).map((c) => c.subject)).toEqual([`spike ${SLUG}: hypothesis and experiment`]);
    expect(pr.body()).toMatch(new RegExp(`^\\*\\*${QUESTION.replace('?', '\\?')}\\*\\* — the spike could not finish its run stage: the command agent failed`));
    expect(pr.body()).toContain(`ask again with the same \`/harness spike\` question: the spike goes on from what the branch holds.`);
  });

  it('pushes nothing when nothing was finished, and only logs when the PR was closed meanwhile', async () => {
    const repo = await spikeRepo({ SPIKE_AGENT_FAIL: 'design' });
    prTold([]);
    const { deps: d, log } = deps(repo);

    const outcome = await runWorker(d);

    expect(outcome.result).toBe('failed');
    expect(git(repo.remote, 'rev-parse', `refs/heads/${BRANCH}`)).toBe(repo.opened);
    expect(log.lines).toContain(`warning: no open pull request for ${BRANCH}: the spike was closed or merged meanwhile; its records are pushed to the branch`);
    expect(outcome.pullRequest).toBeUndefined();
  });

  it('refuses the script agent and a branch without the spike, with the reason, before any agent runs', async () => {
    const repo = await spikeRepo();
    prTold();
    const scripted = await runWorker(deps(repo, 'script').deps);
    expect(scripted.result).toBe('failed');
    expect(scripted.failure).toMatch(/^spike can-run-state-live-in-plain-files: the script agent cannot run a spike/);
    expect(git(repo.remote, 'rev-parse', `refs/heads/${BRANCH}`)).toBe(repo.opened);

    const empty = await workerRepo({}, BRANCH);
    const missing = await runWorker(deps(empty).deps);
    expect(missing.result).toBe('failed');
    expect(missing.failure).toBe(
      `the checkout of ${BRANCH} has no spike ${SLUG}: no .harness/knowledge/spikes/<project>/${SLUG}/HYPOTHESIS.md; open the spike with /harness spike "<question>"`,
    );
  });
});

describe("the worker action: a spike's inputs", () => {
  const inputs = (values: Record<string, string>) => parseInputs((name) => values[name] ?? '');

  it('reads spec "knowledge" with plan "spike/<slug>" as a spike, and nothing else', () => {
    expect(inputs({ spec: 'knowledge', plan: `spike/${SLUG}`, resume: 'false', token: 't' })).toEqual({
      spec: 'knowledge',
      target: { kind: 'spike', slug: SLUG },
      resume: false,
      token: 't',
    });
    expect(() => inputs({ spec: 'knowledge', plan: '03-02', token: 't' })).toThrow(
      'input plan: "03-02" is not a spike like spike/<name>, which spec "knowledge" asks for',
    );
    expect(() => inputs({ spec: 'SPC-002', plan: `spike/${SLUG}`, token: 't' })).toThrow(
      `input plan: "spike/${SLUG}" is neither a plan id like 03-02 nor a phase like phase-03`,
    );
  });
});
