import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeTranscriptPath } from '../../app/agents/claude-session.js';
import { copilotSessionHome } from '../../app/agents/copilot-session.js';
import {
  parseClaudeLine,
  resultFailure,
  usageLimitFailure,
  usageOf,
  type ClaudeRateLimit,
  type ClaudeResult,
} from '../../app/engine/core/agents/claude-stream.js';
import { copilotLimitFailure } from '../../app/engine/core/agents/copilot-limit.js';
import { parseCopilotLine, usageFileOf, type CopilotError, type CopilotEvent } from '../../app/engine/core/agents/copilot-stream.js';
import { rateLimitOf } from '../../app/engine/core/agents/rate-limit.js';
import { tempDir } from '../helpers/cli.js';
import { standInCopilot } from '../helpers/copilot-standin.js';
import { standInClaude } from '../helpers/mcp-claude.js';
import { FIXTURES } from '../helpers/paths.js';

/**
 * The stand-ins the agent tests run in place of the CLIs (test/fixtures/claude/mcp-claude.mjs,
 * test/fixtures/copilot/copilot-standin.mjs), held to what the pinned CLIs themselves wrote when
 * run against a fake model (test/fixtures/real-cli/, recorded by record-claude-copilot.ts there): the lines harness
 * parses, with the fields it reads; where the sessions are kept, and as what; the words of a
 * resume that finds no session; and the limit lines harness must recognise, read exactly as the
 * CLIs wrote them. test/agents/real/ runs the CLIs themselves.
 */
const REAL = join(FIXTURES, 'real-cli');
const CLAUDE = join(REAL, 'claude-2.1.332');
const COPILOT = join(REAL, 'copilot-1.0.102');
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);
const json = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;
interface Commands {
  transcript?: string;
  sessionFiles?: string[];
  runs: Record<string, { args: string[]; exit: number; stderr?: string }>;
  escaped: string[];
}

/** Each kind of event, with the fields that are set on it (across every event of that kind). */
function shapes(events: readonly { type: string }[]): Record<string, string[]> {
  const out: Record<string, Set<string>> = {};
  for (const e of events) for (const [k, v] of Object.entries(e)) if (v !== undefined) (out[e.type] ??= new Set()).add(k);
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort()]));
}

/** An --mcp-config naming a reporting server of the stand-ins' own (test/fixtures/claude/report-server.mjs). */
async function reportConfig(): Promise<string> {
  const path = join(await tempDir('report-config-'), 'mcp.json');
  await writeFile(path, JSON.stringify({ mcpServers: { harness: { command: process.execPath, args: [join(FIXTURES, 'claude', 'report-server.mjs')] } } }));
  return path;
}

function runStandIn(bin: string, name: string, args: string[], cwd: string, env: Record<string, string>) {
  return spawnSync(join(bin, name), args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });
}

describe('the claude stand-in, held to Claude Code 2.1.332', () => {
  const commands = json<Commands>(join(CLAUDE, 'commands.json'));

  it('was recorded without a request leaving 127.0.0.1', () => {
    expect(commands.escaped).toEqual([]);
  });

  it('prints the stream-json lines harness reads, with the fields the real CLI gives them', async () => {
    const real = lines(join(CLAUDE, 'stream-success.jsonl')).flatMap(parseClaudeLine);
    expect(real.map((e) => e.type)).toEqual(['init', 'text', 'tool_use', 'tool_result', 'tool_use', 'tool_result', 'text', 'result']);
    const claude = await standInClaude([[{ report: { type: 'progress_update', message: 'wrote it' } }]]);
    const cwd = await tempDir('claude-cwd-');
    const ran = runStandIn(
      claude.bin,
      'claude',
      ['-p', 'Write out/notes.txt.', '--output-format', 'stream-json', '--verbose', '--mcp-config', await reportConfig()],
      cwd,
      claude.env,
    );
    expect(ran.status).toBe(0);
    const stand = ran.stdout.split('\n').filter(Boolean).flatMap(parseClaudeLine);
    const realShapes = shapes(real);
    const standShapes = shapes(stand);
    for (const kind of ['init', 'tool_use', 'tool_result', 'result'] as const) expect(standShapes[kind]).toEqual(realShapes[kind]);
    // And the raw lines carry what parseClaudeLine reads under the same names.
    const raw = (text: string, type: string) =>
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.type === type)!;
    const realResult = raw(readFileSync(join(CLAUDE, 'stream-success.jsonl'), 'utf8'), 'result');
    const standResult = raw(ran.stdout, 'result');
    for (const key of ['subtype', 'is_error', 'result', 'session_id', 'num_turns', 'duration_ms', 'total_cost_usd', 'usage']) {
      expect(realResult).toHaveProperty(key);
      expect(standResult).toHaveProperty(key);
    }
  });

  it('keeps its transcript where 2.1.332 does, as entries 2.1.332 writes, and resumes it by id', async () => {
    // The real transcript: <config dir>/projects/<cwd, each non-alphanumeric character "-">/<session id>.jsonl.
    expect(commands.transcript).toBe('.claude/projects/-tmp-harness-real-cli-record-claude-notes/<session id>.jsonl');
    const real = lines(join(CLAUDE, 'session.jsonl')).map((l) => JSON.parse(l) as { type: string; sessionId?: string; message?: { role: string } });
    const realTypes = new Set(real.map((e) => e.type));
    expect(real.filter((e) => e.type === 'user' || e.type === 'assistant').every((e) => e.message?.role === e.type && typeof e.sessionId === 'string')).toBe(
      true,
    );

    const claude = await standInClaude([[{ report: { type: 'progress_update', message: 'wrote it' } }], [{ recall: 'reported' }]]);
    const cwd = await tempDir('claude-cwd-');
    const first = runStandIn(
      claude.bin,
      'claude',
      ['-p', 'Write out/notes.txt.', '--output-format', 'stream-json', '--verbose', '--mcp-config', await reportConfig()],
      cwd,
      claude.env,
    );
    expect(first.status).toBe(0);
    const sessionId = (JSON.parse(first.stdout.split('\n')[0]!) as { session_id: string }).session_id;
    const path = claudeTranscriptPath(cwd, sessionId, claude.env);
    expect(existsSync(path)).toBe(true);
    const stand = lines(path).map((l) => JSON.parse(l) as { type: string; sessionId?: string; message?: { role: string } });
    expect(stand.map((e) => e.type)).toEqual(['user', 'assistant', 'user']);
    const resumed = runStandIn(claude.bin, 'claude', ['-p', 'Go on.', '--output-format', 'stream-json', '--verbose', '--resume', sessionId], cwd, claude.env);
    expect(resumed.status).toBe(0);
    for (const entry of stand) {
      expect(realTypes).toContain(entry.type);
      expect(entry.sessionId).toBe(sessionId);
      if (entry.type === 'user' || entry.type === 'assistant') expect(entry.message?.role).toBe(entry.type);
    }
  });

  it('answers a --resume of a session it does not have as 2.1.332 does', async () => {
    const real = commands.runs.unknownSession!;
    const id = real.args[real.args.indexOf('--resume') + 1]!;
    const claude = await standInClaude([[]]);
    const ran = runStandIn(
      claude.bin,
      'claude',
      ['-p', 'x', '--output-format', 'stream-json', '--verbose', '--resume', id],
      await tempDir('claude-cwd-'),
      claude.env,
    );
    expect([ran.status, ran.stderr.trim()]).toEqual([real.exit, real.stderr]);
  });

  it("reads 2.1.332's turn limit as the plan's failure, not one to retry", () => {
    expect(json<Commands>(join(CLAUDE, 'commands.json')).runs.maxTurns!.exit).toBe(1);
    const result = lines(join(CLAUDE, 'stream-max-turns.jsonl')).flatMap(parseClaudeLine).at(-1) as ClaudeResult;
    expect(result).toMatchObject({ subtype: 'error_max_turns', isError: true, errors: ['Reached maximum number of turns (1)'] });
    expect(resultFailure(result)).toEqual({
      retryable: false,
      error: expect.stringMatching(/^claude stopped at its turn limit \(2 turns, \$0\.01, [\d.]+s\): Reached maximum number of turns \(1\)$/),
    });
  });

  it("reads 2.1.332's stop at --max-budget-usd: the plan's failure, its own cost, and the tokens its usage leaves at zero (taken per model)", () => {
    // Recorded by test/agents/real/claude.test.ts (budget_usd): the run's one turn took 400000 input and 2000 output tokens.
    const result = lines(join(CLAUDE, 'stream-max-budget.jsonl')).flatMap(parseClaudeLine).at(-1) as ClaudeResult;
    expect(result).toMatchObject({ subtype: 'error_max_budget_usd', isError: true, errors: ['Reached maximum budget ($0.05)'], numTurns: 1 });
    expect(usageOf(result)).toEqual({ turns: 1, costUsd: 1.6400000000000001, inputTokens: 400_000, outputTokens: 2_000 });
    expect(resultFailure(result)).toEqual({
      retryable: false,
      error: 'claude stopped at its spending limit (--max-budget-usd; 1 turn, $1.64, 0.2s): Reached maximum budget ($0.05)',
    });
    // Where usage is not zero it is what counts, as every other result line of 2.1.332 has it (cache reads included).
    const success = lines(join(CLAUDE, 'stream-success.jsonl')).flatMap(parseClaudeLine).at(-1) as ClaudeResult;
    expect(usageOf(success)).toMatchObject({ inputTokens: 4800 + 300, outputTokens: 92 });
  });

  it("recognises 2.1.332's usage-limit lines exactly as it wrote them: its words, and the stream's exact reset", () => {
    const events = lines(join(CLAUDE, 'stream-usage-limit.jsonl')).flatMap(parseClaudeLine);
    const result = events.find((e): e is ClaudeResult => e.type === 'result')!;
    const limit = events.filter((e): e is ClaudeRateLimit => e.type === 'rate_limit').at(-1)!;
    expect(result).toMatchObject({
      subtype: 'success',
      isError: true,
      result: expect.stringMatching(/^You've hit your 5-hour limit · resets \d{1,2}(:\d{2})?[ap]m \(UTC\)$/),
    });
    expect(limit).toMatchObject({ status: 'rejected', limitType: 'five_hour' });
    const reason = usageLimitFailure(result, limit)!;
    const resetsAt = new Date(limit.resetsAt! * 1000);
    expect(reason).toBe(`claude stopped at the model's usage limit: ${result.result!} (resets ${resetsAt.toISOString()})`);
    expect(rateLimitOf(reason, new Date())).toEqual({ resetsAt, evidence: result.result });
    // Without the stream's event, the words alone: their wall-clock time, within the day.
    const worded = rateLimitOf(usageLimitFailure(result, undefined)!, new Date(resetsAt.getTime() - 3_600_000))!;
    expect(worded.evidence).toBe(result.result);
    expect(Math.abs(worded.resetsAt!.getTime() - resetsAt.getTime())).toBeLessThan(60_000);
  });
});

describe('the copilot stand-in, held to Copilot CLI 1.0.102', () => {
  const commands = json<Commands>(join(COPILOT, 'commands.json'));

  it('was recorded without a request leaving 127.0.0.1', () => {
    expect(commands.escaped).toEqual([]);
  });

  it('prints the events harness reads, with the fields the real CLI gives them, and the closing line', async () => {
    const real = lines(join(COPILOT, 'events-success.jsonl')).flatMap(parseCopilotLine);
    expect(real.map((e) => e.type)).toEqual(['init', 'turn', 'text', 'tool_use', 'tool_result', 'turn', 'text', 'result']);
    const copilot = await standInCopilot([[{ turns: 1 }, { text: 'Wrote out/notes.txt.' }]], { token: false });
    const usage = join(await tempDir('copilot-usage-'), 'usage.json');
    const ran = runStandIn(
      copilot.bin,
      'copilot',
      [
        '-p',
        'Write out/notes.txt.',
        '--output-format',
        'json',
        '--session-id=5e55104e-0000-4000-8000-00000000c0b1',
        '--allow-all-tools',
        '--usage-output-file',
        usage,
      ],
      await tempDir('copilot-cwd-'),
      { ...copilot.env, COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1' },
    );
    expect(ran.status).toBe(0);
    const stand = ran.stdout.split('\n').filter(Boolean).flatMap(parseCopilotLine);
    const realShapes = shapes(real);
    const standShapes = shapes(stand);
    // Every kind the real run printed, the stand-in prints, with the same fields (its messages may say their output tokens, as GitHub's models do).
    for (const kind of Object.keys(realShapes)) expect(standShapes[kind]?.filter((k) => k !== 'outputTokens')).toEqual(realShapes[kind]);
    // The usage file: the same figures under the same names.
    const realFile = json<{ modelMetrics: Record<string, { usage: Record<string, number> }> }>(join(COPILOT, 'usage-success.json'));
    const standFile = json<{ modelMetrics: Record<string, { usage: Record<string, number> }> }>(usage);
    expect(Object.keys(Object.values(standFile.modelMetrics)[0]!.usage).sort()).toEqual(Object.keys(Object.values(realFile.modelMetrics)[0]!.usage).sort());
    expect(Object.keys(usageFileOf(readFileSync(usage, 'utf8'))!).sort()).toEqual(
      Object.keys(usageFileOf(readFileSync(join(COPILOT, 'usage-success.json'), 'utf8'))!).sort(),
    );
  });

  it("after --resume writes the session's totals to the usage file, as 1.0.102 does (what harness counts a resumed run from)", () => {
    const first = usageFileOf(readFileSync(join(COPILOT, 'usage-success.json'), 'utf8'))!;
    const after = usageFileOf(readFileSync(join(COPILOT, 'usage-resumed.json'), 'utf8'))!;
    // The recording's model reported 1000 + 1100 tokens in on the first run, 1000 + 1300 on the resumed one.
    expect([first.inputTokens, after.inputTokens]).toEqual([2100, 2100 + 2300]);
    expect(commands.runs.resumed!.args).toContain('--resume=5e55104e-0000-4000-8000-00000000c0b1');
    // What the model was sent on the resume: the first run's conversation, then the answer.
    const sent = JSON.stringify(json(join(COPILOT, 'resumed-request-messages.json')));
    expect(sent).toContain("printf 'first");
    expect(sent).toContain('A person answered checkpoint \\"store\\"');
  });

  it('keeps its sessions where 1.0.102 does, with files of the same names', async () => {
    expect(commands.sessionFiles).toEqual(expect.arrayContaining(['events.jsonl', 'workspace.yaml', 'checkpoints']));
    const copilot = await standInCopilot([[{ text: 'Done.' }]], { token: false });
    const id = '5e55104e-0000-4000-8000-00000000c0b3';
    runStandIn(copilot.bin, 'copilot', ['-p', 'x', '--output-format', 'json', `--session-id=${id}`, '--allow-all-tools'], await tempDir('copilot-cwd-'), {
      ...copilot.env,
      COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1',
    });
    const folder = join(copilotSessionHome(copilot.env), id);
    const files = readdirSync(folder, { recursive: true, encoding: 'utf8' });
    for (const file of files) expect(commands.sessionFiles).toContain(file);
    const realYaml = readFileSync(join(COPILOT, 'session-workspace.yaml'), 'utf8');
    for (const key of readFileSync(join(folder, 'workspace.yaml'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(':')[0]!))
      expect(realYaml).toMatch(new RegExp(`^${key}: `, 'm'));
  });

  it('answers a --resume of a session it does not have as 1.0.102 does', async () => {
    const real = commands.runs.unknownSession!;
    const id = real.args.find((a) => a.startsWith('--resume='))!;
    const copilot = await standInCopilot([[]], { token: false });
    const ran = runStandIn(copilot.bin, 'copilot', ['-p', 'x', '--output-format', 'json', id, '--allow-all-tools'], await tempDir('copilot-cwd-'), {
      ...copilot.env,
      COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1',
    });
    expect([ran.status, ran.stderr.split('\n')[0]]).toEqual([real.exit, real.stderr!.split('\n')[0]]);
  });

  it("recognises 1.0.102's stop at a provider's rate limit exactly as it wrote it, and the stand-in's session.error has its fields", async () => {
    const events = lines(join(COPILOT, 'events-rate-limit.jsonl')).flatMap(parseCopilotLine);
    const error = events.find((e): e is CopilotError => e.type === 'error')!;
    expect(error).toEqual({
      type: 'error',
      errorType: 'rate_limit',
      statusCode: 429,
      message: expect.stringMatching(
        /^Failed to get response from the AI model; retried 5 times \(total retry wait time: [\d.]+ seconds\) Last error: 429 Rate limit reached for requests$/,
      ),
    });
    expect(commands.runs.rateLimit!.exit).toBe(1);
    expect(copilotLimitFailure(error, new Date())).toBe(`copilot stopped at the Copilot rate limit: ${error.message}`);

    const copilot = await standInCopilot([[{ error: { errorType: 'rate_limit', message: error.message, statusCode: 429 } }]], { token: false });
    const ran = runStandIn(
      copilot.bin,
      'copilot',
      ['-p', 'x', '--output-format', 'json', '--session-id=5e55104e-0000-4000-8000-00000000c0b4', '--allow-all-tools'],
      await tempDir('copilot-cwd-'),
      { ...copilot.env, COPILOT_PROVIDER_BASE_URL: 'http://127.0.0.1:9/v1' },
    );
    expect(ran.status).toBe(commands.runs.rateLimit!.exit);
    const stand = ran.stdout.split('\n').filter(Boolean).flatMap(parseCopilotLine) as CopilotEvent[];
    expect(shapes(stand).error).toEqual(shapes(events).error);
  });
});
