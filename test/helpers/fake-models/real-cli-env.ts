/**
 * What a test gives the real agent CLIs (test/helpers/real-cli.ts) to run against a fake model
 * on 127.0.0.1 (openai-responses.ts, gemini.ts) and nothing else: their homes of their own, no
 * user config, no telemetry or update checks, the model's address.
 */
import { mkdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RealCli } from '../real-cli.js';

/**
 * Codex's settings for a fake Responses API, as `-c` overrides (agents.codex.extra_args): a
 * provider of its own at `baseUrl` (the built-in openai provider would first try the Responses
 * WebSocket, which the API this fake stands for also serves, five times, then fall back to
 * HTTPS), its key from CODEX_API_KEY, no update check and no analytics.
 */
export function codexFakeArgs(baseUrl: string): string[] {
  return [
    '-c',
    'model_provider="fake"',
    '-c',
    `model_providers.fake={name="fake",base_url="${baseUrl}",env_key="CODEX_API_KEY",wire_api="responses",supports_websockets=false,request_max_retries=0,stream_max_retries=0}`,
    '-c',
    'check_for_update_on_startup=false',
    '-c',
    'analytics.enabled=false',
  ];
}

/**
 * The environment for a `harness run` whose agent is the real codex and/or gemini: PATH with the
 * CLIs first, a HOME of its own (gemini's homes go under it), a CODEX_HOME, keys, TZ.
 *
 * Codex 0.171.0 refuses to make its helper binaries (codex-linux-sandbox, which its bubblewrap
 * sandbox runs) under the temporary directory ("Refusing to create helper binaries under
 * temporary dir"), and then every sandboxed command fails "bwrap: execvp codex-linux-sandbox:
 * No such file or directory": its CODEX_HOME must not be under TMPDIR. The tests' own TMPDIR is
 * where everything else goes; the CLIs get a TMPDIR beside their homes instead.
 */
export async function realCliEnv(clis: RealCli[], extra: Record<string, string> = {}): Promise<Record<string, string>> {
  const root = await mkdtemp(join(tmpdir(), 'real-cli-'));
  const dirs = { home: join(root, 'home'), codexHome: join(root, 'codex-home'), tmp: join(root, 'tmp') };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  return {
    PATH: `${clis.map((c) => c.binDir).join(':')}:${process.env.PATH}`,
    HOME: dirs.home,
    CODEX_HOME: dirs.codexHome,
    TMPDIR: dirs.tmp,
    CODEX_API_KEY: 'sk-fake-0123456789abcdefghijklmnopqrstuv',
    OPENAI_API_KEY: '',
    GEMINI_API_KEY: 'fake-gemini-key',
    // The CLI's clock words a reset in its own zone, and harness reads it back in that zone.
    TZ: 'America/New_York',
    // No colours, no terminal: what a headless run sees.
    NO_COLOR: '1',
    TERM: 'dumb',
    ...extra,
  };
}

/**
 * A run's clock the test moves (as test/runner/usage-pause.test.ts's): `now` is `at`, and a timer
 * the run sets is only recorded. A usage limit's reset is then reached by setting `at`, not by waiting.
 */
export function movableClock(start: Date): { at: Date; timers: number[]; now(): Date; after(ms: number, fn: () => void): () => void } {
  const clock = {
    at: start,
    timers: [] as number[],
    now: () => clock.at,
    after(ms: number, _fn: () => void) {
      clock.timers.push(ms);
      return () => undefined;
    },
  };
  return clock;
}

/** Two days on from `now`, on a minute: the CLIs word a reset to the minute, with its date. */
export function resetTwoDaysOn(now: Date): Date {
  return new Date((Math.floor(now.getTime() / 60_000) + 2 * 1440) * 60_000);
}
