import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startHarness, tempDir } from '../../helpers/cli.js';
import { pathAppears } from '../../helpers/file-appears.js';
import {
  conversationText,
  fakeAnthropic,
  workingDirectory,
  type AnthropicBody,
  type AnthropicReply,
  type FakeAnthropic,
  type Usage,
} from '../../helpers/fake-models/anthropic.js';
import { movableClock } from '../../helpers/fake-models/real-cli-env.js';
import { realCli } from '../../helpers/real-cli.js';
import { git, makeRepo, SPEC_DIR, specTree, type StepPlan } from '../../helpers/repo.js';

/**
 * `harness run --agent claude` with the real Claude Code at its pin (2.1.332), its model a fake
 * Anthropic Messages API on 127.0.0.1 (test/helpers/fake-models/anthropic.ts): the brief reaches
 * the model, the model's tool call is carried out by the CLI, and what harness records of the run
 * is what the model reported. Nothing leaves the machine: the CLI's nonessential traffic is off,
 * and every proxy variable points at the fake, which records (and refuses) anything sent there.
 * Skipped where the pinned CLI is not installed (`npm run real-clis`); under CI that is an error.
 */
const claude = realCli('claude');

const SESSIONS = '.orchestration/SPC-007/sessions';
const INTEGRATION = 'harness/SPC-007/integration';
const servers: FakeAnthropic[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function model(replies: Parameters<typeof fakeAnthropic>[0]): Promise<FakeAnthropic> {
  const fake = await fakeAnthropic(replies);
  servers.push(fake);
  return fake;
}

/**
 * What Claude Code is started with: the real CLI first on PATH, a home and config dir of its own,
 * the fake model, and every way out of the machine closed. `auth` "key" is an API key
 * (ANTHROPIC_API_KEY); "subscription" a Claude subscription's OAuth token (CLAUDE_CODE_OAUTH_TOKEN),
 * the sign-in whose usage limits Claude Code words as "You've hit your … limit".
 */
async function claudeEnv(fake: FakeAnthropic, auth: 'key' | 'subscription' = 'key'): Promise<Record<string, string>> {
  const home = await tempDir('claude-home-');
  return {
    PATH: `${claude!.binDir}:${process.env.PATH}`,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_BASE_URL: fake.url,
    ...(auth === 'key' ? { ANTHROPIC_API_KEY: 'sk-ant-api03-fake' } : { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-fake' }),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
    HTTPS_PROXY: fake.url,
    HTTP_PROXY: fake.url,
    NO_PROXY: '127.0.0.1,localhost',
  };
}

/** The model writing `path` (relative to the session's working directory) with Claude Code's Write tool. */
const write =
  (path: string, content: string, usage?: Usage) =>
  (body: AnthropicBody): AnthropicReply => ({ tool: 'Write', input: { file_path: join(workingDirectory(body), path), content }, ...(usage ? { usage } : {}) });

/**
 * The model writing `path` with a command: `node -e`, which .github/harness.yml allows (NODE_ALLOWED):
 * a Bash tool call and its output in the session, as a model's work mostly is. (The Write tool works
 * as well with harness's defaults: the last case.)
 */
const nodeWrite = (path: string, content: string, usage?: Usage): AnthropicReply => ({
  tool: 'Bash',
  input: {
    command: `node -e ${shellQuote(`const fs = require('fs'); fs.mkdirSync(require('path').dirname(${JSON.stringify(path)}), { recursive: true }); fs.writeFileSync(${JSON.stringify(path)}, ${JSON.stringify(content)})`)}`,
    description: `Write ${path}`,
  },
  ...(usage ? { usage } : {}),
});
const shellQuote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
const NODE_ALLOWED = { '.github/harness.yml': 'agents:\n  claude:\n    allowed_tools: ["Bash(node:*)"]\n' };
/** NODE_ALLOWED with agents.claude.max_turns. */
const withMaxTurns = (n: number) => ({ '.github/harness.yml': `${NODE_ALLOWED['.github/harness.yml']}    max_turns: ${n}\n` });

const plan = (id: string, extra: Partial<StepPlan> = {}): StepPlan => ({ id, steps: [], body: `Write out/${id}.txt.`, ...extra });

function resultOf(root: string, id: string): { outcome: string; reason?: string; attempt?: number; usage?: Record<string, number> } {
  return JSON.parse(readFileSync(join(root, SESSIONS, id, 'result.json'), 'utf8')) as ReturnType<typeof resultOf>;
}

/** The stream-json lines harness kept of the plan's claude runs. */
function logLines(root: string, id: string): Record<string, unknown>[] {
  return readFileSync(join(root, SESSIONS, id, 'logs/claude.log'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe.skipIf(!claude)(`harness run --agent claude with Claude Code ${claude?.version ?? ''} against a fake Anthropic API`, () => {
  it("runs a plan to verified: the brief reaches the model, its command makes the file, and the run's usage is what the model reported", async () => {
    const fake = await model([
      nodeWrite('out/01-01.txt', 'made by claude\n', { input_tokens: 1500, output_tokens: 60, cache_read_input_tokens: 300 }),
      { text: 'Wrote out/01-01.txt.', usage: { input_tokens: 1700, output_tokens: 12 } },
    ]);
    const root = await makeRepo({ ...specTree([plan('01-01')]), ...NODE_ALLOWED });

    const run = await runCli(['run', SPEC_DIR, '--agent', 'claude'], root, { env: await claudeEnv(fake) });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('SPC-007: 1/1 plans verified');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('made by claude\n');
    // The real CLI asked the model twice, each time offering its tools and naming harness's, and the brief was the first message.
    const turns = fake.turns();
    expect(turns).toHaveLength(2);
    expect(turns[0]!.headers['x-api-key']).toBe('sk-ant-api03-fake');
    expect(turns[0]!.body!.tools!.map((t) => t.name)).toEqual(expect.arrayContaining(['Bash', 'Write', 'ToolSearch']));
    // harness's reporting tools are there, deferred (2.1.332 names MCP tools and gives their schemas through ToolSearch).
    expect(JSON.stringify(turns[0]!.body)).toContain('mcp__harness__harness_worker_report');
    expect(JSON.stringify(turns[0]!.body)).toContain('mcp__harness__harness_worker_await');
    expect(conversationText(turns[0]!.body)).toContain('Write out/01-01.txt.');
    expect(conversationText(turns[0]!.body)).toContain('harness_worker_await');
    // The second request carries the tool's result: the CLI wrote the file.
    expect(conversationText(turns[1]!.body)).toContain('tool_result');
    // What harness recorded: the model's tokens, cache reads included, summed over both turns; the cost is Claude Code's own.
    const { usage, outcome } = resultOf(root, '01-01');
    expect(outcome).toBe('verified');
    expect(usage).toMatchObject({ turns: 2, inputTokens: 1500 + 300 + 1700, outputTokens: 60 + 12 });
    // The cost is Claude Code's own (its price for the model): the one its closing result line said, in the log harness keeps.
    const said = logLines(root, '01-01').find((l) => l.type === 'result')!;
    expect(usage!.costUsd).toBe(said.total_cost_usd);
    expect(usage!.costUsd).toBeGreaterThan(0);
    expect(fake.escaped).toEqual([]);
  });

  it("pauses a plan at the subscription's usage limit, as the CLI words it, and resumes the same session after the reset", async () => {
    const start = new Date();
    // Two days on, minute-aligned; the run's clock is the test's, so nothing waits for it.
    const resetsAt = new Date((Math.floor(start.getTime() / 60_000) + 2 * 1440) * 60_000);
    const fake = await model([
      nodeWrite('out/01-01.txt', 'half\n'),
      // What the API answers a subscription at its limit: 429, rate_limit_error, and the unified limit's headers.
      {
        status: 429,
        headers: {
          'anthropic-ratelimit-unified-status': 'rejected',
          'anthropic-ratelimit-unified-reset': String(resetsAt.getTime() / 1000),
          'anthropic-ratelimit-unified-representative-claim': 'five_hour',
        },
        error: { type: 'rate_limit_error', message: "This request would exceed your account's rate limit. Please try again later." },
      },
    ]);
    const root = await makeRepo({ ...specTree([plan('01-01'), plan('01-02', { dependsOn: ['01-01'] })]), ...NODE_ALLOWED });
    const env = await claudeEnv(fake, 'subscription');
    const clock = movableClock(start);

    const paused = await runCli(['run', SPEC_DIR, '--agent', 'claude'], root, { env, clock });

    const iso = resetsAt.toISOString();
    expect(paused.code).toBe(75);
    expect(paused.stderr).toContain(`harness run: 01-01 paused at the model's usage limit until ${iso}; resume then with: harness run ${SPEC_DIR}`);
    expect(paused.stdout).toContain('0/2 plans verified, 0/1 phases verified, 1 paused at the usage limit');
    expect(paused.stdout).not.toContain('FAILED');
    // The CLI's own words, which harness matches: the result line is one of its limit messages, the stream's event the exact reset.
    const said = logLines(root, '01-01');
    expect(said.find((l) => l.type === 'result')).toMatchObject({
      is_error: true,
      api_error_status: 429,
      result: expect.stringMatching(/^You've hit your 5-hour limit · resets /),
    });
    expect(said.filter((l) => l.type === 'rate_limit_event').at(-1)).toMatchObject({
      rate_limit_info: { status: 'rejected', resetsAt: resetsAt.getTime() / 1000, rateLimitType: 'five_hour' },
    });
    // Paused: not an attempt's end (no result, no signal), the dependant not started.
    const status = JSON.parse(readFileSync(join(root, SESSIONS, '01-01/status.json'), 'utf8')) as {
      state: string;
      attempt: number;
      pause: { resetsAt: string };
    };
    expect(status).toMatchObject({ state: 'paused', attempt: 1, pause: { resetsAt: iso } });
    expect(existsSync(join(root, SESSIONS, '01-01/result.json'))).toBe(false);
    expect(existsSync(join(root, SESSIONS, '01-02'))).toBe(false);
    expect(git(root, 'ls-tree', '-r', '--name-only', INTEGRATION)).not.toMatch(/signals\//);
    expect(fake.turns()).toHaveLength(2);
    expect(clock.timers).toEqual([]);

    // After the reset: the same session goes on, told to continue, then the dependant runs.
    fake.push(nodeWrite('out/01-01.txt', 'one\n'), { text: 'Wrote it.' }, nodeWrite('out/01-02.txt', 'two\n'), { text: 'Wrote it.' });
    clock.at = new Date(resetsAt.getTime() + 60_000);
    const resumed = await runCli(['run', SPEC_DIR], root, { env, clock });

    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('01-01 resumed');
    expect(resumed.stdout).toContain('SPC-007: 2/2 plans verified');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('one\n');
    expect(git(root, 'show', `${INTEGRATION}:out/01-02.txt`)).toBe('two\n');
    const turns = fake.turns();
    expect(turns).toHaveLength(6);
    // Claude Code's own session, resumed: its id, and the model given what the first run said and did, then the answer.
    expect(turns[2]!.headers['x-claude-code-session-id']).toBe(turns[0]!.headers['x-claude-code-session-id']);
    const carried = conversationText(turns[2]!.body);
    expect(carried).toContain('Write out/01-01.txt.');
    expect(carried).toContain('fs.writeFileSync(\\"out/01-01.txt\\", \\"half');
    expect(carried).toContain('A person answered checkpoint \\"usage-limit\\" (action).');
    // Still the first attempt.
    expect(git(root, 'show', `${INTEGRATION}:${SPEC_DIR}/execution/phases/01-phase/01-01-SUMMARY.md`)).toMatch(/^attempts: 1\b/m);
    expect(fake.escaped).toEqual([]);
  });

  it("resumes Claude Code's own session after a checkpoint: harness stopped while the question waits, answered, and run again", async () => {
    const tools = { query: 'select:mcp__harness__harness_worker_report,mcp__harness__harness_worker_await' };
    const fake = await model([
      // As a model does with 2.1.332's deferred MCP tools: their schemas first, then the calls.
      { tool: 'ToolSearch', input: tools },
      nodeWrite('out/01-01.txt', 'draft\n'),
      {
        tool: 'mcp__harness__harness_worker_report',
        input: { type: 'decision_needed', checkpoint: 'store', message: 'Which store?', options: ['memory', 'file'] },
      },
      { tool: 'mcp__harness__harness_worker_await', input: { checkpoint: 'store' } },
    ]);
    const root = await makeRepo({ ...specTree([plan('01-01', { extra: 'autonomous: false' })]), ...NODE_ALLOWED });
    const env = await claudeEnv(fake);

    // harness run as a person starts it; stopped (Ctrl-C) while the question waits for an answer.
    const first = startHarness(['run', SPEC_DIR, '--agent', 'claude'], root, env);
    await pathAppears(join(root, SESSIONS, '01-01/checkpoint.json'));
    first.child.kill('SIGINT');
    const stopped = await first.done;
    expect(stopped.stderr).toContain('stopping: running plans are stopped and their state kept');
    const saved = JSON.parse(readFileSync(join(root, SESSIONS, '01-01/logs/claude.json'), 'utf8')) as { sessionId: string; checkpoint: { id: string } };
    expect(saved).toMatchObject({ sessionId: fake.turns()[0]!.headers['x-claude-code-session-id'], checkpoint: { id: 'store' } });
    expect(fake.turns()).toHaveLength(4);

    expect((await runCli(['respond', SPEC_DIR, '01-01', 'file'], root)).code).toBe(0);
    fake.push(nodeWrite('out/01-01.txt', 'file\n'), { text: 'Done: the file store.' });
    const resumed = await runCli(['run', SPEC_DIR], root, { env });

    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('SPC-007: 1/1 plans verified');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('file\n');
    const turns = fake.turns();
    expect(turns).toHaveLength(6);
    // `claude --resume <id>`: the same session, the model given what it said and did before the stop, then the answer.
    expect(turns[4]!.headers['x-claude-code-session-id']).toBe(saved.sessionId);
    const carried = conversationText(turns[4]!.body);
    expect(carried).toContain('Write out/01-01.txt.');
    expect(carried).toContain('Which store?');
    expect(carried).toContain('mcp__harness__harness_worker_await');
    expect(carried).toContain('A person answered checkpoint \\"store\\" (decision).');
    expect(fake.escaped).toEqual([]);
  });

  it("writes with its Write tool, with harness's defaults: the worktrees are beside the repository, not under .git, where Claude Code 2.1.332 refuses any path", async () => {
    const fake = await model([write('out/01-01.txt', 'made by claude\n'), { text: 'Wrote out/01-01.txt.' }]);
    const root = await makeRepo(specTree([plan('01-01')]));

    const run = await runCli(['run', SPEC_DIR, '--agent', 'claude'], root, { env: await claudeEnv(fake) });

    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).not.toContain('sensitive file');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('made by claude\n');
    // The path the model was told to write: the plan's worktree, no `.git` folder in it.
    const told = fake.requests.find((r) => r.reply && 'tool' in r.reply)!.reply as unknown as { input: { file_path: string } };
    expect(told.input.file_path.split('/')).not.toContain('.git');
    expect(fake.escaped).toEqual([]);
  });
  it('passes max_turns to Claude Code, which counts the answer as a turn: max_turns 2 lets a command and the answer through, verified', async () => {
    const fake = await model([nodeWrite('out/01-01.txt', 'one\n'), { text: 'Wrote out/01-01.txt.' }]);
    const root = await makeRepo({ ...specTree([plan('01-01')]), ...withMaxTurns(2) });

    const run = await runCli(['run', SPEC_DIR, '--agent', 'claude'], root, { env: await claudeEnv(fake) });

    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('SPC-007: 1/1 plans verified');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('one\n');
    expect(logLines(root, '01-01').find((l) => l.type === 'result')).toMatchObject({ subtype: 'success', num_turns: 2 });
    expect(resultOf(root, '01-01')).toMatchObject({ outcome: 'verified', usage: { turns: 2 } });
    expect(fake.escaped).toEqual([]);
  });

  it("stops a plan at Claude Code's own turn limit (--max-turns 1, a command then the answer): failed with the CLI's words, not retried", async () => {
    const fake = await model([nodeWrite('out/01-01.txt', 'one\n'), { text: 'Wrote out/01-01.txt.' }]);
    const root = await makeRepo({ ...specTree([plan('01-01')]), ...withMaxTurns(1) });

    const run = await runCli(['run', SPEC_DIR, '--agent', 'claude'], root, { env: await claudeEnv(fake) });

    expect(run.code).not.toBe(0);
    const said = logLines(root, '01-01').find((l) => l.type === 'result')!;
    expect(said).toMatchObject({ subtype: 'error_max_turns', num_turns: 2, errors: ['Reached maximum number of turns (1)'] });
    const reason = /^the claude agent failed: claude stopped at its turn limit \(2 turns, \$[\d.]+, [\d.]+s\): Reached maximum number of turns \(1\)$/;
    const result = resultOf(root, '01-01');
    expect(result).toMatchObject({ outcome: 'failed', reason: expect.stringMatching(reason), attempt: 1, usage: { turns: 2 } });
    expect(run.stdout).toContain(`01-01 FAILED: ${result.reason}`);
    // The CLI stopped itself before asking for the answer.
    expect(fake.turns()).toHaveLength(1);
    expect(fake.left()).toBe(1);
    expect(git(root, 'ls-tree', '-r', '--name-only', INTEGRATION)).not.toContain('out/01-01.txt');
    expect(fake.escaped).toEqual([]);
  });

  it('stops a plan whose cost, as Claude Code reports it, passes its budget_usd: the CLI stops itself at --max-budget-usd, the plan fails with both figures, the cost recorded', async () => {
    const fake = await model([
      nodeWrite('out/01-01.txt', 'one\n', { input_tokens: 400_000, output_tokens: 2_000 }),
      { text: 'Wrote out/01-01.txt.', usage: { input_tokens: 410_000, output_tokens: 500 } },
    ]);
    const root = await makeRepo({ ...specTree([plan('01-01', { extra: 'budget_usd: 0.05' })]), ...NODE_ALLOWED });

    const run = await runCli(['run', SPEC_DIR, '--agent', 'claude'], root, { env: await claudeEnv(fake) });

    expect(run.code).not.toBe(0);
    // Claude Code's own cost and its own stop: the first turn took it past the $0.05 it was given.
    const said = logLines(root, '01-01').find((l) => l.type === 'result')! as { subtype: string; total_cost_usd: number };
    expect(said.subtype).toBe('error_max_budget_usd');
    expect(said.total_cost_usd).toBeGreaterThan(0.05);
    expect(fake.turns()).toHaveLength(1);
    const reason = `the claude agent failed: claude spent $${said.total_cost_usd.toFixed(2)}, over the plan's budget of $0.05 (budget_usd): stopped`;
    expect(run.stdout).toContain(`01-01 FAILED: ${reason}`);
    // The tokens too, though the CLI's result leaves its usage at zero when it stops at its budget (they are in its per-model figures).
    const result = resultOf(root, '01-01');
    expect(result).toMatchObject({ outcome: 'failed', reason, usage: { turns: 1, inputTokens: 400_000, outputTokens: 2_000 } });
    expect(result.usage!.costUsd).toBeCloseTo(said.total_cost_usd, 6);
    expect(git(root, 'ls-tree', '-r', '--name-only', INTEGRATION)).not.toContain('out/01-01.txt');
    expect(fake.escaped).toEqual([]);
  });
});
