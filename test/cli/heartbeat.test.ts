import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fileAppears } from '../helpers/file-appears.js';
import { gate } from '../helpers/gate.js';
import { makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';
import { manualTicker } from '../helpers/ticker.js';

/**
 * The newcomer's trial (issue 37): a step working for 25 s, and phase verification, printed
 * nothing. Now a silence of 10 s says what runs. The step and the check wait for the test's
 * word (a gate: test/helpers/gate.ts), and the heartbeat's time moves only when the test moves it: nothing here
 * waits on the clock.
 */
describe('harness run: the heartbeat', () => {
  it('says what runs after 10 s without output: the agent and its task, then the check of the plan and of the phase', async () => {
    const signals = mkdtempSync(join(tmpdir(), 'harness-heartbeat-'));
    // Each step says it works (working-N), then waits at its gate; each run of the check says it
    // started (checking-N), then waits at the check's gate.
    const work = gate(join(signals, 'go-work'));
    const check = gate(join(signals, 'go-check'));
    const wait = `n=$(ls "${signals}" | grep -c '^checking-'); n=$((n+1)); touch "${signals}/checking-$n"; ${check.wait}\n`;
    const root = await makeRepo({
      'wait.sh': wait,
      ...specTree([
        {
          id: '01-01',
          steps: [1, 2].map((n) => `touch "${signals}/working-${n}" && ${work.wait}; mkdir -p out && echo ${n} >> out/01-01.txt`),
          checks: ['  - { id: made, type: file_exists, path: out/01-01.txt }', '  - { id: slow, type: build_succeeds, command: "sh wait.sh" }'],
        },
      ]),
    });
    const ticker = manualTicker();
    const running = runCli(['run', SPEC_DIR, '--agent', 'script'], root, { ticker });

    // Step 1 works: 12 s pass with nothing printed.
    await fileAppears(join(signals, 'working-1'));
    ticker.advance(12_000);
    work.open();
    // Step 2 works 6 s, then ends, and what the run prints of it starts the silence again.
    await fileAppears(join(signals, 'working-2'));
    ticker.advance(6_000);
    work.open();
    // Plan-level verification runs the slow check: 6 s after that output, nothing yet; at 12 s, a line.
    await fileAppears(join(signals, 'checking-1'));
    ticker.advance(6_000);
    ticker.advance(6_000);
    check.open();
    // Phase-level verification runs it again, on the merged work.
    await fileAppears(join(signals, 'checking-2'));
    ticker.advance(12_000);
    check.open();

    const r = await running;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const heartbeats = r.stdout.split('\n').filter((l) => / still (running|verifying)/.test(l));
    expect(heartbeats.map((l) => l.replace(/^\d\d:\d\d:\d\d /, ''))).toEqual([
      'still running: 01-01 (script, 12 s): "Step 1"',
      'still verifying 01-01: check slow "sh wait.sh" (12 s)',
      'still verifying phase 01: check 01-01/slow "sh wait.sh" (12 s)',
    ]);
    // Each stamped, as the run's other lines are.
    for (const l of heartbeats) expect(l).toMatch(/^\d\d:\d\d:\d\d still /);
    // The run is over: its heartbeat's timer is gone.
    expect(ticker.active).toBe(0);
    rmSync(signals, { recursive: true });
  });
});
