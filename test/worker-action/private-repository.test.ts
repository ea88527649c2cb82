import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerComment } from '../../app/engine/forge/checkpoint-markers.js';
import { bundleWorker, runAction, type RunnerDirs } from '../helpers/bundled-worker.js';
import { writeTree } from '../helpers/cli.js';
import { privateGitHost, type PrivateGitHost } from '../helpers/git-http-server.js';
import type { FakeGitHub } from '../helpers/github-repo.js';
import { BRANCH, dispatchedFake, greetingPlan, OWNER, REPO } from '../helpers/worker-fake.js';
import { standInClaude, type ClaudeAction } from '../helpers/mcp-claude.js';
import { git, remoteCommits } from '../helpers/worker-repo.js';
import { SPEC, specRepo, type WorkerPlan } from '../helpers/worker-spec.js';

/**
 * The worker on a private repository, as most teams' are: `origin` is an HTTP Git host on
 * 127.0.0.1 that answers 401 to any request without the job's token, the checkout is what
 * actions/checkout leaves with `persist-credentials: false` (shallow, no credentials), and
 * $GITHUB_SERVER_URL names that host. Every git process of the worker that talks to the remote
 * (fetch, ls-remote, push) must carry the token; the agent must never see it.
 */

const APP_TOKEN = 'ghs_AppInstallationToken0123456789abcdefXYZ';
const JOB_TOKEN = 'ghs_JobToken0123456789abcdefghijklmnopqrst';
const SEED = ['-c', 'user.name=Seed', '-c', 'user.email=seed@example.com'];

const plan = (extra: string[] = []): WorkerPlan => greetingPlan(extra);

let bundle: string;
const open: { close: () => Promise<void> }[] = [];
const made: string[] = [];

beforeAll(async () => {
  bundle = await bundleWorker();
});
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Git that talks to the host, which this process serves: never a synchronous call, which would stop it answering. */
async function gitAsync(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('git', args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
  return stdout.trim();
}

/** What actions/checkout leaves: a depth-1 clone of the branch, fetched with the token, which is then not kept. */
async function checkoutOf(host: PrivateGitHost, token: string, into: string): Promise<string> {
  const header = `http.${host.url}/.extraheader=AUTHORIZATION: basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
  await gitAsync(tmpdir(), '-c', header, 'clone', '--quiet', '--depth', '1', '--branch', BRANCH, host.repoUrl(OWNER, REPO), into);
  return into;
}

interface Setup {
  host: PrivateGitHost;
  remote: string;
  base: string;
  github: FakeGitHub;
  runner: RunnerDirs;
  env: Record<string, string>;
  claude: Awaited<ReturnType<typeof standInClaude>>;
}

async function setup(p: WorkerPlan, calls: ClaudeAction[][]): Promise<Setup> {
  const root = temp('harness-private-');
  const remote = join(root, 'repos', OWNER, `${REPO}.git`);
  mkdirSync(join(root, 'repos', OWNER), { recursive: true });
  git(root, 'init', '--quiet', '--bare', '--initial-branch=main', remote);
  const seed = join(root, 'seed');
  git(root, 'init', '--quiet', '--initial-branch=main', seed);
  await writeTree(seed, { 'README.md': '# demo\n', ...specRepo([p]) });
  git(seed, 'add', '-A');
  git(seed, ...SEED, 'commit', '--quiet', '-m', 'initial');
  // A second commit, so that the depth-1 checkout is shallow and planBase has to deepen it.
  writeFileSync(join(seed, 'NOTES.md'), 'notes\n');
  git(seed, 'add', '-A');
  git(seed, ...SEED, 'commit', '--quiet', '-m', 'notes');
  git(seed, 'push', '--quiet', remote, 'main', `main:refs/heads/${BRANCH}`);
  const base = git(seed, 'rev-parse', 'HEAD');

  const host = await privateGitHost(join(root, 'repos'), APP_TOKEN);
  open.push(host);
  const github = dispatchedFake(base);
  const api = await github.serve();
  open.push(api);
  const home = temp('harness-home-');
  writeFileSync(join(home, '.gitconfig'), '');
  const claude = await standInClaude(calls);
  made.push(claude.bin);
  const env = {
    PATH: claude.env.PATH!,
    HOME: home,
    FAKE_CLAUDE_SCENARIO: claude.env.FAKE_CLAUDE_SCENARIO!,
    FAKE_CLAUDE_STATE: claude.env.FAKE_CLAUDE_STATE!,
    GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GITHUB_API_URL: api.url,
    GITHUB_SERVER_URL: host.url,
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_RUN_ID: '42',
  };
  return { host, remote, base, github, runner: runnerDirs(await checkoutOf(host, APP_TOKEN, join(temp('harness-runner-'), 'checkout'))), env, claude };
}

function runnerDirs(workspace: string): RunnerDirs {
  const root = temp('harness-runner-dirs-');
  return { workspace, temp: join(root, 'temp'), claudeHome: join(root, 'claude-home') };
}

const inputs = (extra: Record<string, string> = {}) => ({
  spec: SPEC,
  plan: '01-01',
  resume: 'false',
  token: JOB_TOKEN,
  agent: 'claude',
  'app-token': APP_TOKEN,
  'app-slug': 'harness',
  ...extra,
});

function agentHeldNoToken(call: { env: Record<string, string>; gitConfig: string }): void {
  const env = JSON.stringify(call.env);
  for (const secret of [APP_TOKEN, JOB_TOKEN, Buffer.from(`x-access-token:${APP_TOKEN}`).toString('base64')]) {
    expect(env).not.toContain(secret);
    expect(call.gitConfig).not.toContain(secret);
  }
  expect(call.gitConfig).not.toMatch(/extraheader/i);
}

describe('the worker on a private repository (every git request needs the token)', () => {
  it('deepens the shallow checkout, pushes, confirms the push and opens the PR, each with the token; the agent holds none', async () => {
    const s = await setup(plan(), [[{ write: ['out/greeting.txt', 'hello\n'] }, { result: { result: 'Wrote the greeting.' } }]]);
    // The checkout, as actions/checkout leaves it, cannot reach the remote by itself.
    await expect(gitAsync(s.runner.workspace, 'ls-remote', 'origin')).rejects.toThrow(/could not read Username|Authentication failed|401/);
    const before = s.host.requests.length;

    const run = await runAction(bundle, s.runner, inputs(), s.env);

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.outputs.result).toBe('verified');
    const worker = s.host.requests.slice(before + 1);
    expect(worker.length).toBeGreaterThan(0);
    expect(worker.filter((r) => !r.authorised)).toEqual([]);
    // fetch (the base, unshallowed), push, then ls-remote to confirm it: upload-pack and receive-pack both.
    expect(new Set(worker.map((r) => r.service))).toEqual(new Set(['git-upload-pack', 'git-receive-pack']));
    expect(remoteCommits(s.remote, BRANCH, s.base).map((c) => c.subject)).toEqual(['01-01: Greeting', `docs(${SPEC}): summary of 01-01`]);
    expect(s.github.pullRequests[0]).toMatchObject({ head: BRANCH, base: 'main' });
    const [call] = await s.claude.calls();
    agentHeldNoToken(call!);
    // Nothing of the token was left in the checkout's config for a later step either.
    expect(git(s.runner.workspace, 'config', '--list', '--local')).not.toMatch(/extraheader|ghs_/);
  });

  it('stops at a checkpoint and resumes on a fresh runner from the wip commit, both runs through the token', async () => {
    const s = await setup(plan(['autonomous: false']), [
      [
        { write: ['out/draft.txt', 'hello\n'] },
        { report: { type: 'decision_needed', checkpoint: 'tone', message: 'Formal or casual?', options: ['formal', 'casual'] } },
        { await: 'tone' },
      ],
      [{ recall: 'Formal or casual?' }, { bash: 'cat out/draft.txt > out/greeting.txt && echo formal >> out/greeting.txt && rm out/draft.txt' }],
    ]);

    const first = await runAction(bundle, s.runner, inputs(), s.env);

    expect(first.stderr).toBe('');
    expect(first.outputs).toMatchObject({ result: 'checkpoint', checkpoint: 'tone' });
    expect(git(s.remote, 'log', '-1', '--format=%s', `refs/heads/${BRANCH}`)).toBe('wip(01-01): waiting at checkpoint tone');

    s.github.comments.push({
      id: 500,
      issue: 3,
      body: answerComment('01-01', 'tone', 'formal'),
      userType: 'Bot',
      login: 'harness[bot]',
      created_at: '2026-01-02T09:00:00Z',
    });
    const second = runnerDirs(await checkoutOf(s.host, APP_TOKEN, join(temp('harness-runner2-'), 'checkout')));
    const before = s.host.requests.length;
    const resumed = await runAction(bundle, second, inputs({ resume: 'true' }), s.env);

    expect(resumed.stderr).toBe('');
    expect(resumed.outputs.result).toBe('verified');
    expect(s.host.requests.slice(before).filter((r) => !r.authorised)).toEqual([]);
    expect(remoteCommits(s.remote, BRANCH, s.base).map((c) => c.subject)).toEqual(['01-01: Greeting', `docs(${SPEC}): summary of 01-01`]);
    expect(git(s.remote, 'show', `refs/heads/${BRANCH}:out/greeting.txt`)).toBe('hello\nformal');
    for (const call of await s.claude.calls()) agentHeldNoToken(call);
  });
});
