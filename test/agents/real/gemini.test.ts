/**
 * `harness run --agent gemini` with the real Gemini CLI (@google/gemini-cli 0.61.0,
 * test/helpers/real-cli.ts) against a fake Gemini API on 127.0.0.1
 * (test/helpers/fake-models/gemini.ts; GOOGLE_GEMINI_BASE_URL with GEMINI_API_KEY): what the
 * stand-in (test/fixtures/gemini/gemini-standin.mjs) plays in the other tests, done by the CLI
 * itself; and agents.fallback from the real codex at its usage limit to the real gemini.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nextPacificMidnight } from '../../../app/engine/core/agents/gemini-limit.js';
import { harnessProcess, runCli } from '../../helpers/cli.js';
import { pathAppears } from '../../helpers/file-appears.js';
import { dailyQuotaBody, fakeGemini, type FakeGemini, type GeminiReply, type GeminiRequest, type GeminiUsage } from '../../helpers/fake-models/gemini.js';
import { fakeResponses, usageLimitBody, type FakeResponses } from '../../helpers/fake-models/openai-responses.js';
import { codexFakeArgs, movableClock, realCliEnv, resetTwoDaysOn } from '../../helpers/fake-models/real-cli-env.js';
import { realCli } from '../../helpers/real-cli.js';
import { git, makeRepo, SPEC_DIR, specTree, type StepPlan } from '../../helpers/repo.js';

const gemini = realCli('gemini');
const codex = realCli('codex');
const SESSIONS = '.orchestration/SPC-007/sessions';
const INTEGRATION = 'harness/SPC-007/integration';
const MODEL = 'gemini-2.5-pro';

/** The model's call of the CLI's write_file tool. */
function writeFile(path: string, content: string, usage?: GeminiUsage): GeminiReply {
  return { call: { name: 'write_file', args: { file_path: path, content } }, ...(usage ? { usage } : {}) };
}

/** The conversation a request carries, one line a part: "user: …", "model: …", "call: name {args}", "response: name {…}". */
function conversation(request: GeminiRequest): string[] {
  return (request.body.contents ?? []).flatMap((c) =>
    c.parts.map((p) =>
      p.functionCall
        ? `call: ${p.functionCall.name} ${JSON.stringify(p.functionCall.args)}`
        : p.functionResponse
          ? `response: ${p.functionResponse.name} ${JSON.stringify(p.functionResponse.response)}`
          : `${c.role}: ${p.text ?? ''}`,
    ),
  );
}

/** The plan's result.json. */
function resultOf(
  root: string,
  id: string,
): { outcome: string; reason?: string; attempt?: number; usage?: { turns?: number; inputTokens?: number; outputTokens?: number; costUsd?: number } } {
  return JSON.parse(readFileSync(join(root, SESSIONS, id, 'result.json'), 'utf8')) as ReturnType<typeof resultOf>;
}

/** The stream-json events harness kept of the plan's gemini runs. */
function events(root: string, id: string): Record<string, unknown>[] {
  return readFileSync(join(root, SESSIONS, id, 'logs/gemini.log'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const servers: (FakeGemini | FakeResponses)[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** agents.gemini's settings beside the model (max_turns, price). */
type GeminiConfig = { max_turns?: number; price?: { input_per_million: number; output_per_million: number } };

async function setUp(plans: StepPlan[], replies: GeminiReply[], geminiConfig: GeminiConfig = {}) {
  const model = await fakeGemini(replies);
  servers.push(model);
  const config = { agent: 'gemini', agents: { gemini: { model: MODEL, ...geminiConfig } } };
  const root = await makeRepo({ ...specTree(plans), '.github/harness.yml': `${JSON.stringify(config, null, 2)}\n` });
  const env = await realCliEnv([gemini!], { GOOGLE_GEMINI_BASE_URL: model.baseUrl });
  return { model, root, env };
}

describe.skipIf(!gemini)(`harness run --agent gemini with the real gemini ${gemini?.version ?? ''} against a fake Gemini API`, () => {
  it("runs a two-plan spec to verified: the CLI is given harness's brief, writes the model's file, and the plans' checks pass", async () => {
    const { model, root, env } = await setUp(
      [
        { id: '01-01', steps: [], body: 'Write out/01-01.txt.' },
        { id: '01-02', dependsOn: ['01-01'], steps: [], body: 'Write out/01-02.txt.' },
      ],
      [writeFile('out/01-01.txt', 'one\n'), { text: 'Wrote out/01-01.txt.' }, writeFile('out/01-02.txt', 'two\n'), { text: 'Wrote out/01-02.txt.' }],
    );

    const run = await harnessProcess(['run', SPEC_DIR], root, env);

    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('2/2 plans verified');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('one\n');
    expect(git(root, 'show', `${INTEGRATION}:out/01-02.txt`)).toBe('two\n');
    const requests = model.generations();
    expect(requests).toHaveLength(4);
    expect(model.pending()).toBe(0);
    expect(requests.every((r) => r.url === `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse` && r.headers['x-goog-api-key'] === 'fake-gemini-key')).toBe(
      true,
    );
    expect(conversation(requests[0]!).at(-1)).toMatch(/^user: # Plan 01-01 of SPC-007: Plan 01-01\n[\s\S]*Write out\/01-01\.txt\./);
    expect(conversation(requests[2]!).at(-1)).toMatch(/^user: # Plan 01-02 of SPC-007/);
    // The file was written, and the tool's result went back to the model.
    expect(conversation(requests[1]!).slice(-2)).toEqual([
      `call: write_file ${JSON.stringify({ file_path: 'out/01-01.txt', content: 'one\n' })}`,
      expect.stringMatching(/^response: write_file .*Successfully created and wrote to new file/),
    ]);
    // harness's reporting server is there for the model: its tools are declared.
    expect(JSON.stringify(requests[0]!.body.tools)).toContain('mcp_harness_harness_worker_report');
    for (const id of ['01-01', '01-02'])
      expect((JSON.parse(readFileSync(join(root, SESSIONS, `${id}/result.json`), 'utf8')) as { outcome: string }).outcome).toBe('verified');
    // Only the fake model was asked anything.
    expect(model.requests).toHaveLength(4);
  });

  it('pauses a plan at the daily quota (exit 75, the reset named, not an attempt, its dependant waiting), and after the reset resumes the same session and finishes', async () => {
    const start = new Date();
    const { model, root, env } = await setUp(
      [
        { id: '01-01', steps: [], body: 'Write out/01-01.txt.' },
        { id: '01-02', dependsOn: ['01-01'], steps: [], body: 'Write out/01-02.txt.' },
      ],
      [writeFile('out/01-01.txt', 'half\n'), { status: 429, body: dailyQuotaBody(MODEL) }],
    );
    const clock = movableClock(start);

    const first = await runCli(['run', SPEC_DIR], root, { env, clock });

    // Gemini names no time: a daily quota resets at midnight Pacific time.
    const resetsAt = nextPacificMidnight(start);
    const iso = resetsAt.toISOString();
    expect(first.code, `${first.stdout}\n${first.stderr}`).toBe(75);
    expect(first.stderr).toContain(`harness run: 01-01 paused at the model's usage limit until ${iso}; resume then with: harness run ${SPEC_DIR}`);
    expect(first.stdout).not.toContain('FAILED');
    const status = JSON.parse(readFileSync(join(root, SESSIONS, '01-01/status.json'), 'utf8')) as {
      state: string;
      attempt: number;
      pause: { resetsAt: string };
    };
    expect(status).toMatchObject({ state: 'paused', attempt: 1, pause: { resetsAt: iso } });
    expect(JSON.stringify(status)).toContain("gemini stopped at the model's quota (429): [API Error: You have exhausted your daily quota on this model.]");
    expect(existsSync(join(root, SESSIONS, '01-01/result.json'))).toBe(false);
    expect(existsSync(join(root, SESSIONS, '01-02'))).toBe(false);
    expect(git(root, 'ls-tree', '-r', '--name-only', INTEGRATION)).not.toMatch(/signals\/|01-01-SUMMARY\.md/);
    const limited = model.generations()[1]!;

    model.reply(writeFile('out/01-01.txt', 'one\n'), { text: 'Wrote it.' }, writeFile('out/01-02.txt', 'two\n'), { text: 'Wrote it.' });
    clock.at = new Date(resetsAt.getTime() + 60_000);
    const second = await runCli(['run', SPEC_DIR], root, { env, clock });

    expect(second.code, `${second.stdout}\n${second.stderr}`).toBe(0);
    expect(second.stdout).toContain('01-01 resumed');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('one\n');
    expect(git(root, 'show', `${INTEGRATION}:out/01-02.txt`)).toBe('two\n');
    // The CLI's own session, continued: the request holds the first run's conversation (the brief, the call, its result), then harness's word to go on.
    const said = conversation(model.generations()[2]!);
    const before = conversation(limited).slice(-3);
    expect(before[0]).toMatch(/^user: # Plan 01-01 of SPC-007/);
    const at = said.indexOf(before[0]!);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(said.slice(at, at + 3)).toEqual(before);
    // (0.61.0 puts the stopped turn back as it left it: the tool's result, and "[The previous response was interrupted…]".)
    expect(said.slice(at + 3).join('\n')).toMatch(/\nuser: A person answered checkpoint "usage-limit" \(action\)/);
    expect(git(root, 'show', `${INTEGRATION}:${SPEC_DIR}/execution/phases/01-phase/01-01-SUMMARY.md`)).toMatch(/^attempts: 1\b/m);
  });

  it("resumes the CLI's own session after a checkpoint: the model asks a person, harness respond answers, and the session goes on with the answer", async () => {
    const { model, root, env } = await setUp(
      [{ id: '01-01', extra: 'autonomous: false\ncheckpoints: [decision]', steps: [], body: 'Write out/01-01.txt with the store a person chooses.' }],
      [
        writeFile('out/01-01.txt', 'asked\n'),
        {
          text: 'Which store?\nHARNESS_CHECKPOINT {"kind":"decision","prompt":"Which store should the service use?","options":["memory","file"],"id":"storage"}',
        },
      ],
    );

    const running = harnessProcess(['run', SPEC_DIR], root, env);
    await pathAppears(join(root, SESSIONS, '01-01/checkpoint.json'));
    expect(model.generations()).toHaveLength(2);
    model.reply(writeFile('out/01-01.txt', 'file\n'), { text: 'Wrote it with the file store.' });
    expect((await runCli(['respond', SPEC_DIR, '01-01', 'file'], root)).code).toBe(0);
    const run = await running;

    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('file\n');
    const [, closed, resumed] = model.generations();
    const said = conversation(resumed!);
    const before = conversation(closed!).slice(-3);
    expect(before[0]).toMatch(/^user: # Plan 01-01 of SPC-007/);
    const at = said.indexOf(before[0]!);
    expect(at).toBeGreaterThanOrEqual(0);
    expect(said.slice(at, at + 3)).toEqual(before);
    expect(said.slice(at + 3).join('\n')).toMatch(/\nmodel: Which store\?\nHARNESS_CHECKPOINT [^\n]*\nuser: [\s\S]*answered checkpoint "storage"[\s\S]*file/);
  });
  it("holds max_turns as the CLI's own model.maxSessionTurns: 2 lets a write and the answer through, verified", async () => {
    const { model, root, env } = await setUp(
      [{ id: '01-01', steps: [], body: 'Write out/01-01.txt.' }],
      [writeFile('out/01-01.txt', 'one\n'), { text: 'Wrote out/01-01.txt.' }],
      { max_turns: 2 },
    );

    const run = await harnessProcess(['run', SPEC_DIR], root, env);

    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain('1/1 plans verified');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('one\n');
    expect(model.generations()).toHaveLength(2);
    expect(resultOf(root, '01-01')).toMatchObject({ outcome: 'verified', usage: { turns: 2 } });
  });

  it("stops a plan at the CLI's own turn limit (max_turns 1: the write's result is a second turn): failed with the CLI's words, not retried", async () => {
    const { model, root, env } = await setUp(
      [{ id: '01-01', steps: [], body: 'Write out/01-01.txt.' }],
      [writeFile('out/01-01.txt', 'one\n'), { text: 'Wrote out/01-01.txt.' }],
      { max_turns: 1 },
    );

    const run = await harnessProcess(['run', SPEC_DIR], root, env);

    const reason =
      'the gemini agent failed: gemini stopped at its turn limit (1 turn): Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.';
    expect(run.code, `${run.stdout}\n${run.stderr}`).not.toBe(0);
    expect(run.stdout).toContain(`01-01 FAILED: ${reason}`);
    // The CLI stopped itself: its result says so, and the model was not asked for the answer.
    expect(events(root, '01-01').find((e) => e.type === 'result')).toMatchObject({ status: 'error', error: { type: 'FatalTurnLimitedError' } });
    expect(model.generations()).toHaveLength(1);
    expect(resultOf(root, '01-01')).toMatchObject({ outcome: 'failed', reason, attempt: 1, usage: { turns: 1 } });
    expect(git(root, 'ls-tree', '-r', '--name-only', INTEGRATION)).not.toContain('out/01-01.txt');
  });

  it('stops a plan whose tokens, at agents.gemini.price, cost more than its budget_usd: failed with both figures, the cost recorded', async () => {
    const { model, root, env } = await setUp(
      [{ id: '01-01', extra: 'budget_usd: 0.5', steps: [], body: 'Write out/01-01.txt.' }],
      [
        writeFile('out/01-01.txt', 'one\n', { promptTokenCount: 200_000, candidatesTokenCount: 1_000 }),
        { text: 'Wrote out/01-01.txt.', usage: { promptTokenCount: 210_000, candidatesTokenCount: 500 } },
      ],
      { price: { input_per_million: 2, output_per_million: 8 } },
    );

    const run = await harnessProcess(['run', SPEC_DIR], root, env);

    // The tokens the CLI's result reported, at the price: what harness counts.
    const stats = events(root, '01-01').find((e) => e.type === 'result')!.stats as { input_tokens: number; output_tokens: number };
    const cost = (stats.input_tokens * 2 + stats.output_tokens * 8) / 1e6;
    expect(cost).toBeGreaterThan(0.5);
    const reason = `the gemini agent failed: gemini spent $${cost.toFixed(2)}, over the plan's budget of $0.50 (budget_usd): stopped`;
    expect(run.code, `${run.stdout}\n${run.stderr}`).not.toBe(0);
    expect(run.stdout).toContain(`01-01 FAILED: ${reason}`);
    const result = resultOf(root, '01-01');
    expect(result).toMatchObject({ outcome: 'failed', reason, usage: { inputTokens: stats.input_tokens, outputTokens: stats.output_tokens } });
    expect(result.usage!.costUsd).toBeCloseTo(cost, 6);
    expect(model.pending()).toBe(0);
    expect(git(root, 'ls-tree', '-r', '--name-only', INTEGRATION)).not.toContain('out/01-01.txt');
  });
});

describe.skipIf(!gemini || !codex)('harness run with agents.fallback: [gemini], the real codex at its usage limit', () => {
  it('goes on with the real gemini, which finishes the plan; SUMMARY.md names both engines', async () => {
    const responses = await fakeResponses();
    const model = await fakeGemini();
    servers.push(responses, model);
    responses.reply(
      {
        custom: {
          name: 'exec',
          input: `const r = await tools.exec_command(${JSON.stringify({ cmd: "mkdir -p out && printf 'half\\n' > out/01-01.txt" })});\ntext(r.output);`,
        },
      },
      { status: 429, body: usageLimitBody(resetTwoDaysOn(new Date())) },
    );
    model.reply(writeFile('out/01-01.txt', 'whole\n'), { text: 'Finished what codex began.' });
    const config = { agent: 'codex', agents: { fallback: ['gemini'], codex: { extra_args: codexFakeArgs(responses.baseUrl) }, gemini: { model: MODEL } } };
    const root = await makeRepo({
      ...specTree([{ id: '01-01', steps: [], body: 'Write out/01-01.txt.' }]),
      '.github/harness.yml': `${JSON.stringify(config, null, 2)}\n`,
    });
    const env = await realCliEnv([codex!, gemini!], { GOOGLE_GEMINI_BASE_URL: model.baseUrl });

    const run = await harnessProcess(['run', SPEC_DIR], root, env);

    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain("codex stopped at the model's usage limit: gemini takes the plan over (agents.fallback)");
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('whole\n');
    expect(responses.responses()).toHaveLength(2);
    // gemini is told what codex did and where it stopped.
    const brief = conversation(model.generations()[0]!).at(-1)!;
    expect(brief).toContain('## Taking over');
    expect(brief).toMatch(/\n- codex stopped at the model's usage limit: You’ve hit your usage limit\./);
    expect((JSON.parse(readFileSync(join(root, SESSIONS, '01-01/result.json'), 'utf8')) as { outcome: string }).outcome).toBe('verified');
    const summary = git(root, 'show', `${INTEGRATION}:${SPEC_DIR}/execution/phases/01-phase/01-01-SUMMARY.md`);
    expect(summary).toMatch(/^agent: gemini$/m);
    expect(summary).toMatch(
      /Engines, in order \(agents\.fallback\):\n- codex \([^)]*\): codex stopped at the model's usage limit: You’ve hit your usage limit\./,
    );
    expect(summary).toMatch(/\n- gemini \([^)]*\): finished the attempt/);
  });
});
