import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerComment } from '../../app/engine/forge/checkpoint-markers.js';
import { bundleWorker, runAction, type RunnerDirs } from '../helpers/bundled-worker.js';
import type { FakeGitHub } from '../helpers/github-repo.js';
import { APP_CHECK, BRANCH, dispatchedFake, greetingPlan, OWNER, REPO } from '../helpers/worker-fake.js';
import { standInCopilot, type CopilotAction, type StandInCopilot } from '../helpers/copilot-standin.js';
import { cloneBranch, git, remoteCommits, workerRepo, type WorkerRepo } from '../helpers/worker-repo.js';
import { SPEC, specRepo, type WorkerPlan } from '../helpers/worker-spec.js';

/**
 * The worker action as a runner runs it with `agent: copilot`: the bundle as a Node process of
 * its own, GitHub's API a stateful fake on 127.0.0.1, `origin` a bare repository, and Copilot CLI
 * a stand-in on PATH that starts the harness MCP server from its --additional-mcp-config.
 */

const APP_TOKEN = 'ghs_AppInstallationToken0123456789abcdefXYZ';
const JOB_TOKEN = 'ghs_JobToken0123456789abcdefghijklmnopqrst';
const COPILOT_TOKEN = 'github_pat_CopilotRequestsOnly0123456789';
const CONFIG = { '.github/harness.yml': 'agents:\n  copilot:\n    price: { per_premium_request: 0.04 }\n' };

let bundle: string;
let server: { url: string; close: () => Promise<void> } | undefined;

beforeAll(async () => {
  bundle = await bundleWorker();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Setup {
  repo: WorkerRepo;
  github: FakeGitHub;
  runner: RunnerDirs;
  copilot: StandInCopilot;
  /** The worker's environment on a runner whose Copilot home is `home`. */
  env: (home: string) => Record<string, string>;
}

async function setup(p: WorkerPlan, calls: CopilotAction[][], config: Record<string, string> = CONFIG): Promise<Setup> {
  const repo = await workerRepo(specRepo([p], config), BRANCH);
  const github = dispatchedFake(repo.base);
  server = await github.serve();
  const home = mkdtempSync(join(tmpdir(), 'harness-home-'));
  const gitconfig = join(home, '.gitconfig');
  writeFileSync(gitconfig, '');
  const copilot = await standInCopilot(calls);
  const url = server.url;
  const env = (copilotHome: string) => ({
    PATH: copilot.env.PATH!,
    HOME: home,
    FAKE_COPILOT_SCENARIO: copilot.env.FAKE_COPILOT_SCENARIO!,
    FAKE_COPILOT_STATE: copilot.env.FAKE_COPILOT_STATE!,
    // The workflow gives the step the Copilot token, a secret of its own; the job's token comes as the action's input.
    COPILOT_GITHUB_TOKEN: COPILOT_TOKEN,
    COPILOT_HOME: copilotHome,
    GIT_CONFIG_GLOBAL: gitconfig,
    GIT_CONFIG_NOSYSTEM: '1',
    GITHUB_API_URL: url,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_RUN_ID: '42',
    HARNESS_GITHUB_THROTTLE: 'off',
  });
  return { repo, github, runner: runnerDirs(repo.checkout), copilot, env };
}

function runnerDirs(workspace: string): RunnerDirs {
  const root = mkdtempSync(join(tmpdir(), 'harness-runner-'));
  return { workspace, temp: join(root, 'temp'), claudeHome: join(root, 'claude-home') };
}

const inputs = (extra: Record<string, string> = {}) => ({
  spec: SPEC,
  plan: '01-01',
  resume: 'false',
  token: JOB_TOKEN,
  'app-token': APP_TOKEN,
  'app-slug': 'harness',
  agent: 'copilot',
  ...extra,
});

/** The agent held only the Copilot token: neither the job's nor the App's, in no variable. */
function onlyCopilotToken(call: { env: Record<string, string> }): void {
  const env = JSON.stringify(call.env);
  for (const secret of [APP_TOKEN, JOB_TOKEN]) expect(env).not.toContain(secret);
  expect(Object.keys(call.env).filter((k) => /TOKEN/.test(k) && !k.startsWith('HARNESS_REPORT'))).toEqual(['COPILOT_GITHUB_TOKEN']);
}

describe('the bundled worker action with the copilot agent', () => {
  it('runs a plain plan to a pull request, the cost counted at the configured price', async () => {
    const s = await setup(greetingPlan(), [
      [
        { report: { type: 'task_started', task: 1, total: 1, title: 'Write the greeting' } },
        { write: ['out/greeting.txt', 'hello\n'] },
        { report: { type: 'task_completed', message: 'Wrote the greeting.' } },
        { text: 'Wrote the greeting.' },
      ],
    ]);

    const run = await runAction(bundle, s.runner, inputs(), s.env(join(s.runner.temp, 'copilot-home')));
    if (process.env.DEBUG_WORKER) console.log(run.stdout, run.stderr);

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('verified');
    expect(s.github.pullRequests).toHaveLength(1);
    expect(remoteCommits(s.repo.remote, BRANCH, s.repo.base).map((c) => c.subject)).toEqual(['01-01: Greeting', `docs(${SPEC}): summary of 01-01`]);
    expect(git(s.repo.remote, 'show', `refs/heads/${BRANCH}:out/greeting.txt`)).toBe('hello');
    // One premium request at $0.04.
    expect(s.github.checkRuns.find((r) => r.id === APP_CHECK)!.output.summary).toContain('$0.04');
    const [call] = await s.copilot.calls();
    expect(call!.args).toContain('--allow-all-tools');
    onlyCopilotToken(call!);
  });

  it('stops at a decision, and a second runner resumes the same Copilot session, carried on the branch, with the answer', async () => {
    const s = await setup(greetingPlan(['autonomous: false']), [
      [
        { write: ['out/draft.txt', 'hello\n'] },
        { report: { type: 'decision_needed', checkpoint: 'tone', message: 'Formal or casual?', options: ['formal', 'casual'] } },
        { await: 'tone' },
        { write: ['out/never.txt', 'not reached\n'] },
      ],
      [{ recall: 'Formal or casual?' }, { bash: 'cat out/draft.txt > out/greeting.txt && echo formal >> out/greeting.txt && rm out/draft.txt' }],
    ]);

    const first = await runAction(bundle, s.runner, inputs(), s.env(join(s.runner.temp, 'copilot-home')));

    expect(first.stderr).toBe('');
    expect(first.outputs).toMatchObject({ result: 'checkpoint', checkpoint: 'tone' });
    const wip = git(s.repo.remote, 'rev-parse', `refs/heads/${BRANCH}`);
    const saved = JSON.parse(git(s.repo.remote, 'show', `${wip}:.harness/checkpoint/checkpoint.json`)) as {
      agent: string;
      session: { id: string; files: string[] };
    };
    expect(saved.agent).toBe('copilot');
    expect(saved.session.files).toEqual([`${saved.session.id}/events.jsonl`, `${saved.session.id}/workspace.yaml`]);
    expect(git(s.repo.remote, 'show', `${wip}:.harness/checkpoint/session/${saved.session.id}/events.jsonl`)).toContain('Formal or casual?');
    expect(s.github.checkRuns.find((r) => r.id === APP_CHECK)).toMatchObject({ status: 'completed', conclusion: 'action_required' });

    s.github.comments.push({
      id: 500,
      issue: 3,
      body: answerComment('01-01', 'tone', 'formal'),
      userType: 'Bot',
      login: 'harness[bot]',
      created_at: '2026-01-02T09:00:00Z',
    });
    // Another runner: another checkout, another (empty) Copilot home.
    const second = runnerDirs(cloneBranch(s.repo.remote, BRANCH, join(mkdtempSync(join(tmpdir(), 'harness-runner2-')), 'checkout')));
    const resumed = await runAction(bundle, second, inputs({ resume: 'true' }), s.env(join(second.temp, 'copilot-home')));

    expect(resumed.stderr).toBe('');
    expect(resumed.outputs.result).toBe('verified');
    const calls = await s.copilot.calls();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.args).toContain(`--resume=${saved.session.id}`);
    expect(calls[1]!.args[1]).toContain('A person answered checkpoint "tone" (decision).');
    onlyCopilotToken(calls[1]!);
    expect(git(s.repo.remote, 'show', `refs/heads/${BRANCH}:out/greeting.txt`)).toBe('hello\nformal');
    expect(() => git(s.repo.remote, 'show', `refs/heads/${BRANCH}:.harness/checkpoint/checkpoint.json`)).toThrow();
  });

  it("pauses at Copilot's weekly rate limit: neutral, the work kept, resume_at from the reset the CLI said", async () => {
    const s = await setup(greetingPlan(), [
      [
        { write: ['out/greeting.txt', 'half\n'] },
        {
          error: {
            errorType: 'rate_limit',
            message: "You've reached your weekly rate limit. Learn More (https://docs.github.com/copilot/concepts/rate-limits). (current limit resets in ~2h)",
            errorCode: 'user_weekly_rate_limited',
            statusCode: 429,
          },
        },
      ],
    ]);
    const before = Date.now();

    const run = await runAction(bundle, s.runner, inputs(), s.env(join(s.runner.temp, 'copilot-home')));

    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ result: 'checkpoint', checkpoint: 'usage-limit' });
    const check = s.github.checkRuns.find((r) => r.id === APP_CHECK)!;
    expect(check).toMatchObject({ status: 'completed', conclusion: 'neutral' });
    expect(check.output.title).toMatch(/^Paused: the model's usage limit resets \d{4}-\d{2}-\d{2}T/);
    const issue = s.github.issues.find((i) => i.labels.includes('status:checkpoint'))!;
    const resumeAt = /resume_at=(\S+) status=checkpoint runs=\S+:p:copilot:\S* -->$/.exec(issue.body!.split('\n')[0]!)![1]!;
    expect(new Date(resumeAt).getTime()).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
    const head = git(s.repo.remote, 'rev-parse', `refs/heads/${BRANCH}`);
    expect(git(s.repo.remote, 'show', `${head}:out/greeting.txt`)).toBe('half');
    expect(git(s.repo.remote, 'show', `${head}:.harness/checkpoint/checkpoint.json`)).toContain('"agent": "copilot"');
  });

  it("stops at the plan's budget, its cost counted at the configured price, and opens no pull request", async () => {
    const s = await setup(greetingPlan(['budget_usd: 0.05']), [[{ write: ['out/greeting.txt', 'hello\n'] }]], {
      '.github/harness.yml': 'agents:\n  copilot:\n    price: { per_premium_request: 0.5 }\n',
    });

    const run = await runAction(bundle, s.runner, inputs(), s.env(join(s.runner.temp, 'copilot-home')));

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    expect(s.github.checkRuns.find((r) => r.id === APP_CHECK)!.output.title).toBe(
      "Failed: the copilot agent failed: copilot spent $0.50, over the plan's budget of $0.05 (budget_usd): stopped",
    );
    expect(s.github.pullRequests).toEqual([]);
  });
});
