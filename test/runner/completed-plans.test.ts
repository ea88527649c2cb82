import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordingReporter } from '../../app/runner/progress.js';
import { runSpec } from '../../app/runner/runner.js';
import { OrchestrationStore } from '../../app/runner/store.js';
import { makeRepo, SPEC_DIR, specTree, type StepPlan } from '../helpers/repo.js';

describe('harness run: plans done before harness (completed:, as harness import writes for GSD work reported done)', () => {
  it('counts them verified, runs what depends on them, and never runs them again', async () => {
    const events = join(await mkdtemp(join(tmpdir(), 'harness-done-')), 'events');
    const step = (id: string) => `echo "ran ${id}" >> "$EVENTS"; mkdir -p out; echo ${id} > out/${id}.txt`;
    const plans: StepPlan[] = [
      { id: '01-01', extra: 'completed: "2026-02-03"', steps: ['echo "ran 01-01" >> "$EVENTS"; exit 9'] },
      { id: '01-02', dependsOn: ['01-01'], steps: [step('01-02')] },
      { id: '02-01', extra: 'completed: "2026-02-10"', files: ['out/02-01.txt'], steps: ['echo "ran 02-01" >> "$EVENTS"; exit 9'] },
      { id: '02-02', dependsOn: ['02-01'], steps: [step('02-02')] },
    ];
    // The work GSD did is in the repository already.
    const root = await makeRepo({ ...specTree(plans), 'out/01-01.txt': 'done in GSD\n', 'out/02-01.txt': 'done in GSD\n' });
    const reporter = new RecordingReporter();
    const outcome = await runSpec({
      specDir: join(root, SPEC_DIR),
      specArg: SPEC_DIR,
      slots: 2,
      agent: 'script',
      reporter,
      pollMs: 25,
      env: { EVENTS: events },
    });

    expect(outcome.plans).toEqual({ '01-01': 'verified', '01-02': 'verified', '02-01': 'verified', '02-02': 'verified' });
    expect(outcome.complete).toBe(true);
    expect(readFileSync(events, 'utf8').trim().split('\n').sort()).toEqual(['ran 01-02', 'ran 02-02']);
    const store = new OrchestrationStore(join(root, '.orchestration/SPC-007'));
    expect(await store.readResult('01-01')).toBeUndefined();
    expect((await store.readResult('01-02'))?.outcome).toBe('verified');
    // Phase 01 still verifies the merged work, the completed plan's checks with the rest.
    expect((await store.readPhase('01'))?.outcome).toBe('verified');
  });
});
