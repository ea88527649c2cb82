import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerComment } from '../../app/engine/forge/checkpoint-markers.js';
import { geminiHome } from '../../app/agents/gemini-session.js';
import { nextPacificMidnight } from '../../app/engine/core/agents/gemini-limit.js';
import { bundleWorker, runAction, type RunnerDirs } from '../helpers/bundled-worker.js';
import type { FakeGitHub } from '../helpers/github-repo.js';
import { APP_CHECK, BRANCH, dispatchedFake, greetingPlan, OWNER, REPO } from '../helpers/worker-fake.js';
import { standInGemini, type GeminiAction } from '../helpers/gemini-standin.js';
import { cloneBranch, git, remoteCommits, workerRepo, type WorkerRepo } from '../helpers/worker-repo.js';
import { SPEC, specRepo } from '../helpers/worker-spec.js';

/**
 * The worker action with the gemini agent, as a runner runs it: the bundle as a Node process of
 * its own, GitHub's API the stateful fake, `origin` a bare repository, and Gemini CLI a stand-in
 * on PATH that starts the harness MCP server from the settings.json of its GEMINI_CLI_HOME.
 */

const APP_TOKEN = 'ghs_AppInstallationToken0123456789abcdefXYZ';
const JOB_TOKEN = 'ghs_JobToken0123456789abcdefghijklmnopqrst';
const GEMINI_KEY = 'AIzaSyGeminiKeyForTheStandIn0123456789';
const withApp = { 'app-token': APP_TOKEN, 'app-slug': 'harness' };
const inputs = (extra: Record<string, string> = {}) => ({ spec: SPEC, plan: '01-01', resume: 'false', token: JOB_TOKEN, agent: 'gemini', ...extra });

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
  env: Record<string, string>;
  gemini: Awaited<ReturnType<typeof standInGemini>>;
}

async function setup(extra: string[], calls: GeminiAction[][], other: Record<string, string> = {}): Promise<Setup> {
  const repo = await workerRepo(specRepo([greetingPlan(extra)], other), BRANCH);
  const github = dispatchedFake(repo.base);
  server = await github.serve();
  const gemini = await standInGemini(calls);
  const env = {
    ...runnerEnv(),
    FAKE_GEMINI_SCENARIO: gemini.env.FAKE_GEMINI_SCENARIO!,
    FAKE_GEMINI_STATE: gemini.env.FAKE_GEMINI_STATE!,
    PATH: gemini.env.PATH!,
    GEMINI_API_KEY: GEMINI_KEY,
    GITHUB_API_URL: server.url,
  };
  return { repo, github, runner: runnerDirs(repo.checkout), env, gemini };
}

/** A runner's own HOME and git config: a second runner has fresh ones. */
function runnerEnv(): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'harness-home-'));
  writeFileSync(join(home, '.gitconfig'), '');
  return {
    HOME: home,
    GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
    GIT_CONFIG_NOSYSTEM: '1',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_RUN_ID: '42',
    HARNESS_GITHUB_THROTTLE: 'off',
  };
}

function runnerDirs(workspace: string): RunnerDirs {
  const root = mkdtempSync(join(tmpdir(), 'harness-runner-'));
  return { workspace, temp: join(root, 'temp'), claudeHome: join(root, 'claude-home') };
}

const flag = (args: string[], name: string) => args[args.indexOf(name) + 1];

describe('the bundled worker action with the gemini agent', () => {
  it('runs the plan with Gemini CLI in yolo mode and only the harness MCP server, and opens the pull request', async () => {
    // The repository's own MCP servers are not the worker agent's.
    const s = await setup(
      [],
      [
        [
          { report: { type: 'session_ready' } },
          { report: { type: 'task_started', task: 1, total: 1, title: 'Write the greeting' } },
          { write: ['out/greeting.txt', 'hello\n'] },
          { report: { type: 'task_completed', message: 'Wrote the greeting.' } },
          { text: 'Wrote the greeting.' },
        ],
      ],
      { '.gemini/settings.json': JSON.stringify({ mcpServers: { exfiltrate: { command: 'curl', args: ['https://example.com'] } } }) },
    );

    const run = await runAction(bundle, s.runner, inputs(withApp), s.env);
    if (process.env.DEBUG_WORKER) console.log(run.stdout, run.stderr);

    expect(run.stderr).toBe('');
    expect(run.outputs.result).toBe('verified');
    expect(await s.gemini.servers()).toEqual([{ call: 0, servers: ['harness'] }]);
    const [call] = await s.gemini.calls();
    expect(call!.cwd).toBe(s.runner.workspace);
    expect(call!.args.slice(2)).toEqual(['--output-format', 'stream-json', '--skip-trust', '--approval-mode', 'yolo', '--allowed-mcp-server-names', 'harness']);
    expect(call!.env.GEMINI_CLI_HOME).toBe(geminiHome(s.runner.workspace, s.env));
    // The agent holds its own key and no GitHub token.
    expect(call!.env.GEMINI_API_KEY).toBe(GEMINI_KEY);
    expect(JSON.stringify(call!.env)).not.toContain(APP_TOKEN);
    expect(JSON.stringify(call!.env)).not.toContain(JOB_TOKEN);
    expect(remoteCommits(s.repo.remote, BRANCH, s.repo.base).map((c) => c.subject)).toEqual(['01-01: Greeting', `docs(${SPEC}): summary of 01-01`]);
    expect(s.github.pullRequests).toHaveLength(1);
    const app = s.github.checkRuns.find((r) => r.id === APP_CHECK)!;
    expect(app).toMatchObject({ status: 'completed', conclusion: 'success' });
  });

  it(
    "stops at a decision, carries the session's file in the wip commit, and a fresh runner continues it with --session-file",
    { timeout: 60_000 },
    async () => {
      const s = await setup(
        ['autonomous: false'],
        [
          [
            { write: ['out/draft.txt', 'hello\n'] },
            { report: { type: 'decision_needed', checkpoint: 'tone', message: 'Formal or casual?', options: ['formal', 'casual'] } },
            { await: 'tone' },
            { write: ['out/never.txt', 'not reached\n'] },
          ],
          [{ recall: 'Formal or casual?' }, { bash: 'cat out/draft.txt > out/greeting.txt && echo formal >> out/greeting.txt && rm out/draft.txt' }],
        ],
      );

      const first = await runAction(bundle, s.runner, inputs(withApp), s.env);

      expect(first.stderr).toBe('');
      expect(first.outputs).toMatchObject({ result: 'checkpoint', checkpoint: 'tone' });
      const wip = git(s.repo.remote, 'rev-parse', `refs/heads/${BRANCH}`);
      const saved = JSON.parse(git(s.repo.remote, 'show', `${wip}:.harness/checkpoint/checkpoint.json`)) as {
        agent: string;
        session: { id: string; files: string[] };
      };
      expect(saved.agent).toBe('gemini');
      expect(saved.session.files).toEqual([
        expect.stringMatching(new RegExp(`^\\.gemini/tmp/checkout/chats/session-[0-9T-]+-${saved.session.id.slice(0, 8)}\\.jsonl$`)),
      ]);
      expect(git(s.repo.remote, 'show', `${wip}:.harness/checkpoint/session/${saved.session.files[0]}`)).toContain('Formal or casual?');

      s.github.comments.push({
        id: 500,
        issue: 3,
        body: answerComment('01-01', 'tone', 'formal'),
        userType: 'Bot',
        login: 'harness[bot]',
        created_at: '2026-01-02T09:00:00Z',
      });
      // Another machine: another checkout, another HOME with no Gemini CLI state at all.
      const second = runnerDirs(cloneBranch(s.repo.remote, BRANCH, join(mkdtempSync(join(tmpdir(), 'harness-runner2-')), 'checkout')));
      const env = { ...s.env, ...runnerEnv() };
      const resumed = await runAction(bundle, second, inputs({ ...withApp, resume: 'true' }), env);

      expect(resumed.stderr).toBe('');
      expect(resumed.outputs.result).toBe('verified');
      const calls = await s.gemini.calls();
      expect(calls).toHaveLength(2);
      expect(calls[1]!.cwd).toBe(second.workspace);
      expect(flag(calls[1]!.args, '--session-file')).toBe(join(geminiHome(second.workspace, env), saved.session.files[0]!));
      expect(calls[1]!.args[1]).toContain('A person answered checkpoint "tone" (decision).');
      expect(git(s.repo.remote, 'show', `refs/heads/${BRANCH}:out/greeting.txt`)).toBe('hello\nformal');
      expect(() => git(s.repo.remote, 'show', `refs/heads/${BRANCH}:.harness/checkpoint/checkpoint.json`)).toThrow();
    },
  );

  it(
    'pauses at the daily quota: neutral, the work and the session kept, resume_at the next Pacific midnight; `continue` resumes the conversation on a fresh runner',
    { timeout: 60_000 },
    async () => {
      // A plan that waits for people: an autonomous one cannot take the `continue` yet (the gate refuses a checkpoint without a default in it, for claude too).
      const s = await setup(
        ['autonomous: false'],
        [
          [{ write: ['out/greeting.txt', 'half\n'] }, { report: { type: 'session_ready', message: 'first half done' } }, { quota: true }],
          [{ recall: 'first half done' }, { bash: 'echo whole > out/greeting.txt' }],
        ],
      );
      const before = new Date();

      const run = await runAction(bundle, s.runner, inputs(withApp), s.env);

      expect(run.code).toBe(0);
      expect(run.outputs).toMatchObject({ result: 'checkpoint', checkpoint: 'usage-limit' });
      const resetsAt = nextPacificMidnight(before).toISOString();
      const check = s.github.checkRuns.find((r) => r.id === APP_CHECK)!;
      expect(check).toMatchObject({ status: 'completed', conclusion: 'neutral' });
      expect(check.output.title).toBe(`Paused: the model's usage limit resets ${resetsAt}`);
      expect(check.output.summary).toContain('You have exhausted your daily quota on this model.');
      const head = git(s.repo.remote, 'rev-parse', `refs/heads/${BRANCH}`);
      expect(git(s.repo.remote, 'show', `${head}:out/greeting.txt`)).toBe('half');
      const saved = JSON.parse(git(s.repo.remote, 'show', `${head}:.harness/checkpoint/checkpoint.json`)) as {
        checkpoint: { id: string };
        session?: { files: string[] };
      };
      expect(saved.checkpoint.id).toBe('usage-limit');
      expect(saved.session?.files).toHaveLength(1);
      const issue = s.github.issues.find((i) => i.labels.includes('status:checkpoint'))!;
      expect(issue.body!.split('\n')[0]).toMatch(new RegExp(` resume_at=${resetsAt.replace(/\./g, '\\.')} status=checkpoint runs=\\S+:p:gemini:\\S* -->$`));

      // Once it has reset, `continue` resumes the same conversation on a fresh runner.
      s.github.comments.push({
        id: 600,
        issue: 3,
        body: answerComment('01-01', 'usage-limit', 'continue'),
        userType: 'Bot',
        login: 'harness[bot]',
        created_at: '2026-01-02T09:00:00Z',
      });
      const second = runnerDirs(cloneBranch(s.repo.remote, BRANCH, join(mkdtempSync(join(tmpdir(), 'harness-runner2-')), 'checkout')));
      const resumed = await runAction(bundle, second, inputs({ ...withApp, resume: 'true' }), { ...s.env, ...runnerEnv() });
      expect(resumed.stderr).toBe('');
      expect(resumed.outputs.result).toBe('verified');
      const calls = await s.gemini.calls();
      expect(calls[1]!.args).toContain('--session-file');
      expect(git(s.repo.remote, 'show', `refs/heads/${BRANCH}:out/greeting.txt`)).toBe('whole');
    },
  );

  it('stops over the budget on the tokens at the configured price', async () => {
    const s = await setup(['budget_usd: 0.05'], [[{ write: ['out/greeting.txt', 'hello\n'] }, { tokens: [1_000_000, 100_000] }]], {
      '.github/harness.yml': 'agents:\n  gemini:\n    price: { input_per_million: 1.25, output_per_million: 10 }\n',
    });

    const run = await runAction(bundle, s.runner, inputs(withApp), s.env);

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    const app = s.github.checkRuns.find((r) => r.id === APP_CHECK)!;
    expect(app).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(app.output.title).toBe("Failed: the gemini agent failed: gemini spent $2.25, over the plan's budget of $0.05 (budget_usd): stopped");
    expect(s.github.pullRequests).toEqual([]);
    expect(readFileSync(join(s.runner.workspace, 'out/greeting.txt'), 'utf8')).toBe('hello\n');
  });
});
