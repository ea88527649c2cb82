/**
 * `harness run --agent codex` with the real Codex CLI (@openai/codex 0.171.0, test/helpers/real-cli.ts)
 * against a fake Responses API on 127.0.0.1 (test/helpers/fake-models/openai-responses.ts): what
 * the stand-in (test/fixtures/codex/codex-standin.mjs) plays in the other tests, done by the CLI
 * itself. The model's tool is what 0.171.0 gives it: `exec`, a custom tool whose input is
 * JavaScript calling the CLI's nested tools (tools.exec_command runs a shell command in its sandbox).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harnessProcess, runCli } from '../../helpers/cli.js';
import { pathAppears } from '../../helpers/file-appears.js';
import { fakeResponses, usageLimitBody, type FakeResponses, type ResponsesReply, type ResponsesUsage } from '../../helpers/fake-models/openai-responses.js';
import { codexFakeArgs, movableClock, realCliEnv, resetTwoDaysOn } from '../../helpers/fake-models/real-cli-env.js';
import { realCli } from '../../helpers/real-cli.js';
import { git, makeRepo, SPEC_DIR, specTree, type StepPlan } from '../../helpers/repo.js';

const codex = realCli('codex');
const SESSIONS = '.orchestration/SPC-007/sessions';
const INTEGRATION = 'harness/SPC-007/integration';

/** The model's call of codex's `exec` tool that runs `cmd` in the CLI's shell (its sandbox), and hands the output back. */
export function shell(cmd: string, usage?: ResponsesUsage): ResponsesReply {
  return { custom: { name: 'exec', input: `const r = await tools.exec_command(${JSON.stringify({ cmd })});\ntext(r.output);` }, ...(usage ? { usage } : {}) };
}

/**
 * The conversation a request carries, one line an item (the CLI's developer messages and tool
 * list left out): "user: …", "assistant: …", "call: <the exec tool's input>", "output: …".
 */
function conversation(body: { input?: unknown[] }): string[] {
  const texts = (content: unknown) => (Array.isArray(content) ? content.map((c: { text?: string }) => c.text ?? '').join('') : String(content ?? ''));
  return (body.input ?? []).flatMap((raw) => {
    const item = raw as { type?: string; role?: string; content?: unknown; input?: string; output?: unknown };
    if (item.type === 'message' && (item.role === 'user' || item.role === 'assistant')) return [`${item.role}: ${texts(item.content)}`];
    if (item.type === 'custom_tool_call') return [`call: ${item.input}`];
    if (item.type === 'custom_tool_call_output') return [`output: ${texts(item.output)}`];
    return [];
  });
}

/** The plan's result.json. */
function resultOf(
  root: string,
  id: string,
): { outcome: string; reason?: string; usage?: { turns?: number; inputTokens?: number; outputTokens?: number; costUsd?: number } } {
  return JSON.parse(readFileSync(join(root, SESSIONS, id, 'result.json'), 'utf8')) as ReturnType<typeof resultOf>;
}

/** The JSONL events harness kept of the plan's codex runs. */
function events(root: string, id: string): Record<string, unknown>[] {
  return readFileSync(join(root, SESSIONS, id, 'logs/codex.log'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The request's thread, as the CLI names it in client_metadata. */
function threadOf(body: Record<string, unknown>): string {
  return (body.client_metadata as { thread_id: string }).thread_id;
}

const servers: FakeResponses[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** agents.codex's settings beside the fake's (max_turns, price). */
type CodexConfig = { max_turns?: number; price?: { input_per_million: number; cached_input_per_million?: number; output_per_million: number } };

async function setUp(plans: StepPlan[], replies: ResponsesReply[], codexConfig: CodexConfig = {}) {
  const model = await fakeResponses(replies);
  servers.push(model);
  const config = { agent: 'codex', agents: { codex: { extra_args: codexFakeArgs(model.baseUrl), ...codexConfig } } };
  const root = await makeRepo({ ...specTree(plans), '.github/harness.yml': `${JSON.stringify(config, null, 2)}\n` });
  const env = await realCliEnv([codex!]);
  return { model, root, env };
}

describe.skipIf(!codex)(`harness run --agent codex with the real codex ${codex?.version ?? ''} against a fake Responses API`, () => {
  it("runs a two-plan spec to verified: the CLI is given harness's brief, runs the model's command in its sandbox, and the plans' checks pass", async () => {
    const { model, root, env } = await setUp(
      [
        { id: '01-01', steps: [], body: 'Write out/01-01.txt.' },
        { id: '01-02', dependsOn: ['01-01'], steps: [], body: 'Write out/01-02.txt.' },
      ],
      [
        shell("mkdir -p out && printf 'one\\n' > out/01-01.txt"),
        { text: 'Wrote out/01-01.txt.' },
        shell("printf 'two\\n' > out/01-02.txt"),
        { text: 'Wrote out/01-02.txt.' },
      ],
    );

    const run = await harnessProcess(['run', SPEC_DIR], root, env);

    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('2/2 plans verified');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('one\n');
    expect(git(root, 'show', `${INTEGRATION}:out/01-02.txt`)).toBe('two\n');
    const requests = model.responses();
    expect(requests).toHaveLength(4);
    expect(model.pending()).toBe(0);
    // Each plan's first request carries harness's brief for it as the user's message.
    const brief = conversation(requests[0]!.body).at(-1)!;
    expect(brief).toMatch(/^user: # Plan 01-01 of SPC-007: Plan 01-01\n/);
    expect(brief).toContain('Write out/01-01.txt.');
    expect(conversation(requests[2]!.body).at(-1)).toMatch(/^user: # Plan 01-02 of SPC-007/);
    // The command ran, and what it said went back to the model.
    expect(conversation(requests[1]!.body).slice(-2)).toEqual([
      `call: ${(shell("mkdir -p out && printf 'one\\n' > out/01-01.txt") as { custom: { input: string } }).custom.input}`,
      expect.stringMatching(/^output: Script completed\n/),
    ]);
    // harness's reporting server is there for the model: its tools are the CLI's mcp__harness namespace.
    expect(JSON.stringify(requests[0]!.body.input)).toContain('mcp__harness');
    for (const id of ['01-01', '01-02']) {
      const result = JSON.parse(readFileSync(join(root, SESSIONS, `${id}/result.json`), 'utf8')) as { outcome: string };
      expect(result.outcome).toBe('verified');
    }
    // Only the fake model was asked anything.
    expect(model.requests.every((r) => r.method === 'POST' && r.url === '/v1/responses')).toBe(true);
  });

  it("pauses a plan at the model's usage limit (exit 75, the reset named, not an attempt, its dependant waiting), and after the reset resumes the same thread and finishes", async () => {
    const start = new Date();
    const resetsAt = resetTwoDaysOn(start);
    const { model, root, env } = await setUp(
      [
        { id: '01-01', steps: [], body: 'Write out/01-01.txt.' },
        { id: '01-02', dependsOn: ['01-01'], steps: [], body: 'Write out/01-02.txt.' },
      ],
      [shell("mkdir -p out && printf 'half\\n' > out/01-01.txt"), { status: 429, body: usageLimitBody(resetsAt) }],
    );
    const clock = movableClock(start);

    const first = await runCli(['run', SPEC_DIR], root, { env, clock });

    const iso = resetsAt.toISOString();
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(75);
    expect(first.stderr).toContain(`harness run: 01-01 paused at the model's usage limit until ${iso}; resume then with: harness run ${SPEC_DIR}`);
    expect(first.stdout).toContain('1 paused at the usage limit');
    expect(first.stdout).not.toContain('FAILED');
    const status = JSON.parse(readFileSync(join(root, SESSIONS, '01-01/status.json'), 'utf8')) as {
      state: string;
      attempt: number;
      pause: { resetsAt: string };
      reason?: string;
    };
    expect(status).toMatchObject({ state: 'paused', attempt: 1, pause: { resetsAt: iso } });
    expect(JSON.stringify(status)).toContain("codex stopped at the model's usage limit: You’ve hit your usage limit.");
    expect(existsSync(join(root, SESSIONS, '01-01/result.json'))).toBe(false);
    expect(existsSync(join(root, SESSIONS, '01-02'))).toBe(false);
    expect(git(root, 'ls-tree', '-r', '--name-only', INTEGRATION)).not.toMatch(/signals\/|01-01-SUMMARY\.md/);
    expect(clock.timers).toEqual([]);
    const [wrote, limited] = model.responses();
    const thread = threadOf(wrote!.body);
    expect(conversation(limited!.body).at(-1)).toMatch(/^output: Script completed/);

    // After the reset: the thread is resumed, told to go on, and both plans finish.
    model.reply(shell("printf 'one\\n' > out/01-01.txt"), { text: 'Wrote it.' }, shell("printf 'two\\n' > out/01-02.txt"), { text: 'Wrote it.' });
    clock.at = new Date(resetsAt.getTime() + 60_000);
    const second = await runCli(['run', SPEC_DIR], root, { env, clock });

    expect(second.code, `${second.stdout}\n${second.stderr}`).toBe(0);
    expect(second.stdout).toContain('01-01 resumed');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('one\n');
    expect(git(root, 'show', `${INTEGRATION}:out/01-02.txt`)).toBe('two\n');
    const resumed = model.responses()[2]!;
    // The CLI's own session, continued: the same thread, its request holding the first run's conversation, then harness's word to go on.
    expect(threadOf(resumed.body)).toBe(thread);
    const said = conversation(resumed.body);
    const before = conversation(limited!.body).slice(-3);
    expect(before[0]).toMatch(/^user: # Plan 01-01 of SPC-007/);
    const at = said.indexOf(before[0]!);
    expect(said.slice(at, at + 3)).toEqual(before);
    expect(said[at + 3]).toMatch(/^user: A person answered checkpoint "usage-limit" \(action\)/);
    expect(git(root, 'show', `${INTEGRATION}:${SPEC_DIR}/execution/phases/01-phase/01-01-SUMMARY.md`)).toMatch(/^attempts: 1\b/m);
  });

  it("resumes the CLI's own session after a checkpoint: the model asks a person, harness respond answers, and the thread goes on with the answer", async () => {
    const { model, root, env } = await setUp(
      [{ id: '01-01', extra: 'autonomous: false\ncheckpoints: [decision]', steps: [], body: 'Write out/01-01.txt with the store a person chooses.' }],
      [
        shell("mkdir -p out && printf 'asked\\n' > out/01-01.txt"),
        {
          text: 'Which store?\nHARNESS_CHECKPOINT {"kind":"decision","prompt":"Which store should the service use?","options":["memory","file"],"id":"storage"}',
        },
      ],
    );

    const running = harnessProcess(['run', SPEC_DIR], root, env);
    await pathAppears(join(root, SESSIONS, '01-01/checkpoint.json'));
    expect(model.responses()).toHaveLength(2);
    model.reply(shell("printf 'file\\n' > out/01-01.txt"), { text: 'Wrote it with the file store.' });
    expect((await runCli(['respond', SPEC_DIR, '01-01', 'file'], root)).code).toBe(0);
    const run = await running;

    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('file\n');
    const [, closed, resumed] = model.responses();
    expect(threadOf(resumed!.body)).toBe(threadOf(closed!.body));
    // The first run's conversation (the brief, the call, its output, the closing question), then the answer.
    const said = conversation(resumed!.body);
    const before = conversation(closed!.body).slice(-3);
    expect(before[0]).toMatch(/^user: # Plan 01-01 of SPC-007/);
    const at = said.indexOf(before[0]!);
    expect(said.slice(at, at + 3)).toEqual(before);
    expect(said[at + 3]).toMatch(/^assistant: Which store\?\nHARNESS_CHECKPOINT /);
    expect(said[at + 4]).toMatch(/^user: .*answered checkpoint "storage".*file/s);
  });
  it('counts turns as harness says codex takes them: max_turns 1 lets the plan run one command and say it is done (the closing message is no turn of its own)', async () => {
    const { model, root, env } = await setUp(
      [{ id: '01-01', steps: [], body: 'Write out/01-01.txt.' }],
      [shell("mkdir -p out && printf 'one\\n' > out/01-01.txt"), { text: 'Wrote out/01-01.txt.' }],
      { max_turns: 1 },
    );

    const run = await harnessProcess(['run', SPEC_DIR], root, env);

    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('1/1 plans verified');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('one\n');
    expect(model.responses()).toHaveLength(2);
    // What the real CLI printed: one command, then the closing message, in one turn of its own.
    const items = events(root, '01-01')
      .filter((e) => e.type === 'item.completed')
      .map((e) => (e.item as { type: string }).type);
    expect(items).toEqual(['command_execution', 'agent_message']);
    expect(resultOf(root, '01-01')).toMatchObject({ outcome: 'verified', usage: { turns: 1 } });
  });

  it('stops a plan whose model runs more commands than max_turns allows: failed, not retried, the run stopped at the turn past the limit', async () => {
    const { model, root, env } = await setUp(
      [{ id: '01-01', steps: [], body: 'Write out/01-01.txt.' }],
      [
        shell("mkdir -p out && printf 'one\\n' > out/01-01.txt"),
        shell("printf 'two\\n' >> out/01-01.txt"),
        shell("printf 'three\\n' >> out/01-01.txt"),
        { text: 'Wrote out/01-01.txt.' },
      ],
      { max_turns: 1 },
    );

    const run = await harnessProcess(['run', SPEC_DIR], root, env);

    const reason = 'codex stopped at its turn limit (max_turns 1; the run was stopped at turn 2)';
    expect(run.code, `${run.stdout}\n${run.stderr}`).not.toBe(0);
    expect(run.stdout).toContain(`01-01 FAILED: the codex agent failed: ${reason}`);
    expect(resultOf(root, '01-01')).toMatchObject({ outcome: 'failed', reason: `the codex agent failed: ${reason}`, usage: { turns: 2 }, attempt: 1 });
    // Stopped as the second command completed: the third never ran, and nothing was merged.
    const commands = events(root, '01-01').filter((e) => e.type === 'item.completed' && (e.item as { type: string }).type === 'command_execution');
    expect(commands).toHaveLength(2);
    expect(model.responses().length).toBeLessThanOrEqual(3);
    expect(git(root, 'ls-tree', '-r', '--name-only', INTEGRATION)).not.toContain('out/01-01.txt');
  });

  it('stops a plan whose tokens, at agents.codex.price, cost more than its budget_usd: failed with both figures, the cost recorded', async () => {
    const { model, root, env } = await setUp(
      [{ id: '01-01', extra: 'budget_usd: 0.5', steps: [], body: 'Write out/01-01.txt.' }],
      [
        shell("mkdir -p out && printf 'one\\n' > out/01-01.txt", { input_tokens: 200_000, output_tokens: 1_000 }),
        { text: 'Wrote out/01-01.txt.', usage: { input_tokens: 210_000, output_tokens: 500 } },
      ],
      { price: { input_per_million: 2, output_per_million: 8 } },
    );

    const run = await harnessProcess(['run', SPEC_DIR], root, env);

    // The tokens the CLI reported as its turn completed, at the price: what harness counts.
    const completed = events(root, '01-01')
      .filter((e) => e.type === 'turn.completed')
      .at(-1)!.usage as { input_tokens: number; output_tokens: number };
    const cost = (completed.input_tokens * 2 + completed.output_tokens * 8) / 1e6;
    expect(cost).toBeGreaterThan(0.5);
    const reason = `codex spent $${cost.toFixed(2)}, over the plan's budget of $0.50 (budget_usd): stopped`;
    expect(run.code, `${run.stdout}\n${run.stderr}`).not.toBe(0);
    expect(run.stdout).toContain(`01-01 FAILED: the codex agent failed: ${reason}`);
    const result = resultOf(root, '01-01');
    expect(result).toMatchObject({
      outcome: 'failed',
      reason: `the codex agent failed: ${reason}`,
      usage: { inputTokens: completed.input_tokens, outputTokens: completed.output_tokens },
    });
    expect(result.usage!.costUsd).toBeCloseTo(cost, 6);
    expect(model.pending()).toBe(0);
    expect(git(root, 'ls-tree', '-r', '--name-only', INTEGRATION)).not.toContain('out/01-01.txt');
  });
});
