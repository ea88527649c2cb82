import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker, runAction } from '../helpers/bundled-worker.js';
import { standInClaude } from '../helpers/mcp-claude.js';
import { helloServer, sandboxUnavailable } from '../helpers/sandbox.js';
import { APP_CHECK, BRANCH, dispatchedFake, greetingPlan, OWNER, REPO } from '../helpers/worker-fake.js';
import { git, workerRepo } from '../helpers/worker-repo.js';
import { SPEC, specRepo } from '../helpers/worker-spec.js';

/**
 * The worker bundle on a runner whose repository has `network:` in .github/harness.yml: the
 * agent runs behind the sandbox's allowlist, reports through its MCP server from inside, cannot
 * read the runner's credentials or other steps' files, and what was refused is on the check run,
 * in the PR body and in the plan's SUMMARY.md, with the line that allows it.
 */

const why = await sandboxUnavailable();

describe.skipIf(why !== undefined)(`the bundled worker behind network: in .github/harness.yml${why ? ` (skipped: ${why})` : ''}`, () => {
  let bundle: string;
  let allowed: Server;
  let blocked: Server;
  beforeAll(async () => {
    bundle = await bundleWorker();
    [allowed, blocked] = await Promise.all([helloServer('allowed'), helloServer('blocked')]);
  });
  afterAll(() => {
    allowed.close();
    blocked.close();
  });

  it('runs the agent behind the allowlist and says on the check run and the PR what it refused', async () => {
    const pa = (allowed.address() as AddressInfo).port;
    const pb = (blocked.address() as AddressInfo).port;
    const config = `network:\n  allowed: ["api.allowed.test", "127.0.0.1:${pa}"]\n`;
    const repo = await workerRepo(specRepo([greetingPlan()], { '.github/harness.yml': config }), BRANCH);
    const github = dispatchedFake(repo.base);
    const server = await github.serve();
    const root = mkdtempSync(join(tmpdir(), 'harness-runner-'));
    const runner = { workspace: repo.checkout, temp: join(root, 'temp'), claudeHome: join(root, 'claude-home') };
    const home = mkdtempSync(join(tmpdir(), 'harness-home-'));
    writeFileSync(join(home, '.gitconfig'), '');
    mkdirSync(join(home, '.config', 'gh'), { recursive: true });
    writeFileSync(join(home, '.config', 'gh', 'hosts.yml'), 'github.com:\n  oauth_token: gho_runnerCredential\n');
    // Another step's file in $RUNNER_TEMP, which the agent must not read.
    mkdirSync(runner.temp, { recursive: true });
    writeFileSync(join(runner.temp, 'other-step.env'), 'DEPLOY_KEY=secret\n');
    const state = join('/tmp/claude', `sandboxed-worker-${process.pid}`);
    mkdirSync(state, { recursive: true });
    const yes = (cmd: string) => `$( ${cmd} >/dev/null 2>&1 && echo yes || echo no)`;
    const claude = await standInClaude([
      [
        { report: { type: 'session_ready' } },
        {
          bash: [
            'mkdir -p out',
            '{',
            `echo "allowed=$(curl -s --max-time 20 http://api.allowed.test:${pa}/)"`,
            `echo "blocked=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 http://api.blocked.test:${pb}/)"`,
            `echo "gh=${yes(`cat ${home}/.config/gh/hosts.yml`)}"`,
            `echo "temp=${yes(`cat ${runner.temp}/other-step.env`)}"`,
            '} > out/greeting.txt',
          ].join('\n'),
        },
        { report: { type: 'task_completed', message: 'Probed.' } },
        { result: { result: 'Probed.', total_cost_usd: 0.01 } },
      ],
    ]);
    const env = {
      PATH: claude.env.PATH!,
      HOME: home,
      FAKE_CLAUDE_SCENARIO: claude.env.FAKE_CLAUDE_SCENARIO!,
      FAKE_CLAUDE_STATE: state,
      GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
      GIT_CONFIG_NOSYSTEM: '1',
      GITHUB_API_URL: server.url,
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
      GITHUB_REF: 'refs/heads/main',
      GITHUB_RUN_ID: '42',
      HARNESS_GITHUB_THROTTLE: 'off',
    };
    try {
      const run = await runAction(bundle, runner, { spec: SPEC, plan: '01-01', resume: 'false', token: 'ghs_JobToken0123456789abcdefghijklmnopqrst', agent: 'claude', 'app-token': 'ghs_AppInstallationToken0123456789abcdefXYZ', 'app-slug': 'harness' }, env);
      if (process.env.DEBUG_WORKER) console.log(run.stdout, run.stderr);
      expect(run.stderr).toBe('');
      expect(run.outputs.result).toBe('verified');
      expect(git(repo.remote, 'show', `refs/heads/${BRANCH}:out/greeting.txt`).trim().split('\n')).toEqual(['allowed=hello from allowed', 'blocked=403', 'gh=no', 'temp=no']);
      const refused = `\`api.blocked.test:${pb}\`: refused 1 time (asked by \`claude\`)`;
      const allow = '`network: { allowed: ["api.blocked.test"] }`';
      const check = github.checkRuns.find((r) => r.id === APP_CHECK)!;
      if (process.env.DEBUG_WORKER) console.log('SUMMARY', check.output.summary, 'TEXT', check.output.text);
      expect(check.output.summary).toContain(refused);
      expect(check.output.summary).toContain(allow);
      const pr = github.pullRequests[0]!;
      expect(pr.body).toContain('### Blocked by the sandbox');
      expect(pr.body).toContain(refused);
      expect(git(repo.remote, 'show', `refs/heads/${BRANCH}:${readSummaryPath(repo.remote)}`)).toContain(refused);
      expect(existsSync(join(state, 'calls.jsonl'))).toBe(true);
      expect(readFileSync(join(state, 'calls.jsonl'), 'utf8')).toContain('SANDBOX_RUNTIME');
    } finally {
      await server.close();
    }
  });
});

/** The plan's SUMMARY.md on the branch. */
function readSummaryPath(remote: string): string {
  return git(remote, 'ls-tree', '-r', '--name-only', `refs/heads/${BRANCH}`).split('\n').find((p) => p.endsWith('01-01-SUMMARY.md'))!;
}
