/**
 * The stand-ins the other tests run in place of the agent CLIs (test/fixtures/codex/codex-standin.mjs,
 * test/fixtures/gemini/gemini-standin.mjs), held to what the real pinned CLIs wrote against a fake
 * model (test/fixtures/real-cli/<cli>-<version>/, recorded by test/fixtures/real-cli/record-codex-gemini.ts):
 * the lines harness parses from their output, where their session files are and what their first
 * lines hold, the resume command they take, their words at the usage limit.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codexLimitOf } from '../../app/engine/core/agents/codex-limit.js';
import { parseCodexLine, rolloutUsage } from '../../app/engine/core/agents/codex-stream.js';
import { geminiLimitOf } from '../../app/engine/core/agents/gemini-limit.js';
import { parseGeminiLine } from '../../app/engine/core/agents/gemini-stream.js';
import { geminiSessionFiles } from '../../app/agents/gemini-session.js';
import { standInCodex } from '../helpers/codex-standin.js';
import { standInGemini } from '../helpers/gemini-standin.js';
import { tempDir } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/paths.js';
import { git } from '../helpers/repo.js';

const CODEX = join(FIXTURES, 'real-cli', 'codex-0.171.0');
const GEMINI = join(FIXTURES, 'real-cli', 'gemini-0.61.0');
const fixture = (dir: string, name: string) => readFileSync(join(dir, name), 'utf8');
const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** An event's shape: its type, its item's type, and the keys of both (values are the run's own). */
function shape(event: Record<string, unknown>): string {
  const item = event.item as Record<string, unknown> | undefined;
  const keys = Object.keys(event)
    .filter((k) => k !== 'item' && k !== 'timestamp')
    .sort();
  return `${String(event.type)}${item ? `/${String(item.type)}{${Object.keys(item).sort().join(',')}}` : ''}{${keys.join(',')}}`;
}

/** What harness makes of the lines: the parsed events' types (and item kinds). */
function parsedCodex(text: string): string[] {
  return text
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => parseCodexLine(l))
    .map((e) => ('item' in e ? `${e.type}/${e.phase}/${e.item.kind}` : e.type));
}

function run(bin: string, args: string[], cwd: string, env: Record<string, string>, input = ''): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(bin, args, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stdin.end(input);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout })));
}

async function checkout(): Promise<string> {
  const dir = await tempDir('standin-');
  git(dir, 'init', '--quiet');
  return dir;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** The wall-clock minute of an instant in a zone, as YYYY-MM-DDTHH-mm. */
function localMinute(at: Date, timeZone: string): string {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(at)
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day}T${p.hour}-${p.minute}`;
}

describe('the codex stand-in, held to codex 0.171.0', () => {
  const resumeArgv = JSON.parse(fixture(CODEX, 'resume-argv.json')) as string[];

  it('writes the --json lines the real CLI writes for a command and a closing message, a resumed thread and a stop at the usage limit', async () => {
    const cwd = await checkout();
    const resetsAt = new Date(Math.ceil(Date.now() / 60_000 + 2 * 1440) * 60_000);
    const codex = await standInCodex([
      [{ bash: "mkdir -p out && printf 'one\\n' > out/a.txt" }, { final: 'Wrote out/a.txt.' }],
      [{ final: 'Resumed: the file is there.' }],
      [{ limit: { plan: 'plus', resets_at: resetsAt.getTime() / 1000 } }],
    ]);
    const env = { ...codex.env, TZ: 'America/New_York', CODEX_HOME: codex.env.CODEX_HOME! };
    mkdirSync(env.CODEX_HOME, { recursive: true });
    // The arguments the real CLI took, harness's own flags, the provider's -c left out (the stand-in has no model to reach).
    const flags = resumeArgv.slice(2, resumeArgv.indexOf('-c', resumeArgv.indexOf('sandbox_mode="workspace-write"')));

    const first = await run(join(codex.bin, 'codex'), ['exec', ...flags, '-'], cwd, env, 'Write out/a.txt.\n');
    const thread = (JSON.parse(first.stdout.split('\n')[0]!) as { thread_id: string }).thread_id;
    const resumed = await run(join(codex.bin, 'codex'), ['exec', 'resume', ...flags, thread, '-'], cwd, env, 'Is it there?\n');
    const limited = await run(join(codex.bin, 'codex'), ['exec', ...flags, '-'], cwd, env, 'Write out/b.txt.\n');

    const exits = JSON.parse(fixture(CODEX, 'exit-codes.json')) as Record<string, number>;
    expect({ exec: first.code, resume: resumed.code, usageLimit: limited.code }).toEqual(exits);
    for (const [mine, real] of [
      [first.stdout, 'exec.jsonl'],
      [resumed.stdout, 'resume.jsonl'],
      [limited.stdout, 'usage-limit.jsonl'],
    ] as const) {
      expect(lines(mine).map(shape)).toEqual(lines(fixture(CODEX, real)).map(shape));
      expect(parsedCodex(mine)).toEqual(parsedCodex(fixture(CODEX, real)));
    }
    // The command as the real CLI shows it (a command holding a single quote is double-quoted).
    const command = (text: string) =>
      (lines(text).find((e) => (e.item as { type?: string } | undefined)?.type === 'command_execution')!.item as { command: string }).command;
    expect(command(first.stdout)).toBe(command(fixture(CODEX, 'exec.jsonl')));
    // A resumed run names the thread it continues.
    expect((JSON.parse(resumed.stdout.split('\n')[0]!) as { thread_id: string }).thread_id).toBe(thread);
    // The usage limit in the real CLI's words, which harness reads the same way (the reset, in the CLI's zone).
    const said = (text: string) => (lines(text).find((e) => e.type === 'turn.failed')!.error as { message: string }).message;
    const lead = (message: string) => message.replace(/try again at .*$/, '');
    expect(lead(said(limited.stdout))).toBe(lead(said(fixture(CODEX, 'usage-limit.jsonl'))));
    expect(codexLimitOf(said(limited.stdout), new Date(), 'America/New_York')?.resetsAt).toEqual(resetsAt);
    expect(codexLimitOf(said(fixture(CODEX, 'usage-limit.jsonl')), new Date('2026-12-05T18:30:00Z'), 'America/New_York')?.resetsAt).toEqual(
      new Date('2026-12-07T13:00:00Z'),
    );
  });

  it("keeps the thread where the real CLI does, named by the local time and the thread id, its first line the session's meta, its token counts as harness reads them", async () => {
    const cwd = await checkout();
    const codex = await standInCodex([[{ final: 'done' }]]);
    const env = { ...codex.env, TZ: 'America/New_York', CODEX_HOME: codex.env.CODEX_HOME! };
    mkdirSync(env.CODEX_HOME, { recursive: true });
    const done = await run(join(codex.bin, 'codex'), ['exec', '--json', '--ignore-user-config', '-'], cwd, env, 'hi\n');
    const thread = (JSON.parse(done.stdout.split('\n')[0]!) as { thread_id: string }).thread_id;

    const name = /^(\d{4})\/(\d{2})\/(\d{2})\/rollout-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})-([0-9a-f-]{36})\.jsonl$/;
    const real = fixture(CODEX, 'sessions.txt').split('\n').filter(Boolean);
    const mine = filesUnder(join(env.CODEX_HOME, 'sessions'));
    for (const path of [...real, ...mine]) expect(path).toMatch(name);
    expect(mine).toEqual([expect.stringMatching(new RegExp(`-${thread}\\.jsonl$`))]);
    // The name's time is the local time of the session's start, in the CLI's TZ (the fixture was recorded in America/New_York).
    const check = (path: string, text: string) => {
      const meta = lines(text)[0]!;
      expect(meta.type).toBe('session_meta');
      const m = name.exec(path)!;
      expect(`${m[4]}-${m[5]}-${m[6]}T${m[7]}-${m[8]}`).toBe(localMinute(new Date(meta.timestamp as string), 'America/New_York'));
      expect(`${m[1]}-${m[2]}-${m[3]}`).toBe(`${m[4]}-${m[5]}-${m[6]}`);
      expect((meta.payload as { id: string }).id).toBe(m[10]);
      expect((meta.payload as { session_id: string }).session_id).toBe(m[10]);
    };
    const realRollout = fixture(CODEX, 'rollout.jsonl');
    check(
      real.find((p) => realRollout.split('\n')[0]!.includes(name.exec(p)![10]!))!,
      realRollout,
    );
    check(mine[0]!, readFileSync(join(env.CODEX_HOME, 'sessions', mine[0]!), 'utf8'));
    // The thread's usage, as harness reads it for a resumed run (the last token_count).
    expect(rolloutUsage(realRollout)).toEqual({ inputTokens: 3000, cachedInputTokens: 600, outputTokens: 120 });
    expect(rolloutUsage(readFileSync(join(env.CODEX_HOME, 'sessions', mine[0]!), 'utf8'))).toEqual({
      inputTokens: expect.any(Number),
      cachedInputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
    });
  });

  it('takes exec resume with the options and positionals the real CLI takes', () => {
    const help = fixture(CODEX, 'exec-resume-help.txt');
    expect(help).toContain('Usage: codex exec resume [OPTIONS] [SESSION_ID] [PROMPT]');
    // Every option harness gives a resumed run is one the real CLI lists.
    for (const arg of resumeArgv.slice(2).filter((a) => a.startsWith('-') && a !== '-')) expect(help).toContain(arg);
  });
});

describe('the gemini stand-in, held to gemini 0.61.0', () => {
  const resumeArgv = JSON.parse(fixture(GEMINI, 'resume-argv.json')) as string[];

  it('writes the stream-json lines the real CLI writes for a file written and a closing message, a resumed session and the daily quota', async () => {
    const cwd = await checkout();
    const gemini = await standInGemini([
      [{ write: ['out/a.txt', 'one\n'] }, { text: 'Wrote out/a.txt.' }],
      [{ text: 'Resumed: the file is there.' }],
      [{ quota: true }],
    ]);
    const env = { ...gemini.env, GEMINI_CLI_HOME: join(gemini.env.HOME, 'cli-home') };
    const flags = resumeArgv.slice(2, resumeArgv.indexOf('--resume'));

    const first = await run(join(gemini.bin, 'gemini'), ['-p', 'Write out/a.txt.', ...flags], cwd, env);
    const session = (JSON.parse(first.stdout.split('\n')[0]!) as { session_id: string }).session_id;
    const resumed = await run(join(gemini.bin, 'gemini'), ['-p', 'Is it there?', ...flags, '--resume', session], cwd, env);
    const limited = await run(join(gemini.bin, 'gemini'), ['-p', 'Write out/b.txt.', ...flags], cwd, env);

    expect({ run: first.code, resume: resumed.code, quota: limited.code }).toEqual(JSON.parse(fixture(GEMINI, 'exit-codes.json')));
    // Each event's type and keys (a closing message may come in more deltas than one), and what harness parses of them.
    const kinds = (text: string) =>
      lines(text)
        .map((e) => `${String(e.type)}${e.role ? `/${String(e.role)}` : ''}{${Object.keys(e).sort().join(',')}}`)
        .filter((k, i, all) => k !== all[i - 1]);
    const parsed = (text: string) =>
      text
        .split('\n')
        .filter(Boolean)
        .flatMap((l) => parseGeminiLine(l))
        .map((e) => e.type)
        .filter((k, i, all) => k !== all[i - 1] || k !== 'text');
    for (const [mine, real] of [
      [first.stdout, 'stream.jsonl'],
      [resumed.stdout, 'resume.jsonl'],
      [limited.stdout, 'quota.jsonl'],
    ] as const) {
      expect(kinds(mine)).toEqual(kinds(fixture(GEMINI, real)));
      expect(parsed(mine)).toEqual(parsed(fixture(GEMINI, real)));
    }
    const toolUse = (text: string) => lines(text).find((e) => e.type === 'tool_use')!;
    expect([toolUse(first.stdout).tool_name, toolUse(first.stdout).parameters]).toEqual([
      toolUse(fixture(GEMINI, 'stream.jsonl')).tool_name,
      toolUse(fixture(GEMINI, 'stream.jsonl')).parameters,
    ]);
    expect(JSON.parse(resumed.stdout.split('\n')[0]!)).toMatchObject({ session_id: session });
    // The quota in the real CLI's words, read by harness alike.
    const error = (text: string) => (lines(text).find((e) => e.type === 'result')!.error as { message: string }).message;
    expect(error(limited.stdout)).toBe(error(fixture(GEMINI, 'quota.jsonl')));
    expect(geminiLimitOf(error(fixture(GEMINI, 'quota.jsonl')), new Date())).toBeDefined();
  });

  it("keeps the session where the real CLI does, and harness finds it there by its id from the file's first line", async () => {
    const cwd = await checkout();
    const gemini = await standInGemini([[{ text: 'done' }]]);
    const home = join(gemini.env.HOME, 'cli-home');
    const done = await run(join(gemini.bin, 'gemini'), ['-p', 'hi', '--output-format', 'stream-json', '--skip-trust'], cwd, {
      ...gemini.env,
      GEMINI_CLI_HOME: home,
    });
    const session = (JSON.parse(done.stdout.split('\n')[0]!) as { session_id: string }).session_id;

    const chat = /^tmp\/([^/]+)\/chats\/session-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-([0-9a-f]{8})\.jsonl$/;
    const real = fixture(GEMINI, 'home-files.txt')
      .split('\n')
      .filter((f) => f.includes('/chats/'));
    const mine = filesUnder(join(home, '.gemini')).filter((f) => f.includes('/chats/'));
    for (const path of [...real, ...mine]) expect(path).toMatch(chat);
    // The project's folder is named for the checkout's folder (the fixture's was "work").
    expect(chat.exec(real[0]!)![1]).toBe('work');
    // The first line: the same keys, and the session id harness reads.
    const header = (text: string) => lines(text)[0]!;
    const realHeader = header(fixture(GEMINI, 'session-main.jsonl'));
    const myHeader = header(readFileSync(join(home, '.gemini', mine[0]!), 'utf8'));
    expect(Object.keys(myHeader).sort()).toEqual(Object.keys(realHeader).sort());
    expect(myHeader.sessionId).toBe(session);
    expect(await geminiSessionFiles(home, session)).toEqual([join('.gemini', mine[0]!)]);
    expect(resumeArgv.slice(-2)).toEqual(['--resume', expect.stringMatching(/^[0-9a-f-]{36}$/)]);
  });
});
