import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UNKNOWN_RESET_WAIT_MS } from '../../../app/engine/lifecycle/usage-pause.js';
import { runCli, startHarness, tempDir } from '../../helpers/cli.js';
import { pathAppears } from '../../helpers/file-appears.js';
import {
  conversationText,
  fakeCopilotProvider,
  type FakeProvider,
  type ProviderReply,
  type ProviderUsage,
} from '../../helpers/fake-models/copilot-provider.js';
import { movableClock } from '../../helpers/fake-models/real-cli-env.js';
import { realCli } from '../../helpers/real-cli.js';
import { git, makeRepo, SPEC_DIR, specTree, type StepPlan } from '../../helpers/repo.js';

/**
 * `harness run --agent copilot` with the real GitHub Copilot CLI at its pin (1.0.102), its model a
 * provider of the user's own (COPILOT_PROVIDER_BASE_URL, offline: no GitHub sign-in, telemetry or
 * update) faked on 127.0.0.1 as OpenAI chat completions (test/helpers/fake-models/copilot-provider.ts).
 * Every proxy variable points at the fake, which records (and refuses) anything sent there.
 * Skipped where the pinned CLI is not installed (`npm run real-clis`); under CI that is an error.
 */
const copilot = realCli('copilot');

const SESSIONS = '.orchestration/SPC-007/sessions';
const INTEGRATION = 'harness/SPC-007/integration';
const PRICE = { input: 2, output: 8 };
const CONFIG = { '.github/harness.yml': `agents:\n  copilot:\n    price: { input_per_million: ${PRICE.input}, output_per_million: ${PRICE.output} }\n` };
/** The config with agents.copilot.max_turns as well. */
const withMaxTurns = (n: number) => ({ '.github/harness.yml': `${CONFIG['.github/harness.yml']}    max_turns: ${n}\n` });
const servers: FakeProvider[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function model(replies: Parameters<typeof fakeCopilotProvider>[0]): Promise<FakeProvider> {
  const fake = await fakeCopilotProvider(replies);
  servers.push(fake);
  return fake;
}

/** What Copilot CLI is started with: the real CLI first on PATH, a home of its own, the fake provider, offline, every way out closed. */
async function copilotEnv(fake: FakeProvider): Promise<Record<string, string>> {
  const home = await tempDir('copilot-home-');
  return {
    PATH: `${copilot!.binDir}:${process.env.PATH}`,
    HOME: home,
    COPILOT_HOME: join(home, '.copilot'),
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: fake.url,
    COPILOT_PROVIDER_API_KEY: 'sk-fake-provider',
    COPILOT_MODEL: 'fake-model',
    HTTPS_PROXY: fake.url,
    HTTP_PROXY: fake.url,
    NO_PROXY: '127.0.0.1,localhost',
  };
}

/** The model writing `path` with Copilot's bash tool (harness starts it with --allow-all-tools). */
const shellWrite = (path: string, content: string, usage?: ProviderUsage): ProviderReply => ({
  tool: 'bash',
  arguments: { command: `mkdir -p $(dirname ${path}) && printf '${content}' > ${path}`, description: `Write ${path}` },
  ...(usage ? { usage } : {}),
});

const plan = (id: string, extra: Partial<StepPlan> = {}): StepPlan => ({ id, steps: [], body: `Write out/${id}.txt.`, ...extra });

function resultOf(root: string, id: string): { outcome: string; reason?: string; attempt?: number; usage?: Record<string, number> } {
  return JSON.parse(readFileSync(join(root, SESSIONS, id, 'result.json'), 'utf8')) as ReturnType<typeof resultOf>;
}

const cost = (input: number, output: number) => Math.round(((input * PRICE.input + output * PRICE.output) / 1e6) * 1e6) / 1e6;

describe.skipIf(!copilot)(`harness run --agent copilot with Copilot CLI ${copilot?.version ?? ''} against a fake model provider`, () => {
  it("runs a plan to verified: the brief reaches the model, its bash call makes the file, and the run's usage is what the model reported, priced", async () => {
    const fake = await model([
      shellWrite('out/01-01.txt', 'made by copilot\\n', { prompt_tokens: 1800, completion_tokens: 40 }),
      { text: 'Wrote out/01-01.txt.', usage: { prompt_tokens: 1900, completion_tokens: 9 } },
    ]);
    const root = await makeRepo({ ...specTree([plan('01-01')]), ...CONFIG });

    const run = await runCli(['run', SPEC_DIR, '--agent', 'copilot'], root, { env: await copilotEnv(fake) });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('01-01 copilot session');
    expect(run.stdout).toContain('SPC-007: 1/1 plans verified');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('made by copilot\n');
    const turns = fake.turns();
    expect(turns).toHaveLength(2);
    expect(turns[0]!.headers.authorization).toBe('Bearer sk-fake-provider');
    // Its own tools, and harness's reporting server's (as <server>-<tool>), offered to the model; the brief its first message.
    expect(turns[0]!.body!.tools!.map((t) => t.function.name)).toEqual(
      expect.arrayContaining(['bash', 'create', 'harness-harness_worker_report', 'harness-harness_worker_await']),
    );
    expect(conversationText(turns[0]!.body)).toContain('Write out/01-01.txt.');
    expect(conversationText(turns[1]!.body)).toContain('"role":"tool"');
    // What harness recorded: the model's tokens over both requests, at the configured price.
    const { usage, outcome } = resultOf(root, '01-01');
    expect(outcome).toBe('verified');
    expect(usage).toEqual({ turns: 2, inputTokens: 1800 + 1900, outputTokens: 40 + 9, costUsd: cost(3700, 49) });
    expect(fake.escaped).toEqual([]);
  });

  it("pauses a plan at the provider's rate limit and, after the wait, resumes Copilot's own session, its usage counted once", async () => {
    // The provider's 429, as OpenAI answers it; the CLI retries it five times, then gives up with a session.error.
    const limited: ProviderReply = {
      status: 429,
      headers: { 'retry-after': '0' },
      error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' },
    };
    const fake = await model([
      shellWrite('out/01-01.txt', 'half\\n', { prompt_tokens: 1000, completion_tokens: 20 }),
      ...Array.from({ length: 6 }, () => limited),
    ]);
    const root = await makeRepo({ ...specTree([plan('01-01'), plan('01-02', { dependsOn: ['01-01'] })]), ...CONFIG });
    const env = await copilotEnv(fake);
    const start = new Date();
    const clock = movableClock(start);

    const paused = await runCli(['run', SPEC_DIR, '--agent', 'copilot'], root, { env, clock });

    // No reset said: harness waits its default before trying again.
    const resumeAt = new Date(start.getTime() + UNKNOWN_RESET_WAIT_MS).toISOString();
    expect(paused.code).toBe(75);
    expect(paused.stderr).toContain(`harness run: 01-01 paused at the model's usage limit until ${resumeAt}`);
    expect(paused.stdout).not.toContain('FAILED');
    const log = readFileSync(join(root, SESSIONS, '01-01/logs/copilot.log'), 'utf8');
    expect(log).toContain('"type":"session.error","data":{"errorType":"rate_limit"');
    const status = JSON.parse(readFileSync(join(root, SESSIONS, '01-01/status.json'), 'utf8')) as { state: string; attempt: number };
    expect(status).toMatchObject({ state: 'paused', attempt: 1 });
    expect(existsSync(join(root, SESSIONS, '01-01/result.json'))).toBe(false);
    expect(existsSync(join(root, SESSIONS, '01-02'))).toBe(false);
    expect(fake.left()).toBe(0);
    const state = JSON.parse(readFileSync(join(root, SESSIONS, '01-01/logs/copilot.json'), 'utf8')) as { sessionId: string; counted: Record<string, unknown> };
    // What was counted of the session at the pause: its one answered request.
    expect(state.counted).toEqual({ session: state.sessionId, inputTokens: 1000, outputTokens: 20, premiumRequests: 0 });

    fake.push(shellWrite('out/01-01.txt', 'one\\n', { prompt_tokens: 1100, completion_tokens: 30 }), {
      text: 'Wrote it.',
      usage: { prompt_tokens: 1200, completion_tokens: 5 },
    });
    fake.push(shellWrite('out/01-02.txt', 'two\\n'), { text: 'Wrote it.' });
    clock.at = new Date(start.getTime() + UNKNOWN_RESET_WAIT_MS + 60_000);
    const resumed = await runCli(['run', SPEC_DIR], root, { env, clock });

    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('01-01 resumed');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('one\n');
    expect(git(root, 'show', `${INTEGRATION}:out/01-02.txt`)).toBe('two\n');
    // The CLI's own session resumed: the model is given what the first run said and did, then told to go on.
    const turns = fake.turns();
    const again = turns[7]!;
    expect(conversationText(again.body)).toContain('Write out/01-01.txt.');
    expect(conversationText(again.body)).toContain("printf 'half");
    expect(conversationText(again.body)).toContain('A person answered checkpoint \\"usage-limit\\" (action).');
    // The session's usage file now holds both runs' totals; harness counted the resumed attempt as what it added, not the totals again.
    const { usage } = resultOf(root, '01-01');
    expect(usage).toEqual({ turns: 2, inputTokens: 1100 + 1200, outputTokens: 30 + 5, costUsd: cost(2300, 35) });
    expect(fake.escaped).toEqual([]);
  });

  it("resumes Copilot's own session after a checkpoint: harness stopped while the question waits, answered, and run again", async () => {
    const fake = await model([
      shellWrite('out/01-01.txt', 'draft\\n', { prompt_tokens: 1000, completion_tokens: 20 }),
      {
        tool: 'harness-harness_worker_report',
        arguments: { type: 'decision_needed', checkpoint: 'store', message: 'Which store?', options: ['memory', 'file'] },
        usage: { prompt_tokens: 1000, completion_tokens: 20 },
      },
      { tool: 'harness-harness_worker_await', arguments: { checkpoint: 'store' }, usage: { prompt_tokens: 1000, completion_tokens: 20 } },
    ]);
    const root = await makeRepo({ ...specTree([plan('01-01', { extra: 'autonomous: false' })]), ...CONFIG });
    const env = await copilotEnv(fake);

    // harness run as a person starts it; stopped (Ctrl-C) while the question waits for an answer.
    const first = startHarness(['run', SPEC_DIR, '--agent', 'copilot'], root, env);
    await pathAppears(join(root, SESSIONS, '01-01/checkpoint.json'));
    first.child.kill('SIGINT');
    const stopped = await first.done;
    expect(stopped.stderr).toContain('stopping: running plans are stopped and their state kept');
    const saved = JSON.parse(readFileSync(join(root, SESSIONS, '01-01/logs/copilot.json'), 'utf8')) as { sessionId: string; checkpoint: { id: string } };
    expect(saved).toMatchObject({ checkpoint: { id: 'store' } });
    expect(fake.turns()).toHaveLength(3);

    expect((await runCli(['respond', SPEC_DIR, '01-01', 'file'], root)).code).toBe(0);
    fake.push(shellWrite('out/01-01.txt', 'file\\n', { prompt_tokens: 1000, completion_tokens: 20 }), {
      text: 'Done: the file store.',
      usage: { prompt_tokens: 1000, completion_tokens: 20 },
    });
    const resumed = await runCli(['run', SPEC_DIR], root, { env });

    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('SPC-007: 1/1 plans verified');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('file\n');
    const turns = fake.turns();
    expect(turns).toHaveLength(5);
    // `copilot --resume=<id>`: the model given the session's history (the brief, which the resumed run does not send
    // again), then the answer with its question. What the CLI did last before the stop may be missing from that history:
    // 1.0.102 writes its session's events a little after they happen, so a stop right after the question can lose them.
    const carried = conversationText(turns[3]!.body);
    expect(carried).toContain('Write out/01-01.txt.');
    expect(carried).toContain('A person answered checkpoint \\"store\\" (decision).');
    expect(carried).toContain('The question, as you asked it: Which store?');
    expect(readFileSync(join(root, SESSIONS, '01-01/logs/copilot.log'), 'utf8')).toContain(`"sessionId":"${saved.sessionId}"`);
    expect(fake.escaped).toEqual([]);
  });
  it('counts turns as Copilot does (assistant.turn_start, the closing answer one of them): max_turns 2 lets a command and the answer through', async () => {
    const fake = await model([shellWrite('out/01-01.txt', 'one\\n'), { text: 'Wrote out/01-01.txt.' }]);
    const root = await makeRepo({ ...specTree([plan('01-01')]), ...withMaxTurns(2) });

    const run = await runCli(['run', SPEC_DIR, '--agent', 'copilot'], root, { env: await copilotEnv(fake) });

    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('SPC-007: 1/1 plans verified');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('one\n');
    const log = readFileSync(join(root, SESSIONS, '01-01/logs/copilot.log'), 'utf8');
    expect(log.match(/"type":"assistant\.turn_start"/g)).toHaveLength(2);
    expect(resultOf(root, '01-01')).toMatchObject({ outcome: 'verified', usage: { turns: 2 } });
    expect(fake.escaped).toEqual([]);
  });

  it('stops the CLI at the turn past max_turns (it has no flag for it): max_turns 1, a command then the answer, fails the plan, not retried', async () => {
    const fake = await model([shellWrite('out/01-01.txt', 'one\\n'), { text: 'Wrote out/01-01.txt.' }]);
    const root = await makeRepo({ ...specTree([plan('01-01')]), ...withMaxTurns(1) });

    const run = await runCli(['run', SPEC_DIR, '--agent', 'copilot'], root, { env: await copilotEnv(fake) });

    const reason = 'the copilot agent failed: copilot stopped at its turn limit (1 turns; agents.copilot.max_turns)';
    expect(run.code).not.toBe(0);
    expect(run.stdout).toContain(`01-01 FAILED: ${reason}`);
    // Stopped as the CLI began its second turn: the turn it was allowed is what is counted.
    expect(readFileSync(join(root, SESSIONS, '01-01/logs/copilot.log'), 'utf8')).toContain('"type":"assistant.turn_start","data":{"turnId":"1"');
    expect(resultOf(root, '01-01')).toMatchObject({ outcome: 'failed', reason, attempt: 1, usage: { turns: 1 } });
    expect(git(root, 'ls-tree', '-r', '--name-only', INTEGRATION)).not.toContain('out/01-01.txt');
    expect(fake.escaped).toEqual([]);
  });

  it('stops a plan whose tokens, at agents.copilot.price, cost more than its budget_usd: failed with both figures, the cost recorded', async () => {
    const fake = await model([
      shellWrite('out/01-01.txt', 'one\\n', { prompt_tokens: 20_000, completion_tokens: 1_000 }),
      { text: 'Wrote out/01-01.txt.', usage: { prompt_tokens: 21_000, completion_tokens: 1_000 } },
    ]);
    const root = await makeRepo({ ...specTree([plan('01-01', { extra: 'budget_usd: 0.05' })]), ...CONFIG });

    const run = await runCli(['run', SPEC_DIR, '--agent', 'copilot'], root, { env: await copilotEnv(fake) });

    const spent = cost(41_000, 2_000);
    expect(spent).toBeGreaterThan(0.05);
    const reason = `the copilot agent failed: copilot spent $${spent.toFixed(2)}, over the plan's budget of $0.05 (budget_usd): stopped`;
    expect(run.code).not.toBe(0);
    expect(run.stdout).toContain(`01-01 FAILED: ${reason}`);
    expect(resultOf(root, '01-01')).toMatchObject({ outcome: 'failed', reason, usage: { inputTokens: 41_000, outputTokens: 2_000, costUsd: spent } });
    expect(git(root, 'ls-tree', '-r', '--name-only', INTEGRATION)).not.toContain('out/01-01.txt');
    expect(fake.escaped).toEqual([]);
  });
});
