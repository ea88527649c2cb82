import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harnessProcess, pathOnly } from '../helpers/cli.js';
import { fileAppears } from '../helpers/file-appears.js';
import { standInClaude } from '../helpers/mcp-claude.js';
import { standInCodex } from '../helpers/codex-standin.js';
import { standInCopilot } from '../helpers/copilot-standin.js';
import { standInGemini } from '../helpers/gemini-standin.js';
import { git, makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';
import { helloServer, sandboxUnavailable } from '../helpers/sandbox.js';

/**
 * `harness run --sandbox` with each engine's stand-in: the agent (its bash tool) reaches an allowed
 * host, is refused a host not allowed and one blocked, cannot get round the proxy, read a
 * credential file, write outside its worktree or change the machine's name resolution; its harness
 * MCP server still reports from inside; and the run says what was refused and how to allow it.
 *
 * The hosts are local servers under names /etc/hosts maps to 127.0.0.1 (.ci/run adds them), and
 * the sandbox needs bubblewrap, socat and ripgrep (.ci/run installs them): under CI a machine
 * without them fails here, saying which; elsewhere the file is skipped with the reason.
 */

const why = await sandboxUnavailable();
const BIN = fileURLToPath(new URL('../../bin/harness.js', import.meta.url));

/** The processes whose environment holds `variable` (NAME=value). */
async function processesWith(variable: string): Promise<number[]> {
  const out: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '');
    if (environ.split('\0').includes(variable)) out.push(Number(entry));
  }
  return out;
}

describe.skipIf(why !== undefined)(`harness run --sandbox${why ? ` (skipped: ${why})` : ''}`, () => {
  let allowed: Server;
  let blocked: Server;
  let port: { allowed: number; blocked: number };
  const made: string[] = [];
  beforeAll(async () => {
    [allowed, blocked] = await Promise.all([helloServer('allowed'), helloServer('blocked')]);
    port = { allowed: (allowed.address() as AddressInfo).port, blocked: (blocked.address() as AddressInfo).port };
  });
  afterAll(() => {
    allowed.close();
    blocked.close();
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });

  /** A repository whose config allows *.allowed.test (and the loopback port it resolves to) but blocks evil.allowed.test; a home with a key; a folder outside. */
  async function setUp(extraConfig = ''): Promise<{ root: string; home: string; outside: string; state: string }> {
    const config = ['network:', `  allowed: ["*.allowed.test", "127.0.0.1:${port.allowed}"]`, '  blocked: [evil.allowed.test]', extraConfig].join('\n');
    const home = mkdtempSync(join(tmpdir(), 'sandbox-home-'));
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'id_test'), 'PRIVATE KEY\n');
    const outside = mkdtempSync(join(tmpdir(), 'sandbox-outside-'));
    // The stand-in's own records, where a sandboxed process may write: the sandbox's temporary folder.
    const state = join('/tmp/claude', `sandbox-test-${process.pid}-${made.length}`);
    mkdirSync(state, { recursive: true });
    made.push(home, outside, state);
    const yes = (cmd: string) => `$( ${cmd} >/dev/null 2>&1 && echo yes || echo no)`;
    const probe = [
      '{',
      `echo "allowed=$(curl -s --max-time 100 http://api.allowed.test:${port.allowed}/)"`,
      `echo "not-allowed=$(curl -s -o /dev/null -w '%{http_code}' --max-time 100 http://api.blocked.test:${port.blocked}/)"`,
      `echo "blocked=$(curl -s -o /dev/null -w '%{http_code}' --max-time 100 http://evil.allowed.test:${port.allowed}/)"`,
      `echo "direct=${yes(`env -u HTTP_PROXY -u http_proxy -u ALL_PROXY -u all_proxy curl -s --max-time 5 --noproxy '*' http://127.0.0.1:${port.blocked}/`)}"`,
      `echo "secret=${yes(`cat ${home}/.ssh/id_test`)}"`,
      `echo "outside=${yes(`touch ${outside}/escaped`)}"`,
      `echo "hosts=${yes("sh -c 'echo 127.0.0.1 x >> /etc/hosts'")}"`,
      '} > probe.txt',
    ].join('\n');
    const root = await makeRepo({
      ...specTree([{ id: '01-01', files: ['probe.txt'], steps: [] }]),
      '.github/harness.yml': `${config}\n`,
      'probe.sh': `${probe}\n`,
    });
    made.push(root);
    return { root, home, outside, state };
  }

  const refused = {
    allowed: 'allowed=hello from allowed',
    'not-allowed': 'not-allowed=403',
    blocked: 'blocked=403',
    direct: 'direct=no',
    secret: 'secret=no',
    outside: 'outside=no',
    hosts: 'hosts=no',
  };

  async function expectSandboxed(
    run: { code: number | null; stdout: string; stderr: string },
    s: { root: string; outside: string },
    agent: string,
  ): Promise<void> {
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('1/1 plans verified');
    expect(run.code).toBe(0);
    const probe = git(s.root, 'show', 'harness/SPC-007/integration:probe.txt').trim().split('\n');
    expect(probe).toEqual(Object.values(refused));
    expect(existsSync(join(s.outside, 'escaped'))).toBe(false);
    // Nothing of the sandbox's machinery is left in the repository the run was started in.
    expect(git(s.root, 'status', '--porcelain', '--ignored')).not.toMatch(/\.bashrc|\.gitconfig|\.mcp\.json|\.vscode|\.idea/);
    // What was refused, with the line that allows it: in the plan's SUMMARY.md and the run's STATUS.md.
    const summary = git(s.root, 'show', `harness/SPC-007/integration:${SPEC_DIR}/execution/phases/01-phase/01-01-SUMMARY.md`);
    expect(summary).toContain(`- \`api.blocked.test:${port.blocked}\`: refused 1 time (asked by \`${agent}\`)`);
    expect(summary).toContain(`- \`evil.allowed.test:${port.allowed}\`: refused 1 time (asked by \`${agent}\`)`);
    expect(summary).toContain('allow them in `.github/harness.yml`: `network: { allowed: ["api.blocked.test", "evil.allowed.test"] }`');
    const status = git(s.root, 'show', `harness/SPC-007/integration:${SPEC_DIR}/STATUS.md`);
    expect(status).toContain(`the sandbox refused api.blocked.test:${port.blocked} (1×, ${agent}), evil.allowed.test:${port.allowed} (1×, ${agent})`);
  }

  const probe = { bash: 'sh probe.sh' };

  it('claude: its connections go through the allowlist, its files stay its own, and the run says what was refused', async () => {
    const s = await setUp();
    const claude = await standInClaude([[{ report: { type: 'session_ready' } }, probe, { report: { type: 'task_completed', message: 'Probed.' } }]]);
    made.push(claude.bin);
    const run = await harnessProcess(['run', SPEC_DIR, '--agent', 'claude', '--sandbox'], s.root, {
      ...claude.env,
      HOME: s.home,
      FAKE_CLAUDE_STATE: s.state,
      IS_SANDBOX: '1',
    });
    await expectSandboxed(run, s, 'claude');
  });

  it("codex: the same, with Codex's own sandbox off (harness's holds its commands)", async () => {
    const s = await setUp();
    const codex = await standInCodex([
      [{ report: { type: 'session_ready' } }, probe, { report: { type: 'task_completed', message: 'Probed.' } }, { text: 'Probed.' }],
    ]);
    made.push(codex.bin);
    const run = await harnessProcess(['run', SPEC_DIR, '--agent', 'codex', '--sandbox'], s.root, { ...codex.env, HOME: s.home, FAKE_CODEX_STATE: s.state });
    await expectSandboxed(run, s, 'codex');
    const [call] = readFileSync(join(s.state, 'calls.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { args: string[] });
    expect(call!.args).toContain('sandbox_mode="danger-full-access"');
  });

  it('gemini: the same', async () => {
    const s = await setUp('agents: { gemini: { approval_mode: yolo } }');
    const gemini = await standInGemini([
      [{ report: { type: 'session_ready' } }, probe, { report: { type: 'task_completed', message: 'Probed.' } }, { text: 'Probed.' }],
    ]);
    made.push(gemini.bin);
    const run = await harnessProcess(['run', SPEC_DIR, '--agent', 'gemini', '--sandbox'], s.root, { ...gemini.env, HOME: s.home, FAKE_GEMINI_STATE: s.state });
    await expectSandboxed(run, s, 'gemini');
  });

  it('copilot: the same', async () => {
    const s = await setUp();
    const copilot = await standInCopilot([
      [{ report: { type: 'session_ready' } }, probe, { report: { type: 'task_completed', message: 'Probed.' } }, { text: 'Probed.' }],
    ]);
    made.push(copilot.bin);
    const run = await harnessProcess(['run', SPEC_DIR, '--agent', 'copilot', '--sandbox'], s.root, {
      ...copilot.env,
      HOME: s.home,
      FAKE_COPILOT_STATE: s.state,
    });
    await expectSandboxed(run, s, 'copilot');
  });

  it('killed mid-run (SIGKILL), leaves nothing running once started again: the relays of the killed run are ended, and the plan finishes', async () => {
    const s = await setUp();
    const claude = await standInClaude([
      [{ report: { type: 'session_ready' } }, { waitFor: 'never' }],
      [{ report: { type: 'session_ready' } }, probe, { report: { type: 'task_completed', message: 'Probed.' } }],
    ]);
    made.push(claude.bin);
    const env = { ...process.env, ...claude.env, HOME: s.home, FAKE_CLAUDE_STATE: s.state, IS_SANDBOX: '1' };
    const first = spawn(process.execPath, [BIN, 'run', SPEC_DIR, '--agent', 'claude', '--sandbox'], { cwd: s.root, env, stdio: 'ignore' });
    // The agent has started (its call is recorded) when the sandbox and its relays are up.
    await fileAppears(join(s.state, 'calls.jsonl'));
    const owned = (pid: number) => processesWith(`HARNESS_SANDBOX_OWNER=${pid}`);
    expect((await owned(first.pid!)).length).toBeGreaterThan(0);
    const gone = new Promise((resolve) => first.on('exit', resolve));
    first.kill('SIGKILL');
    await gone;

    const again = await harnessProcess(['run', SPEC_DIR, '--agent', 'claude', '--sandbox'], s.root, {
      ...claude.env,
      HOME: s.home,
      FAKE_CLAUDE_STATE: s.state,
      IS_SANDBOX: '1',
    });
    expect(again.stdout).toContain('1/1 plans verified');
    expect(await owned(first.pid!)).toEqual([]);
  });

  it("command: the same, for a command of the repository's own", async () => {
    const s = await setUp('agents: { command: { command: "sh probe.sh" } }');
    const run = await harnessProcess(['run', SPEC_DIR, '--agent', 'command', '--sandbox'], s.root, { HOME: s.home });
    await expectSandboxed(run, s, 'sh');
  });
});

describe('harness run --sandbox where the sandbox cannot run', () => {
  it('stops before any plan starts, naming what is missing and how to get it (exit 74)', async () => {
    const root = await makeRepo({ ...specTree([{ id: '01-01', steps: ['mkdir -p out && echo hi > out/01-01.txt'] }]) });
    // A PATH with git (and which, that finds programs) but no bubblewrap, socat or ripgrep.
    const bin = await pathOnly('git', 'which', 'sh');
    const run = await harnessProcess(['run', SPEC_DIR, '--agent', 'script', '--sandbox'], root, { PATH: bin });
    expect(run.code).toBe(74);
    expect(run.stderr).toBe(
      "harness run: the agents' sandbox cannot start on this machine: ripgrep (rg) not found; bubblewrap (bwrap) not installed; socat not installed (Debian and Ubuntu: sudo apt-get install bubblewrap socat ripgrep)\n",
    );
    // Nothing ran: no plan branch was made.
    expect(git(root, 'branch', '--list', 'harness/*')).toBe('');
  });
});
