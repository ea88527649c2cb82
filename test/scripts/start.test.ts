import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';

/**
 * `npm start` runs the example end to end and ends with commands to try. A newcomer pastes
 * them from where they typed npm start, without harness on PATH: each must run as printed.
 * (An e2e case: the run of the whole example is its cost.)
 */

const run = promisify(execFile);
let here: string;
let out: string;

beforeAll(async () => {
  // Where the person stands: not the checkout, as npm says in INIT_CWD.
  here = mkdtempSync(join(tmpdir(), 'harness-newcomer-'));
  // No harness command on PATH, as before npm link.
  const path = (process.env.PATH ?? '')
    .split(':')
    .filter((d) => !existsSync(join(d, 'harness')))
    .join(':');
  const env: Record<string, string | undefined> = { ...process.env, INIT_CWD: here, PATH: path };
  const started = await run(join(ROOT, 'node_modules/.bin/tsx'), ['scripts/start.ts'], { cwd: ROOT, env, maxBuffer: 16 << 20 });
  out = started.stdout;
  // The whole example runs here (about two minutes on two idle cores): the limit catches a hang.
}, 900_000);

/** The command after `label` on its line, up to a two-space gap (a note in parentheses follows some). */
function commandAfter(label: string): string {
  const line = out.split('\n').find((l) => l.includes(label));
  expect(line, `a line with "${label}"`).toBeDefined();
  return line!
    .slice(line!.indexOf(label) + label.length)
    .trim()
    .split(/ {2,}/)[0]!;
}

describe('npm start', () => {
  it('runs the example to the end and says where every command below runs from', () => {
    expect(out).toContain('SPC-001: 10/10 plans verified, 3/3 phases verified');
    expect(out).toContain(`each command runs as pasted, from ${here}`);
  });

  it.each([
    ["the run's reflect advice", 'see it with:'],
    ["the built service's client", 'its client:'],
    ['the history', 'the history:'],
    ["the spec's status", 'its status:'],
  ])('ends with %s as a command that runs where the person stands', async (_what, label) => {
    const command = commandAfter(label);
    expect(command).not.toMatch(/^harness /);
    const result = await run('sh', ['-c', command], { cwd: here });
    expect(result.stdout.length, command).toBeGreaterThan(0);
  });
});
