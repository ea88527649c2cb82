import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordingReporter } from '../../app/runner/progress.js';
import { runSpec } from '../../app/runner/runner.js';
import { makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';
import { fileAppears } from '../helpers/file-appears.js';
import { gate } from '../helpers/gate.js';

describe('a plan resumed after its run was stopped', () => {
  it('counts the time it worked, not the hours nothing ran', async () => {
    // The step says it started, then waits at a gate: the first run is stopped while it waits.
    const signals = mkdtempSync(join(tmpdir(), 'harness-dead-time-'));
    const go = gate(join(signals, 'go'));
    const root = await makeRepo(
      specTree([
        {
          id: '01-01',
          steps: [`touch "${signals}/waiting" && ${go.wait}; mkdir -p out && echo done > out/01-01.txt`],
        },
      ]),
    );
    const base = Date.parse('2026-03-02T09:00:00Z');
    const options = { specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 1, agent: 'script', pollMs: 25 };

    const stop = new AbortController();
    const first = runSpec({ ...options, reporter: new RecordingReporter(), signal: stop.signal, now: () => new Date(base) });
    await fileAppears(join(signals, 'waiting'));
    stop.abort();
    await first;

    // Five hours later, the run is started again and the step finishes at once.
    go.open();
    const second = await runSpec({ ...options, reporter: new RecordingReporter(), now: () => new Date(base + 5 * 3_600_000) });
    expect(second.plans).toEqual({ '01-01': 'verified' });
    const result = JSON.parse(readFileSync(join(root, '.orchestration/SPC-007/sessions/01-01/result.json'), 'utf8')) as { durationMinutes: number };
    expect(result.durationMinutes).toBe(0);
    rmSync(signals, { recursive: true });
  });
});
