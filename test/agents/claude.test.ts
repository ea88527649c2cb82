import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCheckpointLine } from '../../app/engine/core/agents/checkpoint-line.js';
import { describeClaudeEvent, parseClaudeLine, resultFailure, totalUsage, usageOf, type ClaudeResult } from '../../app/engine/core/agents/claude-stream.js';
import { buildWorkerPrompt } from '../../app/engine/core/agents/prompt.js';
import { executorInstructions } from '../../app/agents/executor-instructions.js';
import { answerPrompt, ClaudeAgent, seedClaudeState } from '../../app/agents/claude.js';
import { CLAUDE_TOOL_NAMES } from '../../app/agents/mcp/report-tools.js';
import { commitsSince, ENVELOPE, makeRepo, planFrom, SPEC, testWorker } from '../helpers/agent-context.js';
import { FIXTURES as FIXTURES_ROOT } from '../helpers/paths.js';

const FIXTURES = join(FIXTURES_ROOT, 'claude');
const fixture = async (name: string) => (await readFile(join(FIXTURES, name), 'utf8')).split('\n').filter(Boolean);

const PLAN = (autonomous: boolean) =>
  [
    '---',
    'plan_id: "01-02"',
    'title: In-memory note store',
    'files_modified: [src/store/memory.js, src/index.js]',
    'files_read: [src/note.js]',
    `autonomous: ${autonomous}`,
    autonomous ? '' : 'checkpoints: [decision]',
    'must_pass:',
    '  - { id: module, type: file_exists, path: src/store/memory.js }',
    '  - { id: syntax, type: build_succeeds, command: "node --check src/store/memory.js" }',
    '---',
    '# In-memory note store',
    '',
    'Write the store and export it from src/index.js.',
  ]
    .filter((l) => l !== '')
    .join('\n');

/** A repository like the example's, a `claude` on PATH that replays fixtures, and the env to reach it. */
async function setup(script: string) {
  const repo = await makeRepo({
    'README.md': '# notes\n',
    'src/index.js': '// slot:memory-store\n',
    'src/note.js': 'export function createNote(input) {\n  return { ...input };\n}\n',
  });
  const bin = await mkdtemp(join(tmpdir(), 'fake-claude-'));
  await writeFile(join(bin, 'claude'), `#!/bin/sh\nexec "${process.execPath}" "${join(FIXTURES, 'fake-claude.mjs')}" "$@"\n`);
  await chmod(join(bin, 'claude'), 0o755);
  const env = { PATH: `${bin}:${process.env.PATH}`, FAKE_CLAUDE_SCRIPT: script, FAKE_CLAUDE_STATE: bin };
  const calls = async () =>
    (await readFile(join(bin, 'calls.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { args: string[]; cwd: string; env: Record<string, string> });
  return { ...repo, env, calls };
}

const progress = (message: string) => ({ ...ENVELOPE, type: 'progress_update', plan: '01-02', message });

describe('claude stream-json parser', () => {
  it('reads the recorded success: session, text, tool uses, tool errors and the result', async () => {
    const events = (await fixture('success.jsonl')).flatMap(parseClaudeLine);
    expect(events.map((e) => e.type)).toEqual([
      'init',
      'text',
      'tool_use',
      'tool_result',
      'tool_use',
      'tool_result',
      'tool_use',
      'tool_result',
      'tool_use',
      'tool_result',
      'tool_use',
      'tool_result',
      'tool_use',
      'tool_result',
      'text',
      'result',
    ]);
    expect(events[0]).toEqual({ type: 'init', sessionId: '5d1c7b1e-0f3a-4c1e-9b8e-2f7d5a6c1e01', model: 'claude-sonnet-4-5-20250929' });
    expect(events.at(-1)).toEqual({
      type: 'result',
      subtype: 'success',
      isError: false,
      result: 'The memory store is in place and exported from src/index.js.',
      sessionId: '5d1c7b1e-0f3a-4c1e-9b8e-2f7d5a6c1e01',
      numTurns: 7,
      durationMs: 1588,
      costUsd: 0.042905099999999995,
      // usage: input tokens with the cache's reads and writes, and output tokens (issue 8).
      inputTokens: 28 + 100737,
      outputTokens: 840,
      errors: [],
    });
    expect(events.map((e) => describeClaudeEvent(e, '/home/dev/notes')).filter((m) => m !== undefined)).toEqual([
      'claude session 5d1c7b1e-0f3a-4c1e-9b8e-2f7d5a6c1e01 (claude-sonnet-4-5-20250929)',
      "I'll start by creating the memory store in src/store/memory.js.",
      'Write src/store/memory.js',
      'Bash: node --check src/store/memory.js',
      "Bash: git add src/store/memory.js && git commit -q -m '01-02: Add the memory store' -m 'Plan: 01-02",
      'Read src/index.js',
      'Edit src/index.js',
      'Bash: npm test',
      'tool error: Exit code 1',
      'The memory store is in place and exported from src/index.js.',
      'claude finished (success): 7 turns, $0.04, 1.6s',
    ]);
  });

  it('turns error results into failures, and ignores what is not stream-json', async () => {
    const result = (await fixture('max-turns.jsonl')).flatMap(parseClaudeLine).at(-1) as ClaudeResult;
    expect(resultFailure(result)).toEqual({
      error: 'claude stopped at its turn limit (3 turns, $0.01, 0.7s): Reached maximum number of turns (2)',
      retryable: false,
    });
    const apiError = parseClaudeLine(
      '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 Overloaded","session_id":"s"}',
    )[0] as ClaudeResult;
    expect(resultFailure(apiError)).toEqual({ error: 'claude reported an error (no statistics): API Error: 529 Overloaded', retryable: true });
    const during = parseClaudeLine(
      '{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":2,"errors":["Tool permission stream closed"]}',
    )[0] as ClaudeResult;
    expect(resultFailure(during)).toEqual({ error: 'claude failed during execution (2 turns): Tool permission stream closed', retryable: true });
    // Claude Code's own stop at --max-budget-usd (as 2.0.76 words the result: not is_error, its own subtype).
    const budget = parseClaudeLine(
      '{"type":"result","subtype":"error_max_budget_usd","is_error":false,"num_turns":4,"total_cost_usd":0.21,"session_id":"s"}',
    )[0] as ClaudeResult;
    expect(resultFailure(budget)).toEqual({ error: 'claude stopped at its spending limit (--max-budget-usd; 4 turns, $0.21)', retryable: false });
    expect(['not json', '', '{"type":"stream_event","event":{}}', '{"type":"system","subtype":"compact_boundary"}', '[1]'].flatMap(parseClaudeLine)).toEqual(
      [],
    );
  });

  it('sums what the runs of an attempt reported, and leaves out a figure any run did not report', async () => {
    const [success] = (await fixture('success.jsonl')).flatMap(parseClaudeLine).filter((e): e is ClaudeResult => e.type === 'result');
    expect(usageOf(success!)).toEqual({ turns: 7, costUsd: 0.042905099999999995, inputTokens: 100765, outputTokens: 840 });
    expect(usageOf({ type: 'result', subtype: 'success', isError: false, errors: [], numTurns: 2 })).toEqual({ turns: 2 });
    expect(
      totalUsage([
        { turns: 3, costUsd: 0.0731 },
        { turns: 2, costUsd: 0.0318 },
      ]),
    ).toEqual({ turns: 5, costUsd: 0.1049 });
    // A run stopped before its result reported nothing: the total would be short, so there is none.
    expect(totalUsage([{ turns: 3, costUsd: 0.0731 }, undefined])).toBeUndefined();
    expect(totalUsage([{ turns: 3, costUsd: 0.0731 }, { turns: 2 }])).toEqual({ turns: 5 });
    expect(totalUsage([])).toBeUndefined();
  });

  it('finds a checkpoint on the last line of the final text, and only there', async () => {
    const result = (await fixture('checkpoint.jsonl')).flatMap(parseClaudeLine).at(-1) as ClaudeResult;
    expect(findCheckpointLine(result.result!)).toEqual({
      found: true,
      text: 'The memory store is written. The plan leaves the default store open, and it changes what the server starts with.',
      request: { kind: 'decision', id: 'default-store', prompt: 'Which store should the server use by default?', options: ['memory', 'file'] },
    });
    expect(findCheckpointLine('I will end with HARNESS_CHECKPOINT {"kind":"decision","prompt":"x"} when stuck.\nDone.')).toEqual({ found: false });
    expect(findCheckpointLine('Stuck.\n`HARNESS_CHECKPOINT {"kind":"action","prompt":"Create the S3 bucket"}`\n')).toMatchObject({
      found: true,
      request: { kind: 'action', prompt: 'Create the S3 bucket' },
    });
    expect(findCheckpointLine('HARNESS_CHECKPOINT {"kind":"question","prompt":"x"}')).toMatchObject({
      found: true,
      error: expect.stringMatching(/^HARNESS_CHECKPOINT JSON is invalid at kind: /),
    });
  });
});

describe('claude agent (against a fake claude replaying recorded output)', () => {
  it('runs claude headless in the worktree, reports its stream, keeps its commits and commits the rest', async () => {
    const { repo, logDir, base, env, calls } = await setup('success.jsonl');
    const plan = planFrom(PLAN(true));
    const worker = testWorker({ repo, logDir, plan, env });
    await new ClaudeAgent({ maxTurns: 12 }).run(worker.context);

    const commits = await commitsSince(repo, base);
    expect(commits.map((c) => c.message)).toEqual([
      `01-02: Add the memory store\n\nPlan: 01-02\nSpec: ${SPEC}\n`,
      `01-02: In-memory note store\n\n- modified src/index.js\n\nPlan: 01-02\nTask: 1/1\nSpec: ${SPEC}\n`,
    ]);
    // Each tool call the stream reported, as it started and as its result came back (for the trace's spans).
    const toolCalls = worker.messages.flatMap((m) => (m.type === 'tool_call' ? [`${m.phase} ${m.name ?? ''}${m.error ? 'failed' : ''}`.trim()] : []));
    expect(toolCalls).toEqual([
      'start Write',
      'end',
      'start Bash',
      'end',
      'start Bash',
      'end',
      'start Read',
      'end',
      'start Edit',
      'end',
      'start Bash',
      'end failed',
    ]);
    expect(worker.messages.filter((m) => m.type !== 'tool_call')).toEqual([
      { ...ENVELOPE, type: 'session_ready', agent: 'claude' },
      progress('claude session 5d1c7b1e-0f3a-4c1e-9b8e-2f7d5a6c1e01 (claude-sonnet-4-5-20250929)'),
      progress("I'll start by creating the memory store in src/store/memory.js."),
      progress('Write src/store/memory.js'),
      progress('Bash: node --check src/store/memory.js'),
      progress("Bash: git add src/store/memory.js && git commit -q -m '01-02: Add the memory store' -m 'Plan: 01-02"),
      progress('Read src/index.js'),
      progress('Edit src/index.js'),
      progress('Bash: npm test'),
      progress('tool error: Exit code 1'),
      progress('The memory store is in place and exported from src/index.js.'),
      progress('claude finished (success): 7 turns, $0.04, 1.6s'),
      { ...progress(`committed the file the agent left uncommitted as ${commits[1]!.sha.slice(0, 7)}`), task: 1, total: 1 },
      {
        ...ENVELOPE,
        type: 'task_completed',
        plan: '01-02',
        commits: commits.map((c) => c.sha),
        summary: 'The memory store is in place and exported from src/index.js.\n\n(claude: 7 turns, $0.04)',
        // As the result event reported them (num_turns, total_cost_usd).
        usage: { turns: 7, costUsd: 0.042905, inputTokens: 100765, outputTokens: 840 },
        // Counted from the stream: the six tool calls, `npm test` failing, the model of the init line.
        facts: { toolCalls: 6, toolErrors: 1, retries: 0, model: 'claude-sonnet-4-5-20250929' },
      },
    ]);
    const [call] = await calls();
    expect(call!.cwd).toBe(repo);
    expect(call!.env).toMatchObject({ HARNESS_SPEC: SPEC, HARNESS_PLAN: '01-02', HARNESS_ANSWERS: join(logDir, 'answers.json') });
    expect(call!.args).toEqual([
      '-p',
      buildWorkerPrompt(plan, { spec: SPEC, checkpoints: 'mcp', answers: {}, commits: [], instructions: await executorInstructions(repo) }),
      '--output-format',
      'stream-json',
      '--verbose',
      // The reporting channel (issue 8): the harness MCP server, and its two tools allowed.
      '--mcp-config',
      join(logDir, 'mcp.json'),
      // …and no other server: not the repository's .mcp.json, not the user's settings.
      '--strict-mcp-config',
      '--permission-mode',
      'acceptEdits',
      '--allowedTools',
      CLAUDE_TOOL_NAMES.join(','),
      '--max-turns',
      '12',
    ]);
    // The raw stream is kept for people (and for recording new fixtures).
    expect(await readFile(join(logDir, 'claude.log'), 'utf8')).toContain('"subtype":"success"');

    // Run again: the plan's final commit is on the branch, so claude is not started again.
    const again = testWorker({ repo, logDir, plan, env, resume: true });
    await new ClaudeAgent().run(again.context);
    expect(again.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_completed',
      plan: '01-02',
      commits: commits.map((c) => c.sha),
      summary: 'finished by an earlier attempt',
    });
    expect(await calls()).toHaveLength(1);
  });

  it('fails the task when claude stops at its turn limit, and commits nothing', async () => {
    const { repo, logDir, base, env } = await setup('max-turns.jsonl');
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN(true)), env });
    await new ClaudeAgent().run(worker.context);
    expect(worker.messages.filter((m) => m.type !== 'tool_call').slice(-3)).toEqual([
      progress('Bash: grep -rl createNote src'),
      progress('claude finished (error_max_turns): 3 turns, $0.01, 0.7s'),
      {
        ...ENVELOPE,
        type: 'task_failed',
        plan: '01-02',
        retryable: false,
        error: 'claude stopped at its turn limit (3 turns, $0.01, 0.7s): Reached maximum number of turns (2)',
        usage: { turns: 3, costUsd: 0.012259, inputTokens: 28790, outputTokens: 240 },
        facts: { toolCalls: 2, toolErrors: 0, retries: 0, model: 'claude-sonnet-4-5-20250929' },
      },
    ]);
    expect(await commitsSince(repo, base)).toEqual([]);
  });

  it('turns a HARNESS_CHECKPOINT line into decision_needed and resumes the same session with the answer', async () => {
    const { repo, logDir, base, env, calls } = await setup('checkpoint.jsonl,checkpoint-resumed.jsonl');
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN(false)), env });
    const running = new ClaudeAgent().run(worker.context);
    const asked = await worker.waitFor('decision_needed');
    const checkpoint = {
      id: 'default-store',
      kind: 'decision' as const,
      prompt: 'Which store should the server use by default?',
      options: ['memory', 'file'],
      source: 'claude',
    };
    expect(asked).toEqual({ ...ENVELOPE, type: 'decision_needed', plan: '01-02', checkpoint });
    worker.respond({ ...ENVELOPE, type: 'decision_made', checkpoint: 'default-store', answer: 'memory' });
    await running;

    const [, second] = await calls();
    expect(second!.args.slice(0, 7)).toEqual([
      '-p',
      answerPrompt(checkpoint, 'memory'),
      '--output-format',
      'stream-json',
      '--verbose',
      '--resume',
      'e4f5a6b7-2c3d-4e5f-9a0b-c1d2e3f4a503',
    ]);
    expect(second!.env.HARNESS_ANSWER_DEFAULT_STORE).toBe('memory');
    const commits = await commitsSince(repo, base);
    expect(commits.map((c) => c.message)).toEqual([
      `01-02: In-memory note store\n\n- modified src/index.js\n- added src/store/memory.js\n\nPlan: 01-02\nTask: 1/1\nSpec: ${SPEC}\n`,
    ]);
    expect(worker.messages.at(-1)).toMatchObject({
      type: 'task_completed',
      summary: 'The server now starts with the memory store.\n\n(claude: 3 turns, $0.03)',
    });
    // Both runs of the session count: 2 turns and $0.0122586 before the question, 3 and $0.0306465 after.
    expect(worker.messages.at(-1)).toMatchObject({ usage: { turns: 5, costUsd: 0.042905, inputTokens: 28790 + 43185, outputTokens: 240 + 360 } });
  });

  it('asks a checkpoint the plan foresees when claude finished without asking it, and gives the answer back to the same session', async () => {
    const { repo, logDir, env, calls } = await setup('success.jsonl,checkpoint-resumed.jsonl');
    const body = [
      '',
      '```checkpoint decision Storage backend',
      'Which store should the service use by default?',
      'options: memory, file',
      'id: storage',
      '```',
    ].join('\n');
    const worker = testWorker({ repo, logDir, plan: planFrom(`${PLAN(false)}${body}`), env });
    const running = new ClaudeAgent().run(worker.context);

    const asked = await worker.waitFor('decision_needed');
    const checkpoint = {
      id: 'storage',
      kind: 'decision' as const,
      prompt: 'Which store should the service use by default?',
      options: ['memory', 'file'],
      source: 'Storage backend',
    };
    expect(asked).toEqual({ ...ENVELOPE, type: 'decision_needed', plan: '01-02', checkpoint });
    expect(worker.messages).toContainEqual(progress('claude finished without asking checkpoint storage, which the plan foresees: harness asks it'));
    worker.respond({ ...ENVELOPE, type: 'decision_made', checkpoint: 'storage', answer: 'file' });
    await running;

    const [, second] = await calls();
    expect(second!.args.slice(0, 7)).toEqual([
      '-p',
      answerPrompt(checkpoint, 'file'),
      '--output-format',
      'stream-json',
      '--verbose',
      '--resume',
      '5d1c7b1e-0f3a-4c1e-9b8e-2f7d5a6c1e01',
    ]);
    expect(worker.messages.at(-1)).toMatchObject({ type: 'task_completed' });
    expect(worker.messages.filter((m) => m.type === 'decision_needed')).toHaveLength(1);
  });

  it("resumes an autonomous plan paused at the model's usage limit with the App's continue, not failing for want of a default", async () => {
    const { repo, logDir, env, calls } = await setup('checkpoint-resumed.jsonl');
    const pause = {
      id: 'usage-limit',
      kind: 'action' as const,
      prompt: "The agent stopped at the model's rate or usage limit. Answer `continue` once it has reset.",
      source: 'claude',
    };
    await seedClaudeState(logDir, { sessionId: 'e4f5a6b7-2c3d-4e5f-9a0b-c1d2e3f4a503', checkpoint: pause });
    const worker = testWorker({
      repo,
      logDir,
      plan: planFrom(PLAN(true)),
      env,
      resume: true,
      answer: (c) => ({ ...ENVELOPE, type: 'action_completed', checkpoint: c.id, note: 'continue' }),
    });

    await new ClaudeAgent().run(worker.context);

    expect(worker.asked).toEqual([pause]);
    const [resumed] = await calls();
    expect(resumed!.args.slice(0, 7)).toEqual([
      '-p',
      answerPrompt(pause, 'continue'),
      '--output-format',
      'stream-json',
      '--verbose',
      '--resume',
      'e4f5a6b7-2c3d-4e5f-9a0b-c1d2e3f4a503',
    ]);
    expect(worker.messages.at(-1)).toMatchObject({ type: 'task_completed' });
  });

  it('after a restart while waiting at a checkpoint, asks again and continues the session with its work in place', async () => {
    const { repo, logDir, base, env, calls } = await setup('checkpoint.jsonl,checkpoint-resumed.jsonl');
    const first = testWorker({ repo, logDir, plan: planFrom(PLAN(false)), env });
    const running = new ClaudeAgent().run(first.context);
    await first.waitFor('decision_needed');
    first.controller.abort(new Error('worker stopped'));
    await running;
    expect(first.messages.at(-1)).toMatchObject({ type: 'task_failed', error: 'aborted at checkpoint "default-store": worker stopped', retryable: true });

    const second = testWorker({ repo, logDir, plan: planFrom(PLAN(false)), env, resume: true });
    const resumed = new ClaudeAgent().run(second.context);
    const asked = await second.waitFor('decision_needed');
    expect(asked).toMatchObject({ checkpoint: { id: 'default-store' } });
    second.respond({ ...ENVELOPE, type: 'decision_made', checkpoint: 'default-store', answer: 'memory' });
    await resumed;
    expect((await calls()).map((c) => c.args.includes('--resume'))).toEqual([false, true]);
    // The file the paused session wrote was kept for it, and is committed with the rest.
    expect((await commitsSince(repo, base)).map((c) => c.message.split('\n\n')[1])).toEqual(['- modified src/index.js\n- added src/store/memory.js']);
  });

  it('answers a checkpoint already answered without asking, and fails one it cannot answer in an autonomous plan', async () => {
    const { repo, logDir, env } = await setup('checkpoint.jsonl,checkpoint-resumed.jsonl');
    await mkdir(logDir, { recursive: true });
    await writeFile(join(logDir, 'answers.json'), '{"default-store":"memory"}\n');
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN(false)), env });
    await new ClaudeAgent().run(worker.context);
    expect(worker.asked).toEqual([]);
    expect(worker.messages).toContainEqual(progress('checkpoint default-store already answered: memory'));
    expect(worker.messages.at(-1)?.type).toBe('task_completed');

    const other = await setup('checkpoint.jsonl');
    const autonomous = testWorker({ repo: other.repo, logDir: other.logDir, plan: planFrom(PLAN(true)), env: other.env });
    await new ClaudeAgent().run(autonomous.context);
    expect(autonomous.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_failed',
      plan: '01-02',
      retryable: false,
      error: 'checkpoint "default-store" (decision) needs a person, but plan 01-02 is autonomous: true and the checkpoint has no default',
      // The run that asked the question was Claude's work too.
      usage: { turns: 2, costUsd: 0.012259, inputTokens: 28790, outputTokens: 240 },
      facts: { toolCalls: 1, toolErrors: 0, retries: 0, model: 'claude-sonnet-4-5-20250929' },
    });
  });

  it("says when the plan's timeout_minutes stopped claude, and reports no usage it was not told", async () => {
    const { repo, logDir, base } = await makeRepo();
    const bin = await mkdtemp(join(tmpdir(), 'slow-claude-'));
    // Starts a session, then works past the budget without a result: no turns or cost to report.
    await writeFile(join(bin, 'claude'), '#!/bin/sh\necho \'{"type":"system","subtype":"init","session_id":"slow-1"}\'\nsleep 20\n');
    await chmod(join(bin, 'claude'), 0o755);
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN(true)) });
    worker.context.task.timeout_minutes = 0.005;
    await new ClaudeAgent({ executable: join(bin, 'claude') }).run(worker.context);
    expect(worker.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_failed',
      plan: '01-02',
      retryable: false,
      timedOut: true,
      error: 'claude was stopped: plan 01-02 used up its timeout_minutes (0.005)',
    });
    expect(await commitsSince(repo, base)).toEqual([]);
  });

  it("says so when claude is not installed, as this machine's problem (environment), not the plan's", async () => {
    const { repo, logDir } = await makeRepo();
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN(true)) });
    await new ClaudeAgent({ executable: 'claude-that-does-not-exist' }).run(worker.context);
    expect(worker.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_failed',
      plan: '01-02',
      retryable: false,
      error: 'claude could not run: spawn claude-that-does-not-exist ENOENT (is Claude Code installed and on PATH?)',
      environment: true,
    });
  });
});
