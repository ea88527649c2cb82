import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GeminiAgent } from '../../app/agents/gemini.js';
import { geminiHome, geminiSessions } from '../../app/agents/gemini-session.js';
import { readGeminiState } from '../../app/agents/gemini-session.js';
import { commitsSince, ENVELOPE, makeRepo, planFrom, testWorker } from '../helpers/agent-context.js';
import { standInGemini } from '../helpers/gemini-standin.js';

const PLAN = [
  '---',
  'plan_id: "01-02"',
  'title: Note store',
  'files_modified: [src/store.js]',
  'autonomous: false',
  'must_pass:',
  '  - { id: module, type: file_exists, path: src/store.js }',
  '---',
  '# Note store',
  '',
  'Write the store.',
].join('\n');

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function setup(calls: Record<string, unknown>[][], files: Record<string, string> = {}) {
  const { repo, logDir, base } = await makeRepo({ 'README.md': '# notes\n', ...files });
  const gemini = await standInGemini(calls);
  made.push(gemini.bin);
  return { repo, logDir, base, gemini, plan: planFrom(PLAN) };
}
const flag = (args: string[], name: string) => args[args.indexOf(name) + 1];

describe('gemini agent: a headless Gemini CLI run', () => {
  it('runs gemini -p with the brief, reports through the harness MCP server of its own home, and answers its question through harness_worker_await', async () => {
    // The repository's own servers are not the worker agent's.
    const own = { '.gemini/settings.json': JSON.stringify({ mcpServers: { github: { command: 'node', args: ['nothing.js'] } } }) };
    const { repo, logDir, base, gemini, plan } = await setup(
      [
        [
          { report: { type: 'session_ready' } },
          { report: { type: 'task_started', task: 1, total: 1, title: 'Write the store' } },
          { write: ['src/store.js', 'export const store = new Map();\n'] },
          { report: { type: 'decision_needed', checkpoint: 'backend', message: 'Which backend?', options: ['memory', 'file'] } },
          { await: 'backend' },
          { report: { type: 'task_completed', message: 'The store is in place.' } },
          { tokens: [3000, 400] },
          { text: 'The store is in place.' },
        ],
      ],
      own,
    );
    const worker = testWorker({
      repo,
      logDir,
      plan,
      env: gemini.env,
      answer: (c) => ({ ...ENVELOPE, type: 'decision_made', checkpoint: c.id, answer: 'file' }),
    });
    await new GeminiAgent({ price: { inputPerMTok: 1.25, outputPerMTok: 10 } }).run(worker.context);

    expect(worker.asked).toEqual([{ id: 'backend', kind: 'decision', prompt: 'Which backend?', options: ['memory', 'file'], source: 'gemini' }]);
    const done = worker.messages.at(-1)!;
    // Seven turns: the file written is the model's write_file call, a turn of its own as the real CLI counts it (test/fixtures/real-cli/gemini-0.61.0/stream.jsonl).
    expect(done).toMatchObject({
      type: 'task_completed',
      summary: expect.stringContaining('The store is in place.'),
      usage: { turns: 7, inputTokens: 3000, outputTokens: 400, costUsd: 0.00775 },
    });
    expect(worker.messages).toContainEqual({ ...ENVELOPE, type: 'task_started', plan: '01-02', task: 1, total: 1, title: 'Write the store' });
    expect((await commitsSince(repo, base)).map((c) => c.message.split('\n')[0])).toEqual(['01-02: Note store']);

    const [call] = await gemini.calls();
    const home = geminiHome(repo, gemini.env);
    expect(call!.args[0]).toBe('-p');
    expect(call!.args[1]).toContain('harness_worker_await');
    expect(call!.args.slice(2)).toEqual([
      '--output-format',
      'stream-json',
      '--skip-trust',
      '--approval-mode',
      'auto_edit',
      '--allowed-mcp-server-names',
      'harness',
    ]);
    expect(call!.env.GEMINI_CLI_HOME).toBe(home);
    expect(await gemini.servers()).toEqual([{ call: 0, servers: ['harness'] }]);
    // What the CLI read during the run; the file holding the run's reporting token is gone after it.
    const [read] = await gemini.settings();
    const settings = read!.settings as { mcpServers: Record<string, { args: string[]; env: Record<string, string>; trust: boolean }>; privacy: unknown };
    await expect(readFile(join(home, '.gemini/settings.json'), 'utf8')).rejects.toThrow(/ENOENT/);
    expect(Object.keys(settings.mcpServers)).toEqual(['harness']);
    expect(settings.privacy).toEqual({ usageStatisticsEnabled: false });
    expect(settings.mcpServers.harness).toMatchObject({ trust: true, env: { HARNESS_REPORT_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) } });
    expect(settings.mcpServers.harness!.args.at(-1)).toBe('mcp-report');
    expect(JSON.parse(await readFile(join(gemini.bin, 'tools.json'), 'utf8'))).toEqual([
      'mcp_harness_harness_worker_report',
      'mcp_harness_harness_worker_await',
    ]);
  });

  it('where nobody can wait, stops at the question and resumes the session with --resume and the answer', async () => {
    const { repo, logDir, gemini, plan } = await setup([
      [
        { write: ['src/store.js', 'draft\n'] },
        { report: { type: 'decision_needed', checkpoint: 'backend', message: 'Which backend?', options: ['memory', 'file'] } },
        { await: 'backend' },
        { write: ['src/never.js', 'not reached\n'] },
      ],
      [{ recall: 'Which backend?' }, { write: ['src/store.js', 'final\n'] }],
    ]);
    const first = testWorker({ repo, logDir, plan, env: gemini.env });
    const asked = first.waitFor('decision_needed').then(() => first.controller.abort(new Error('waiting for an answer to checkpoint "backend"')));
    await new GeminiAgent().run(first.context);
    await asked;
    const state = await readGeminiState(logDir);
    expect(state).toMatchObject({ sessionId: expect.any(String), checkpoint: { id: 'backend', kind: 'decision', options: ['memory', 'file'] } });

    const second = testWorker({
      repo,
      logDir,
      plan,
      env: gemini.env,
      resume: true,
      answer: (c) => ({ ...ENVELOPE, type: 'decision_made', checkpoint: c.id, answer: 'file' }),
    });
    await new GeminiAgent().run(second.context);
    expect(second.messages.at(-1)).toMatchObject({ type: 'task_completed' });
    const calls = await gemini.calls();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.args[1]).toContain('A person answered checkpoint "backend" (decision).');
    expect(flag(calls[1]!.args, '--resume')).toBe(state.sessionId);
    expect(await readFile(join(repo, 'src/store.js'), 'utf8')).toBe('final\n');
  });

  it("carries the session's file to another runner, where the CLI imports it with --session-file", async () => {
    const { repo, logDir, gemini, plan } = await setup([
      [{ report: { type: 'decision_needed', checkpoint: 'backend', message: 'Which backend?' } }, { await: 'backend' }],
      [{ recall: 'Which backend?' }, { write: ['src/store.js', 'final\n'] }],
    ]);
    const first = testWorker({ repo, logDir, plan, env: gemini.env });
    const asked = first.waitFor('decision_needed').then(() => first.controller.abort(new Error('waiting')));
    await new GeminiAgent().run(first.context);
    await asked;
    const sessionId = (await geminiSessions.current(logDir))!;
    const home = geminiSessions.home(repo, gemini.env);
    const files = await geminiSessions.files(home, sessionId);
    expect(files).toEqual([expect.stringMatching(new RegExp(`^\\.gemini/tmp/[^/]+/chats/session-[0-9T-]+-${sessionId.slice(0, 8)}\\.jsonl$`))]);

    // Another runner: a fresh home with the file put back where the store puts it, and the state seeded.
    const saved = await readFile(join(home, files[0]!), 'utf8');
    const otherHome = join(gemini.bin, 'other-home');
    const env = { ...gemini.env, HOME: otherHome };
    const target = join(geminiSessions.home(repo, env), files[0]!);
    await mkdir(join(target, '..'), { recursive: true });
    await writeFile(target, saved);
    const otherLogs = join(gemini.bin, 'other-logs');
    await geminiSessions.seed(otherLogs, { sessionId, checkpoint: { id: 'backend', kind: 'decision', prompt: 'Which backend?', source: 'gemini' } });

    const second = testWorker({
      repo,
      logDir: otherLogs,
      plan,
      env,
      resume: true,
      answer: (c) => ({ ...ENVELOPE, type: 'decision_made', checkpoint: c.id, answer: 'file' }),
    });
    await new GeminiAgent().run(second.context);
    expect(second.messages.at(-1)).toMatchObject({ type: 'task_completed' });
    const calls = await gemini.calls();
    expect(flag(calls[1]!.args, '--session-file')).toBe(target);
    expect(calls[1]!.args).not.toContain('--resume');
  });
});

describe('gemini agent: limits', () => {
  it('stops at the turn limit (model.maxSessionTurns from max_turns) as a failure, not a retry', async () => {
    const { repo, logDir, gemini, plan } = await setup([
      [{ report: { type: 'session_ready' } }, { report: { type: 'progress_update', message: 'one' } }, { report: { type: 'progress_update', message: 'two' } }],
    ]);
    const worker = testWorker({ repo, logDir, plan, env: gemini.env });
    await new GeminiAgent({ maxTurns: 2 }).run(worker.context);
    expect(worker.messages.at(-1)).toMatchObject({
      type: 'task_failed',
      retryable: false,
      error:
        'gemini stopped at its turn limit (2 turns): Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.',
      usage: { turns: 2 },
    });
    expect((await gemini.settings())[0]!.settings.model).toEqual({ maxSessionTurns: 2 });
  });

  it("stops at the daily quota with the CLI's words and the reset, and keeps the session to resume", async () => {
    const { repo, logDir, gemini, plan } = await setup([[{ report: { type: 'session_ready' } }, { quota: true }]]);
    const worker = testWorker({ repo, logDir, plan, env: gemini.env });
    await new GeminiAgent().run(worker.context);
    const last = worker.messages.at(-1)!;
    expect(last).toMatchObject({ type: 'task_failed', retryable: true });
    expect((last as { error: string }).error).toMatch(
      /^gemini stopped at the model's quota \(429\): \[API Error: You have exhausted your daily quota on this model\.\] Please wait and try again later\. .* \(resets \d{4}-\d{2}-\d{2}T0[78]:00:00\.000Z\)$/,
    );
    expect((await readGeminiState(logDir)).sessionId).toEqual(expect.any(String));
  });

  it('fails over the budget on the priced tokens', async () => {
    const { repo, logDir, gemini, plan } = await setup([[{ write: ['src/store.js', 'x\n'] }, { tokens: [1_000_000, 100_000] }]]);
    const worker = testWorker({ repo, logDir, plan, env: gemini.env });
    await new GeminiAgent({ price: { inputPerMTok: 1.25, outputPerMTok: 10 }, budgetUsd: 1 }).run(worker.context);
    expect(worker.messages.at(-1)).toMatchObject({
      type: 'task_failed',
      retryable: false,
      error: "gemini spent $2.25, over the plan's budget of $1.00 (budget_usd): stopped",
      usage: { costUsd: 2.25 },
    });
  });

  it('says a missing key is the environment, not the plan', async () => {
    const { repo, logDir, gemini, plan } = await setup([[]]);
    const worker = testWorker({ repo, logDir, plan, env: { ...gemini.env, GEMINI_API_KEY: '' } });
    await new GeminiAgent().run(worker.context);
    expect(worker.messages.at(-1)).toMatchObject({
      type: 'task_failed',
      retryable: false,
      environment: true,
      error: expect.stringMatching(/^gemini could not authenticate: set GEMINI_API_KEY/),
    });
  });

  it('behind GOOGLE_GEMINI_BASE_URL with GEMINI_API_KEY, selects the API key auth the base URL is for (0.61.0 would choose its gateway auth and refuse it headless)', async () => {
    const { repo, logDir, gemini, plan } = await setup([[{ write: ['src/store.js', 'x\n'] }, { text: 'done' }]]);
    const worker = testWorker({ repo, logDir, plan, env: { ...gemini.env, GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:8089' } });
    await new GeminiAgent().run(worker.context);
    expect(worker.messages.at(-1)).toMatchObject({ type: 'task_completed' });
    expect((await gemini.settings())[0]!.settings).toMatchObject({ security: { auth: { selectedType: 'gemini-api-key' } } });
  });

  it("keeps the auth type the user chose in their own settings, which harness's home for the CLI would otherwise hide", async () => {
    const { repo, logDir, gemini, plan } = await setup([[{ text: 'done' }]]);
    await mkdir(join(gemini.env.HOME, '.gemini'), { recursive: true });
    await writeFile(
      join(gemini.env.HOME, '.gemini', 'settings.json'),
      JSON.stringify({ security: { auth: { selectedType: 'vertex-ai' } }, mcpServers: { mine: { command: 'curl' } } }),
    );
    const worker = testWorker({ repo, logDir, plan, env: { ...gemini.env, GOOGLE_CLOUD_PROJECT: 'p', GOOGLE_CLOUD_LOCATION: 'us-central1' } });
    await new GeminiAgent().run(worker.context);
    const [read] = await gemini.settings();
    expect(read!.settings).toMatchObject({ security: { auth: { selectedType: 'vertex-ai' } } });
    expect(Object.keys(read!.settings.mcpServers as object)).toEqual(['harness']);
  });

  it("reports the CLI's own auth error where a base URL alone makes it choose an auth it cannot use, not a missing key", async () => {
    const { repo, logDir, gemini, plan } = await setup([[]]);
    const worker = testWorker({ repo, logDir, plan, env: { ...gemini.env, GEMINI_API_KEY: '', GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:8089' } });
    await new GeminiAgent().run(worker.context);
    expect(worker.messages.at(-1)).toMatchObject({
      type: 'task_failed',
      environment: true,
      error: expect.stringMatching(/^gemini could not authenticate: it said "Invalid auth method selected\." — .*set GEMINI_API_KEY beside the base URL/),
    });
  });

  it("under auto_edit may run the plan's check commands and git to commit, and nothing else (headless, 0.61.0 refuses what it would ask a person)", async () => {
    const checked = PLAN.replace(
      '  - { id: module, type: file_exists, path: src/store.js }',
      '  - { id: module, type: file_exists, path: src/store.js }\n  - { id: unit, type: tests_pass, command: node --test }',
    );
    const { repo, logDir, base, gemini } = await setup([
      [
        { write: ['src/store.js', 'export const store = new Map();\n'] },
        { bash: 'node --test' },
        { bash: 'curl -s https://example.com' },
        { bash: 'git add -A && git commit -qm "01-02: the store"' },
        { text: 'done' },
      ],
    ]);
    const worker = testWorker({ repo, logDir, plan: planFrom(checked), env: gemini.env });
    await new GeminiAgent().run(worker.context);
    expect(await gemini.shell()).toEqual([
      { call: 0, command: 'node --test', allowed: true },
      { call: 0, command: 'curl -s https://example.com', allowed: false },
      { call: 0, command: 'git add -A && git commit -qm "01-02: the store"', allowed: true },
    ]);
    expect((await commitsSince(repo, base)).map((c) => c.message.split('\n')[0])).toEqual(['01-02: the store', '01-02: Note store']);
    await expect(readFile(join(geminiHome(repo, gemini.env), '.gemini', 'policies', 'harness.toml'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('passes extra_args as they are, and a flag Gemini CLI does not have ends the run with its own words', async () => {
    const { repo, logDir, gemini, plan } = await setup([[]]);
    const worker = testWorker({ repo, logDir, plan, env: gemini.env });
    await new GeminiAgent({ model: 'gemini-2.5-pro', extraArgs: ['--max-budget-usd', '1'] }).run(worker.context);
    const [call] = await gemini.calls();
    expect(call!.args.slice(-4)).toEqual(['--model', 'gemini-2.5-pro', '--max-budget-usd', '1']);
    expect(worker.messages.at(-1)).toMatchObject({
      type: 'task_failed',
      retryable: true,
      error: 'gemini exited with code 1 and no result\nUnknown argument: max-budget-usd',
    });
  });

  it('says a missing CLI is the environment, not the plan', async () => {
    const { repo, logDir, gemini, plan } = await setup([[]]);
    const worker = testWorker({ repo, logDir, plan, env: gemini.env });
    await new GeminiAgent({ executable: join(gemini.bin, 'no-gemini') }).run(worker.context);
    expect(worker.messages.at(-1)).toMatchObject({
      type: 'task_failed',
      environment: true,
      error: expect.stringContaining('is Gemini CLI installed and on PATH?'),
    });
  });
});
