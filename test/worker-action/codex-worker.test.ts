import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerComment } from '../../app/engine/forge/checkpoint-markers.js';
import { bundleWorker, runAction, type RunnerDirs } from '../helpers/bundled-worker.js';
import { standInCodex, type CodexAction, type CodexCall } from '../helpers/codex-standin.js';
import { standInGemini } from '../helpers/gemini-standin.js';
import type { FakeGitHub } from '../helpers/github-repo.js';
import { APP_CHECK, BRANCH, dispatchedFake, greetingPlan, jobEnv } from '../helpers/worker-fake.js';
import { cloneBranch, git, remoteCommits, workerRepo, type WorkerRepo } from '../helpers/worker-repo.js';
import { planFile, planPath, SPEC, SPEC_PATH, specRepo, type WorkerPlan } from '../helpers/worker-spec.js';

/**
 * The worker action as a runner runs it, with `agent: codex`: the bundle as a Node process of
 * its own, GitHub's API the stateful fake on 127.0.0.1, `origin` a bare repository, and the Codex
 * CLI a stand-in on PATH that takes codex exec's options, starts the harness MCP server from its
 * -c mcp_servers.harness and calls the tools as a client, and keeps its threads under CODEX_HOME.
 */

const APP_TOKEN = 'ghs_AppInstallationToken0123456789abcdefXYZ';
const JOB_TOKEN = 'ghs_JobToken0123456789abcdefghijklmnopqrst';

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
  codex: Awaited<ReturnType<typeof standInCodex>>;
}

async function setup(p: WorkerPlan, calls: CodexAction[][], other: Record<string, string> = {}): Promise<Setup> {
  const repo = await workerRepo(specRepo([p], other), BRANCH);
  const github = dispatchedFake(repo.base);
  server = await github.serve();
  const home = mkdtempSync(join(tmpdir(), 'harness-home-'));
  const gitconfig = join(home, '.gitconfig');
  writeFileSync(gitconfig, '');
  const codex = await standInCodex(calls);
  const env = {
    ...codex.env,
    ...jobEnv(home, server.url),
    TZ: 'UTC',
  };
  return { repo, github, runner: runnerDirs(repo.checkout), env, codex };
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
  agent: 'codex',
  'app-token': APP_TOKEN,
  'app-slug': 'harness',
  ...extra,
});

/** No GitHub token reaches the agent: not in its environment, its arguments or git's config. */
function noTokenIn(call: CodexCall): void {
  const seen = JSON.stringify(call.env) + JSON.stringify(call.args) + call.gitConfig;
  for (const secret of [APP_TOKEN, JOB_TOKEN, Buffer.from(`x-access-token:${APP_TOKEN}`).toString('base64')]) expect(seen).not.toContain(secret);
  expect(Object.keys(call.env).filter((k) => /TOKEN/.test(k))).toEqual([]);
  expect(call.gitConfig).not.toMatch(/extraheader/i);
}

describe('the bundled worker action with the codex agent', () => {
  it('works a plain plan to its PR: reports on the live check run, the work committed, the tokens on the record, unsandboxed on the runner', async () => {
    const s = await setup(greetingPlan(), [
      [
        { report: { type: 'task_started', task: 1, total: 1, title: 'Write the greeting' } },
        // On until the live check run shows the task: written at most every 3 s, so at the interval's end.
        { waitFor: 'task-shown' },
        { write: ['out/greeting.txt', 'hello\n'] },
        { report: { type: 'progress_update', message: 'greeting written', task: 1, total: 1 } },
        { final: 'Wrote the greeting.' },
      ],
    ]);
    void s.github
      .whenRequested((r) => r.method === 'PATCH' && JSON.stringify(r.body).includes('Task 1 of 1: Write the greeting'))
      .then(() => writeFileSync(join(s.codex.bin, 'task-shown'), ''));

    const run = await runAction(bundle, s.runner, inputs(), s.env);
    if (process.env.DEBUG_WORKER) console.log(run.stdout, run.stderr);

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('verified');
    const app = s.github.checkRuns.find((r) => r.id === APP_CHECK)!;
    expect(app).toMatchObject({ status: 'completed', conclusion: 'success', output: { title: 'Verified' } });
    const titles = s.github.requests
      .filter((r) => r.url.endsWith(`/check-runs/${APP_CHECK}`))
      .map((r) => (r.body as { output?: { title?: string } }).output?.title);
    expect(titles).toContain('Task 1 of 1: Write the greeting');
    expect(remoteCommits(s.repo.remote, BRANCH, s.repo.base).map((c) => c.subject)).toEqual(['01-01: Greeting', `docs(${SPEC}): summary of 01-01`]);
    expect(s.github.pullRequests[0]).toMatchObject({ head: BRANCH, base: 'main', title: '[01-01] Greeting' });
    expect(s.github.pullRequests[0]!.body).toContain('Wrote the greeting.');

    const [call] = await s.codex.calls();
    expect(call!.args).toContain('sandbox_mode="danger-full-access"');
    expect(Object.keys(call!.config.mcp_servers)).toEqual(['harness']);
    noTokenIn(call!);
  });

  it('stops at a decision; a second runner, with a CODEX_HOME of its own, resumes the same thread from the rollout carried on the branch', async () => {
    const s = await setup(greetingPlan(['autonomous: false']), [
      [
        { write: ['out/draft.txt', 'hello\n'] },
        { report: { type: 'decision_needed', checkpoint: 'tone', message: 'Formal or casual?', options: ['formal', 'casual'] } },
        { await: 'tone' },
        { write: ['out/never.txt', 'not reached\n'] },
      ],
      [{ recall: 'Formal or casual?' }, { bash: 'cat out/draft.txt > out/greeting.txt && echo formal >> out/greeting.txt && rm out/draft.txt' }],
    ]);

    const first = await runAction(bundle, s.runner, inputs(), s.env);

    expect(first.stderr).toBe('');
    expect(first.outputs).toMatchObject({ result: 'checkpoint', checkpoint: 'tone' });
    const wip = git(s.repo.remote, 'rev-parse', `refs/heads/${BRANCH}`);
    const saved = JSON.parse(git(s.repo.remote, 'show', `${wip}:.harness/checkpoint/checkpoint.json`)) as {
      agent: string;
      session: { id: string; files: string[] };
    };
    expect(saved.agent).toBe('codex');
    expect(saved.session.files).toEqual([expect.stringMatching(new RegExp(`^\\d{4}/\\d{2}/\\d{2}/rollout-[0-9T-]+-${saved.session.id}\\.jsonl$`))]);
    expect(git(s.repo.remote, 'show', `${wip}:.harness/checkpoint/session/${saved.session.files[0]}`)).toContain('Formal or casual?');
    expect(s.github.checkRuns.find((r) => r.id === APP_CHECK)).toMatchObject({
      status: 'completed',
      conclusion: 'action_required',
      output: { title: 'Waiting: Formal or casual?' },
    });

    s.github.comments.push({
      id: 500,
      issue: 3,
      body: answerComment('01-01', 'tone', 'formal'),
      userType: 'Bot',
      login: 'harness[bot]',
      created_at: '2026-01-02T09:00:00Z',
    });
    const second = runnerDirs(cloneBranch(s.repo.remote, BRANCH, join(mkdtempSync(join(tmpdir(), 'harness-runner2-')), 'checkout')));
    const freshHome = join(second.temp, '..', 'codex-home');
    const resumed = await runAction(bundle, second, inputs({ resume: 'true' }), { ...s.env, CODEX_HOME: freshHome });

    expect(resumed.stderr).toBe('');
    expect(resumed.outputs.result).toBe('verified');
    const calls = await s.codex.calls();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.cwd).toBe(second.workspace);
    expect(calls[1]!.env.CODEX_HOME).toBe(freshHome);
    expect(calls[1]!.args.slice(0, 2)).toEqual(['exec', 'resume']);
    expect(calls[1]!.args.slice(-2)).toEqual([saved.session.id, '-']);
    expect(calls[1]!.prompt).toContain('```text\nformal\n```');
    noTokenIn(calls[1]!);
    expect(readFileSync(join(freshHome, 'sessions', saved.session.files[0]!), 'utf8')).toContain('Formal or casual?');
    expect(remoteCommits(s.repo.remote, BRANCH, s.repo.base).map((c) => c.subject)).toEqual(['01-01: Greeting', `docs(${SPEC}): summary of 01-01`]);
    expect(git(s.repo.remote, 'show', `refs/heads/${BRANCH}:out/greeting.txt`)).toBe('hello\nformal');
  });

  it("pauses at the model's usage limit: neutral, the work and the thread kept, resume_at the reset the CLI named in its zone", async () => {
    // Two days on, so that the CLI words it with its date: "try again at <Mon> <D>th, <YYYY> <h:mm> <AM|PM>".
    const resetsAt = Math.floor(Date.now() / 60_000) * 60 + 2 * 86_400;
    const s = await setup(greetingPlan(), [[{ write: ['out/greeting.txt', 'half\n'] }, { limit: { plan: 'plus', resets_at: resetsAt } }]]);

    const run = await runAction(bundle, s.runner, inputs(), s.env);

    expect(run.code).toBe(0);
    expect(run.outputs).toMatchObject({ result: 'checkpoint', checkpoint: 'usage-limit' });
    const iso = new Date(resetsAt * 1000).toISOString();
    const check = s.github.checkRuns.find((r) => r.id === APP_CHECK)!;
    expect(check).toMatchObject({ status: 'completed', conclusion: 'neutral', output: { title: `Paused: the model's usage limit resets ${iso}` } });
    expect(check.output.summary).toMatch(
      /The agent stopped at the model's rate or usage limit \(You’ve hit your usage limit\. Upgrade to Pro .* try again at [A-Z][a-z]{2} \d{1,2}(st|nd|rd|th), \d{4} \d{1,2}:\d{2} [AP]M\.\)\./,
    );
    const issue = s.github.issues.find((i) => i.labels.includes('status:checkpoint'))!;
    expect(issue.body!.split('\n')[0]).toMatch(new RegExp(` resume_at=${iso.replace(/\./g, '\\.')} status=checkpoint runs=\\S+:p:codex:\\S* -->$`));
    const head = git(s.repo.remote, 'rev-parse', `refs/heads/${BRANCH}`);
    expect(git(s.repo.remote, 'show', `${head}:out/greeting.txt`)).toBe('half');
    expect(git(s.repo.remote, 'show', `${head}:.harness/checkpoint/checkpoint.json`)).toContain('"agent": "codex"');
  });

  it("at the usage limit with the plan's fallback, gemini takes the plan over on the same runner and delivers it; the check run, SUMMARY.md and the job notes name both engines", async () => {
    const resetsAt = Math.floor(Date.now() / 60_000) * 60 + 2 * 86_400;
    const plan = greetingPlan(['fallback: [gemini]']);
    const own = { [planPath('01-01')]: planFile(plan).replace('agent: script', 'agent: codex') };
    const s = await setup(plan, [[{ write: ['out/greeting.txt', 'hello\n'] }, { limit: { plan: 'plus', resets_at: resetsAt } }]], own);
    const gemini = await standInGemini(
      [
        [
          { recall: 'Other engines worked on this plan before you' },
          { bash: 'git add -A && git commit -qm "01-01: the greeting, kept"' },
          { text: 'Committed the greeting codex wrote.' },
        ],
      ],
      s.env.HOME,
    );
    const env = { ...s.env, ...gemini.env, HOME: s.env.HOME, PATH: `${s.codex.bin}:${gemini.bin}:${process.env.PATH}` };

    const run = await runAction(bundle, s.runner, inputs({ agent: '' }), env);
    if (process.env.DEBUG_WORKER) console.log(run.stdout, run.stderr);

    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('verified');
    const check = s.github.checkRuns.find((r) => r.id === APP_CHECK)!;
    expect(check).toMatchObject({ conclusion: 'success' });
    expect(check.output.summary).toContain('- Engines: codex (stopped at its usage limit), then gemini');
    // The job's step summary: the plan's spend, and who worked on it.
    expect(run.summary).toMatch(/spend: gemini(, attempt \d+)?: 3 turns, 1200 tokens in, 30 out/);
    expect(run.summary).toContain('Engines: codex (stopped at its usage limit), then gemini');
    expect(remoteCommits(s.repo.remote, BRANCH, s.repo.base).map((c) => c.subject)).toEqual([
      '01-01: the greeting, kept',
      '01-01: Greeting',
      `docs(${SPEC}): summary of 01-01`,
    ]);
    const summary = git(s.repo.remote, 'show', `refs/heads/${BRANCH}:${SPEC_PATH}/execution/phases/01-core/01-01-SUMMARY.md`);
    expect(summary).toMatch(/^agent: gemini$/m);
    expect(summary).toMatch(/\n- codex \(1 turns\): codex stopped at the model's usage limit/);
    expect((await gemini.calls())[0]!.args[1]).toContain('## Taking over');
  });

  it("stops at the plan's budget: the tokens priced by agents.codex.price, the reason on the check run, no PR", async () => {
    const config = 'agents:\n  codex:\n    price: { input_per_million: 10, cached_input_per_million: 1, output_per_million: 40 }\n';
    const s = await setup(greetingPlan(['budget_usd: 0.03']), [[{ write: ['out/greeting.txt', 'hello\n'] }]], { '.github/harness.yml': config });

    const run = await runAction(bundle, s.runner, inputs(), s.env);

    expect(run.code).toBe(1);
    expect(run.outputs.result).toBe('failed');
    const app = s.github.checkRuns.find((r) => r.id === APP_CHECK)!;
    // Three requests: 3000 uncached input × $10, 600 cached × $1, 150 output × $40 a million: $0.0366.
    expect(app).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      output: { title: "Failed: the codex agent failed: codex spent $0.04, over the plan's budget of $0.03 (budget_usd): stopped" },
    });
    expect(app.output.summary).toContain('$0.04');
    expect(s.github.pullRequests).toEqual([]);
  });
});
