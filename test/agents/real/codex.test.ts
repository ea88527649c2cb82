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
import { fileAppears } from '../../helpers/file-appears.js';
import { fakeResponses, usageLimitBody, type FakeResponses, type ResponsesReply } from '../../helpers/fake-models/openai-responses.js';
import { codexFakeArgs, movableClock, realCliEnv, resetTwoDaysOn } from '../../helpers/fake-models/real-cli-env.js';
import { realCli } from '../../helpers/real-cli.js';
import { git, makeRepo, SPEC_DIR, specTree, type StepPlan } from '../../helpers/repo.js';

const codex = realCli('codex');
const SESSIONS = '.orchestration/SPC-007/sessions';
const INTEGRATION = 'harness/SPC-007/integration';

/** The model's call of codex's `exec` tool that runs `cmd` in the CLI's shell (its sandbox), and hands the output back. */
export function shell(cmd: string): ResponsesReply {
  return { custom: { name: 'exec', input: `const r = await tools.exec_command(${JSON.stringify({ cmd })});\ntext(r.output);` } };
}

/** The text of every input_text / output_text in a request's input, one string. */
function inputText(body: { input?: unknown[] }): string {
  return JSON.stringify(body.input ?? []);
}

const servers: FakeResponses[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setUp(plans: StepPlan[], replies: ResponsesReply[]) {
  const model = await fakeResponses(replies);
  servers.push(model);
  const config = { agent: 'codex', agents: { codex: { extra_args: codexFakeArgs(model.baseUrl) } } };
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
      [shell("mkdir -p out && printf 'one\\n' > out/01-01.txt"), { text: 'Wrote out/01-01.txt.' }, shell("printf 'two\\n' > out/01-02.txt"), { text: 'Wrote out/01-02.txt.' }],
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
    expect(inputText(requests[0]!.body)).toContain('Write out/01-01.txt.');
    expect(inputText(requests[0]!.body)).toContain('HARNESS_CHECKPOINT');
    expect(inputText(requests[2]!.body)).toContain('Write out/01-02.txt.');
    // The command ran, and what it said went back to the model with the call's id.
    const output = requests[1]!.body.input!.find((i) => (i as { type?: string }).type === 'custom_tool_call_output') as { call_id: string; output: { text: string }[] };
    expect(output.output.map((o) => o.text).join('')).toContain('Script completed');
    // harness's reporting tools were there for the model: the exec tool's nested tools name them.
    expect(JSON.stringify(requests[0]!.body.input![0])).toContain('mcp__harness__harness_worker_report');
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
    const status = JSON.parse(readFileSync(join(root, SESSIONS, '01-01/status.json'), 'utf8')) as { state: string; attempt: number; pause: { resetsAt: string }; reason?: string };
    expect(status).toMatchObject({ state: 'paused', attempt: 1, pause: { resetsAt: iso } });
    expect(JSON.stringify(status)).toContain("codex stopped at the model's usage limit: You’ve hit your usage limit.");
    expect(existsSync(join(root, SESSIONS, '01-01/result.json'))).toBe(false);
    expect(existsSync(join(root, SESSIONS, '01-02'))).toBe(false);
    expect(git(root, 'ls-tree', '-r', '--name-only', INTEGRATION)).not.toMatch(/signals\/|01-01-SUMMARY\.md/);
    expect(clock.timers).toEqual([]);
    const [paused, limited] = model.responses();
    const thread = (paused!.body.client_metadata as { thread_id: string }).thread_id;

    // After the reset: the thread is resumed, told to go on, and both plans finish.
    model.reply(shell("printf 'one\\n' > out/01-01.txt"), { text: 'Wrote it.' }, shell("printf 'two\\n' > out/01-02.txt"), { text: 'Wrote it.' });
    clock.at = new Date(resetsAt.getTime() + 60_000);
    const second = await runCli(['run', SPEC_DIR], root, { env, clock });

    expect(second.code, `${second.stdout}\n${second.stderr}`).toBe(0);
    expect(second.stdout).toContain('01-01 resumed');
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('one\n');
    expect(git(root, 'show', `${INTEGRATION}:out/01-02.txt`)).toBe('two\n');
    const resumed = model.responses()[2]!;
    // The CLI's own session, continued: the same thread, and the request holds what the first run's had (the brief, the model's call and its output) before the answer.
    expect((resumed.body.client_metadata as { thread_id: string }).thread_id).toBe(thread);
    const text = inputText(resumed.body);
    expect(text).toContain('Write out/01-01.txt.');
    expect(text).toContain("printf 'half\\\\\\\\n' > out/01-01.txt");
    expect(text.indexOf('Write out/01-01.txt.')).toBeLessThan(text.indexOf('A person answered checkpoint \\"usage-limit\\"'));
    expect(inputText(limited!.body)).toContain('Script completed');
    expect(git(root, 'show', `${INTEGRATION}:${SPEC_DIR}/execution/phases/01-phase/01-01-SUMMARY.md`)).toMatch(/^attempts: 1\b/m);
  });

  it("resumes the CLI's own session after a checkpoint: the model asks a person, harness respond answers, and the thread goes on with the answer", async () => {
    const { model, root, env } = await setUp(
      [{ id: '01-01', extra: 'autonomous: false\ncheckpoints: [decision]', steps: [], body: 'Write out/01-01.txt with the store a person chooses.' }],
      [shell("mkdir -p out && printf 'asked\\n' > out/01-01.txt"), { text: 'Which store?\nHARNESS_CHECKPOINT {"kind":"decision","prompt":"Which store should the service use?","options":["memory","file"],"id":"storage"}' }],
    );

    const running = harnessProcess(['run', SPEC_DIR], root, env);
    await fileAppears(join(root, SESSIONS, '01-01/checkpoint.json'));
    expect(model.responses()).toHaveLength(2);
    model.reply(shell("printf 'file\\n' > out/01-01.txt"), { text: 'Wrote it with the file store.' });
    expect((await runCli(['respond', SPEC_DIR, '01-01', 'file'], root)).code).toBe(0);
    const run = await running;

    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('file\n');
    const [asked, , resumed] = model.responses();
    expect((resumed!.body.client_metadata as { thread_id: string }).thread_id).toBe((asked!.body.client_metadata as { thread_id: string }).thread_id);
    const text = inputText(resumed!.body);
    // The first run's messages (the brief, the call, its closing question), then the answer.
    expect(text).toContain('Write out/01-01.txt with the store a person chooses.');
    expect(text).toContain('Which store?\\nHARNESS_CHECKPOINT');
    expect(text.indexOf('HARNESS_CHECKPOINT {')).toBeLessThan(text.lastIndexOf('file'));
    expect(text).toMatch(/answered checkpoint \\"storage\\"/);
  });
});
