import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CopilotAgent, readCopilotState } from '../../app/agents/copilot.js';
import { copilotSessions } from '../../app/agents/copilot-session.js';
import { rateLimitOf } from '../../app/engine/core/agents/rate-limit.js';
import { commitsSince, ENVELOPE, makeRepo, planFrom, testWorker } from '../helpers/agent-context.js';
import { standInCopilot } from '../helpers/copilot-standin.js';

const PLAN = [
  '---',
  'plan_id: "01-02"',
  'title: Note store',
  'files_modified: [src/store.js]',
  'must_pass:',
  '  - { id: module, type: file_exists, path: src/store.js }',
  '---',
  '# Note store',
  '',
  'Write the store.',
].join('\n');

const ASKING = PLAN.replace('title: Note store\n', 'title: Note store\nautonomous: false\n');
const PRICE = { inputPerMillion: 3, outputPerMillion: 15 };

describe('copilot agent', () => {
  it('runs Copilot CLI headless with the harness MCP server; its reports become protocol messages, its usage is counted at the price', async () => {
    const { repo, logDir, base } = await makeRepo({ 'README.md': '# notes\n' });
    const copilot = await standInCopilot([
      [
        { report: { type: 'task_started', task: 1, total: 1, title: 'Write the store' } },
        { write: ['src/store.js', 'export const store = new Map();\n'] },
        { report: { type: 'progress_update', message: 'store written', task: 1, total: 1 } },
        { text: 'The store is in place.' },
      ],
    ]);
    // The job's own token is in the worker's environment: it must not reach the agent.
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN), env: { ...copilot.env, GITHUB_TOKEN: 'ghs_the_jobs_own', COPILOT_ALLOW_ALL: 'true' } });
    await new CopilotAgent({ price: PRICE }).run(worker.context);

    const done = worker.messages.at(-1)!;
    // 4 turns: the first, one for each report, the final message; tokens as --usage-output-file has them.
    expect(done).toMatchObject({
      type: 'task_completed',
      summary: 'The store is in place.\n\n(copilot: 4 turns, $0.01)',
      usage: { turns: 4, inputTokens: 4000, outputTokens: 70, costUsd: 0.01305 },
    });
    expect(worker.messages).toContainEqual({ ...ENVELOPE, type: 'progress_update', plan: '01-02', message: 'store written', task: 1, total: 1 });
    expect(worker.messages.filter((m) => m.type === 'progress_update').map((m) => m.message)).toContain('copilot session (gpt-5.4)');
    expect((await commitsSince(repo, base)).map((c) => c.message.split('\n')[0])).toEqual(['01-02: Note store']);

    const [call] = await copilot.calls();
    const state = await readCopilotState(logDir);
    const mcp = join(logDir, 'copilot-mcp.json');
    expect(call!.args.slice(2)).toEqual([
      '--output-format',
      'json',
      `--session-id=${state.sessionId}`,
      '--additional-mcp-config',
      `@${mcp}`,
      '--disable-builtin-mcps',
      '--allow-all-tools',
      '--no-ask-user',
      '--no-auto-update',
      '--no-color',
      '--secret-env-vars=COPILOT_GITHUB_TOKEN,GH_TOKEN',
      '--usage-output-file',
      join(logDir, 'copilot', 'copilot-usage.json'),
    ]);
    expect(call!.args[0]).toBe('-p');
    expect(call!.args[1]).toContain('## The plan\n\n# Note store');
    const config = JSON.parse(await readFile(mcp, 'utf8')) as {
      mcpServers: Record<string, { type: string; args: string[]; env: Record<string, string>; tools: string[] }>;
    };
    expect(Object.keys(config.mcpServers)).toEqual(['harness']);
    expect(config.mcpServers.harness).toMatchObject({ type: 'local', tools: ['*'] });
    expect(config.mcpServers.harness!.args.at(-1)).toBe('mcp-report');
    expect(config.mcpServers.harness!.env.HARNESS_REPORT_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(call!.env.COPILOT_GITHUB_TOKEN).toBe('github_pat_copilot_only');
    expect(call!.env.GITHUB_TOKEN).toBeUndefined();
    expect(call!.env.COPILOT_ALLOW_ALL).toBeUndefined();
  });

  it('with allowed_tools, allows those and the harness server only', async () => {
    const { repo, logDir } = await makeRepo({ 'README.md': '# notes\n' });
    const copilot = await standInCopilot([[{ write: ['src/store.js', 'x\n'] }, { report: { type: 'progress_update', message: 'written' } }]]);
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN), env: copilot.env });
    await new CopilotAgent({ allowedTools: ['shell(npm test)', 'write'], model: 'gpt-5.4', extraArgs: ['--no-custom-instructions'] }).run(worker.context);
    expect(worker.messages.at(-1)).toMatchObject({ type: 'task_completed' });
    const [call] = await copilot.calls();
    expect(call!.args.filter((a) => a.startsWith('--allow'))).toEqual(['--allow-tool=shell(npm test)', '--allow-tool=write', '--allow-tool=harness']);
    expect(call!.args.slice(-3)).toEqual(['--model', 'gpt-5.4', '--no-custom-instructions']);
  });

  it("loads the user's own mcp-config.json servers beside harness's (the CLI has no flag to leave them out)", async () => {
    const { repo, logDir } = await makeRepo({ 'README.md': '# notes\n' });
    const copilot = await standInCopilot([[{ write: ['src/store.js', 'x\n'] }]]);
    await mkdir(copilot.home, { recursive: true });
    await writeFile(join(copilot.home, 'mcp-config.json'), JSON.stringify({ mcpServers: { remote: { type: 'http', url: 'https://example.invalid/mcp' } } }));
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN), env: copilot.env });
    await new CopilotAgent().run(worker.context);
    expect(await copilot.servers()).toEqual([{ call: 0, servers: ['remote', 'harness'] }]);
  });

  it('where nobody can wait, the session stops at the question and is resumed with --resume=<id> and the answer', async () => {
    const { repo, logDir } = await makeRepo({ 'README.md': '# notes\n' });
    const copilot = await standInCopilot([
      [
        { write: ['src/store.js', 'draft\n'] },
        { report: { type: 'decision_needed', checkpoint: 'backend', message: 'Which backend?', options: ['memory', 'file'] } },
        { await: 'backend' },
        { write: ['src/never.js', 'not reached\n'] },
      ],
      [{ recall: 'Which backend?' }, { write: ['src/store.js', 'final\n'] }],
    ]);
    const plan = planFrom(ASKING);
    const first = testWorker({ repo, logDir, plan, env: copilot.env });
    const asked = first.waitFor('decision_needed').then(() => first.controller.abort(new Error('waiting for an answer to checkpoint "backend"')));
    await new CopilotAgent().run(first.context);
    await asked;
    const state = await readCopilotState(logDir);
    expect(state).toMatchObject({
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      checkpoint: { id: 'backend', kind: 'decision', options: ['memory', 'file'] },
    });
    // What the checkpoint store carries to another runner: the session's folder, less the CLI's locks.
    const home = copilotSessions.home(repo, copilot.env);
    expect(home).toBe(join(copilot.home, 'session-state'));
    expect(await copilotSessions.current(logDir)).toBe(state.sessionId);
    expect(await copilotSessions.files(home, state.sessionId!)).toEqual([`${state.sessionId}/events.jsonl`, `${state.sessionId}/workspace.yaml`]);

    const second = testWorker({
      repo,
      logDir,
      plan,
      env: copilot.env,
      resume: true,
      answer: (c) => ({ ...ENVELOPE, type: 'decision_made', checkpoint: c.id, answer: 'file' }),
    });
    await new CopilotAgent().run(second.context);
    expect(second.messages.at(-1)).toMatchObject({ type: 'task_completed' });
    const calls = await copilot.calls();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.args[1]).toContain('A person answered checkpoint "backend" (decision).');
    expect(calls[1]!.args).toContain(`--resume=${state.sessionId}`);
    expect(calls[1]!.args.some((a) => a.startsWith('--session-id'))).toBe(false);
    expect(await readFile(join(repo, 'src/store.js'), 'utf8')).toBe('final\n');
  });

  it("stops at Copilot's rate limit as a pause the worker reads, with the reset the CLI said", async () => {
    const { repo, logDir } = await makeRepo({ 'README.md': '# notes\n' });
    const copilot = await standInCopilot([
      [
        { write: ['src/store.js', 'half\n'] },
        {
          error: {
            errorType: 'rate_limit',
            message: "You've hit your rate limit. Please wait for your limit to reset (current limit resets in ~30m)",
            errorCode: 'user_global_rate_limited',
            statusCode: 429,
          },
        },
      ],
    ]);
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN), env: copilot.env });
    const before = Date.now();
    await new CopilotAgent().run(worker.context);
    const failed = worker.messages.at(-1)!;
    expect(failed).toMatchObject({
      type: 'task_failed',
      retryable: true,
      error: expect.stringMatching(/^copilot stopped at the Copilot rate limit: You've hit your rate limit\. .* \(resets \d{4}-.*Z\)$/),
    });
    const limit = rateLimitOf((failed as { error: string }).error, new Date());
    expect(limit?.evidence).toContain("You've hit your rate limit.");
    expect(limit!.resetsAt!.getTime()).toBeGreaterThanOrEqual(before + 30 * 60_000);
  });

  it('stops the CLI at max_turns, which it has no flag for: the plan fails, not to be retried as it is', async () => {
    const { repo, logDir } = await makeRepo({ 'README.md': '# notes\n' });
    const copilot = await standInCopilot([[{ turns: 50 }, { write: ['src/never.js', 'x\n'] }]]);
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN), env: copilot.env });
    await new CopilotAgent({ maxTurns: 3 }).run(worker.context);
    expect(worker.messages.at(-1)).toMatchObject({
      type: 'task_failed',
      retryable: false,
      error: 'copilot stopped at its turn limit (3 turns; agents.copilot.max_turns)',
      usage: { turns: 3 },
    });
  });

  it("fails the plan when a run's cost at the price takes it over its budget", async () => {
    const { repo, logDir } = await makeRepo({ 'README.md': '# notes\n' });
    const copilot = await standInCopilot([[{ write: ['src/store.js', 'x\n'] }, { turns: 3 }]]);
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN), env: copilot.env });
    await new CopilotAgent({ price: { perPremiumRequest: 0.5 }, budgetUsd: 0.25 }).run(worker.context);
    expect(worker.messages.at(-1)).toMatchObject({
      type: 'task_failed',
      retryable: false,
      error: "copilot spent $0.50, over the plan's budget of $0.25 (budget_usd): stopped",
      usage: { costUsd: 0.5 },
    });
  });

  it('refuses a budget it cannot count: without a price, Copilot reports no cost', async () => {
    const { repo, logDir } = await makeRepo({ 'README.md': '# notes\n' });
    const copilot = await standInCopilot([[]]);
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN), env: copilot.env });
    await new CopilotAgent({ budgetUsd: 1 }).run(worker.context);
    expect(worker.messages.at(-1)).toMatchObject({
      type: 'task_failed',
      retryable: false,
      error: expect.stringContaining('set agents.copilot.price in .github/harness.yml'),
    });
    await expect(copilot.calls()).rejects.toThrow(/ENOENT/);
  });

  it("counts usage once across a resume in one attempt: the usage file then holds the session's totals, and a run is what they grew by", async () => {
    const { repo, logDir } = await makeRepo({ 'README.md': '# notes\n' });
    const copilot = await standInCopilot([
      [{ write: ['src/store.js', 'draft\n'] }, { text: 'HARNESS_CHECKPOINT {"kind":"decision","prompt":"Which backend?","options":["memory","file"]}' }],
      [{ recall: 'Which backend?' }, { turns: 2 }, { write: ['src/store.js', 'final\n'] }, { text: 'Done.' }],
    ]);
    const worker = testWorker({
      repo,
      logDir,
      plan: planFrom(ASKING),
      env: copilot.env,
      answer: (c) => ({ ...ENVELOPE, type: 'decision_made', checkpoint: c.id, answer: 'file' }),
    });
    await new CopilotAgent({ price: PRICE }).run(worker.context);

    expect((await copilot.calls())[1]!.args.some((a) => a.startsWith('--resume='))).toBe(true);
    // The last run's file: the session's totals, both runs' (6 requests, 2 premium requests).
    const totals = JSON.parse(await readFile(join(logDir, 'copilot', 'copilot-usage.json'), 'utf8')) as {
      totalPremiumRequestCost: number;
      modelMetrics: Record<string, { usage: { inputTokens: number; outputTokens: number } }>;
    };
    const { inputTokens, outputTokens } = totals.modelMetrics['gpt-5.4']!.usage;
    expect([inputTokens, totals.totalPremiumRequestCost]).toEqual([6000, 2]);
    expect(worker.messages.at(-1)).toMatchObject({
      type: 'task_completed',
      usage: { turns: 6, inputTokens, outputTokens, costUsd: (inputTokens * 3 + outputTokens * 15) / 1e6 },
    });
  });

  it('counts usage once across attempts: a session paused at the rate limit keeps what it was counted at, and its resumed attempt counts only what it added', async () => {
    const { repo, logDir } = await makeRepo({ 'README.md': '# notes\n' });
    const copilot = await standInCopilot([
      [{ write: ['src/store.js', 'draft\n'] }, { turns: 1 }, { error: { errorType: 'rate_limit', message: "You've hit your rate limit." } }],
      [{ recall: 'src/store.js' }, { write: ['src/store.js', 'final\n'] }, { text: 'Done.' }],
    ]);
    const plan = planFrom(PLAN);
    const first = testWorker({ repo, logDir, plan, env: copilot.env });
    await new CopilotAgent({ price: PRICE }).run(first.context);
    expect(first.messages.at(-1)).toMatchObject({ type: 'task_failed', error: expect.stringContaining('rate limit') });
    const usage = async () =>
      (
        JSON.parse(await readFile(join(logDir, 'copilot', 'copilot-usage.json'), 'utf8')) as {
          modelMetrics: Record<string, { usage: { inputTokens: number; outputTokens: number } }>;
        }
      ).modelMetrics['gpt-5.4']!.usage;
    const before = await usage();
    const { sessionId } = await readCopilotState(logDir);
    expect(await readCopilotState(logDir)).toEqual({
      sessionId,
      counted: { session: sessionId, inputTokens: before.inputTokens, outputTokens: before.outputTokens, premiumRequests: 1 },
    });

    // As harness run pauses it (runner/usage-pause.ts): the session waits at the pause's checkpoint, answered `continue`.
    await copilotSessions.wait(logDir, { id: 'usage-limit', kind: 'action', prompt: 'The limit', source: 'copilot' });
    await writeFile(join(logDir, 'answers.json'), '{ "usage-limit": "continue" }\n');
    const second = testWorker({ repo, logDir, plan, env: copilot.env, resume: true });
    await new CopilotAgent({ price: PRICE }).run(second.context);

    expect((await copilot.calls())[1]!.args).toContain(`--resume=${sessionId}`);
    const after = await usage();
    expect(after.inputTokens).toBeGreaterThan(before.inputTokens);
    const added = { inputTokens: after.inputTokens - before.inputTokens, outputTokens: after.outputTokens - before.outputTokens };
    expect(second.messages.at(-1)).toMatchObject({
      type: 'task_completed',
      usage: { ...added, costUsd: (added.inputTokens * 3 + added.outputTokens * 15) / 1e6 },
    });
  });

  it('starts the CLI without a classic token (ghp_), which it refuses even with a provider of your own; a fine-grained or OAuth one stays', async () => {
    const copilot = await standInCopilot([[{ text: 'Done.' }], [{ text: 'Done.' }], [{ text: 'Done.' }]], { token: false });
    const run = async (env: Record<string, string>) => {
      const { repo, logDir } = await makeRepo({ 'README.md': '# notes\n' });
      const worker = testWorker({ repo, logDir, plan: planFrom(PLAN), env: { ...copilot.env, ...env } });
      await new CopilotAgent().run(worker.context);
      return worker.messages.at(-1)!;
    };

    // A classic GH_TOKEN beside the fine-grained COPILOT_GITHUB_TOKEN: left out, the CLI signs in with the other.
    expect(await run({ COPILOT_GITHUB_TOKEN: 'github_pat_copilot_only', GH_TOKEN: 'ghp_classic_for_gh' })).toMatchObject({ type: 'task_completed' });
    // A provider of the user's own needs no token: the classic one would stop the CLI all the same.
    expect(await run({ GH_TOKEN: 'ghp_classic_for_gh', COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1' })).toMatchObject({ type: 'task_completed' });
    // An OAuth token (gh auth login's gho_) is one Copilot takes.
    expect(await run({ GH_TOKEN: 'gho_oauth_from_gh' })).toMatchObject({ type: 'task_completed' });
    const envs = (await copilot.calls()).map((c) => [c.env.COPILOT_GITHUB_TOKEN, c.env.GH_TOKEN]);
    expect(envs).toEqual([
      ['github_pat_copilot_only', undefined],
      [undefined, undefined],
      [undefined, 'gho_oauth_from_gh'],
    ]);
  });

  it('with only a classic token and no provider of your own: the machine’s problem, naming the variables it looked at and the token Copilot needs', async () => {
    const { repo, logDir } = await makeRepo({ 'README.md': '# notes\n' });
    const copilot = await standInCopilot([[{ text: 'Done.' }]], { token: false });
    const worker = testWorker({
      repo,
      logDir,
      plan: planFrom(PLAN),
      env: { ...copilot.env, GH_TOKEN: 'ghp_classic_for_gh', GITHUB_TOKEN: 'ghs_the_jobs_own' },
    });
    await new CopilotAgent().run(worker.context);

    expect(worker.messages.at(-1)).toMatchObject({
      type: 'task_failed',
      retryable: false,
      environment: true,
      error:
        "copilot could not sign in: No authentication information found. — harness looked at COPILOT_GITHUB_TOKEN and GH_TOKEN (never GITHUB_TOKEN, the job's own); " +
        'GH_TOKEN held a classic personal access token (ghp_…), which Copilot refuses, so harness left it out. ' +
        'Copilot needs a fine-grained personal access token (github_pat_…) of a user with a Copilot seat, with the Copilot Requests permission, in COPILOT_GITHUB_TOKEN (a secret of its own), ' +
        'or an OAuth token (gho_…, ghu_…: copilot login, gh auth login), or a provider of your own (COPILOT_PROVIDER_BASE_URL)',
    });
    expect((await copilot.calls())[0]!.env.GH_TOKEN).toBeUndefined();
  });

  it('no credential and no CLI are the machine’s problems (environment), not an attempt of the plan', async () => {
    const { repo, logDir } = await makeRepo({ 'README.md': '# notes\n' });
    const copilot = await standInCopilot([[]], { token: false });
    const unsigned = testWorker({ repo, logDir, plan: planFrom(PLAN), env: { ...copilot.env, GITHUB_TOKEN: 'ghs_the_jobs_own' } });
    await new CopilotAgent().run(unsigned.context);
    expect(unsigned.messages.at(-1)).toMatchObject({
      type: 'task_failed',
      retryable: false,
      environment: true,
      error: expect.stringContaining('copilot could not sign in: No authentication information found.'),
    });

    const missing = testWorker({ repo, logDir, plan: planFrom(PLAN), env: {} });
    await new CopilotAgent({ executable: join(logDir, 'no-copilot-here') }).run(missing.context);
    expect(missing.messages.at(-1)).toMatchObject({
      type: 'task_failed',
      environment: true,
      error: expect.stringContaining('is GitHub Copilot CLI installed and on PATH?'),
    });
  });
});
