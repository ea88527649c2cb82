import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorker, runAction } from '../helpers/bundled-worker.js';
import { standInClaude } from '../helpers/mcp-claude.js';
import { standInCodex } from '../helpers/codex-standin.js';
import { standInCopilot } from '../helpers/copilot-standin.js';
import { standInGemini } from '../helpers/gemini-standin.js';
import { helloServer, sandboxUnavailable } from '../helpers/sandbox.js';
import { APP_CHECK, BRANCH, dispatchedFake, greetingPlan, jobEnv } from '../helpers/worker-fake.js';
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

  type Engine = 'claude' | 'codex' | 'gemini' | 'copilot' | 'command';
  /** Each engine's stand-in (none for a command), its records kept where a sandboxed process may write. */
  async function engine(name: Engine, state: string): Promise<Record<string, string>> {
    const probe = { bash: 'sh probe.sh' };
    const done = { report: { type: 'task_completed', message: 'Probed.' } };
    const ready = { report: { type: 'session_ready' } };
    switch (name) {
      case 'claude':
        return { ...(await standInClaude([[ready, probe, done, { result: { result: 'Probed.', total_cost_usd: 0.01 } }]])).env, FAKE_CLAUDE_STATE: state };
      case 'codex':
        return { ...(await standInCodex([[ready, probe, done, { text: 'Probed.' }]])).env, FAKE_CODEX_STATE: state };
      case 'gemini':
        return { ...(await standInGemini([[ready, probe, done, { text: 'Probed.' }]])).env, FAKE_GEMINI_STATE: state };
      case 'copilot':
        return { ...(await standInCopilot([[ready, probe, done, { text: 'Probed.' }]])).env, FAKE_COPILOT_STATE: state };
      case 'command':
        return {};
    }
  }

  it.each<[Engine, string]>([
    ['claude', 'claude'],
    ['codex', 'codex'],
    ['gemini', 'gemini'],
    ['copilot', 'copilot'],
    ['command', 'sh'],
  ])('%s: runs behind the allowlist, reads no credential of the runner, and the check run and the PR say what was refused', async (agent, asker) => {
    const pa = (allowed.address() as AddressInfo).port;
    const pb = (blocked.address() as AddressInfo).port;
    const root = mkdtempSync(join(tmpdir(), 'harness-runner-'));
    const runner = { workspace: '', temp: join(root, 'temp'), claudeHome: join(root, 'claude-home') };
    const home = mkdtempSync(join(tmpdir(), 'harness-home-'));
    writeFileSync(join(home, '.gitconfig'), '');
    mkdirSync(join(home, '.config', 'gh'), { recursive: true });
    writeFileSync(join(home, '.config', 'gh', 'hosts.yml'), 'github.com:\n  oauth_token: gho_runnerCredential\n');
    // Another step's file in $RUNNER_TEMP, which the agent must not read.
    mkdirSync(runner.temp, { recursive: true });
    writeFileSync(join(runner.temp, 'other-step.env'), 'DEPLOY_KEY=secret\n');
    const yes = (cmd: string) => `$( ${cmd} >/dev/null 2>&1 && echo yes || echo no)`;
    const probe = [
      'mkdir -p out',
      '{',
      `echo "allowed=$(curl -s --max-time 100 http://api.allowed.test:${pa}/)"`,
      `echo "blocked=$(curl -s -o /dev/null -w '%{http_code}' --max-time 100 http://api.blocked.test:${pb}/)"`,
      `echo "gh=${yes(`cat ${home}/.config/gh/hosts.yml`)}"`,
      `echo "temp=${yes(`cat ${runner.temp}/other-step.env`)}"`,
      '} > out/greeting.txt',
    ].join('\n');
    const config = [
      `network:`,
      `  allowed: ["api.allowed.test", "127.0.0.1:${pa}"]`,
      ...(agent === 'command' ? ['agents: { command: { command: "sh probe.sh" } }'] : []),
    ].join('\n');
    const repo = await workerRepo(specRepo([greetingPlan()], { '.github/harness.yml': `${config}\n`, 'probe.sh': `${probe}\n` }), BRANCH);
    runner.workspace = repo.checkout;
    const github = dispatchedFake(repo.base);
    const server = await github.serve();
    const state = join('/tmp/claude', `sandboxed-worker-${process.pid}-${agent}`);
    mkdirSync(state, { recursive: true });
    const env = {
      ...(await engine(agent, state)),
      ...jobEnv(home, server.url),
    };
    try {
      const run = await runAction(
        bundle,
        runner,
        {
          spec: SPEC,
          plan: '01-01',
          resume: 'false',
          token: 'ghs_JobToken0123456789abcdefghijklmnopqrst',
          agent,
          'app-token': 'ghs_AppInstallationToken0123456789abcdefXYZ',
          'app-slug': 'harness',
        },
        env,
      );
      if (process.env.DEBUG_WORKER) console.log(run.stdout, run.stderr);
      expect(run.stderr).toBe('');
      expect(run.outputs.result).toBe('verified');
      expect(git(repo.remote, 'show', `refs/heads/${BRANCH}:out/greeting.txt`).trim().split('\n')).toEqual([
        'allowed=hello from allowed',
        'blocked=403',
        'gh=no',
        'temp=no',
      ]);
      const refused = `\`api.blocked.test:${pb}\`: refused 1 time (asked by \`${asker}\`)`;
      const allow = '`network: { allowed: ["api.blocked.test"] }`';
      const check = github.checkRuns.find((r) => r.id === APP_CHECK)!;
      expect(check.output.summary).toContain(refused);
      expect(check.output.summary).toContain(allow);
      const pr = github.pullRequests[0]!;
      expect(pr.body).toContain('### Blocked by the sandbox');
      expect(pr.body).toContain(refused);
      expect(git(repo.remote, 'show', `refs/heads/${BRANCH}:${readSummaryPath(repo.remote)}`)).toContain(refused);
      if (agent !== 'command') expect(readFileSync(join(state, 'calls.jsonl'), 'utf8')).toContain('SANDBOX_RUNTIME');
    } finally {
      await server.close();
    }
  });
});

/** The plan's SUMMARY.md on the branch. */
function readSummaryPath(remote: string): string {
  return git(remote, 'ls-tree', '-r', '--name-only', `refs/heads/${BRANCH}`)
    .split('\n')
    .find((p) => p.endsWith('01-01-SUMMARY.md'))!;
}
