import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summaryDocument } from '../../app/engine/core/run/summary-document.js';
import { loadSpec } from '../../app/engine/core/spec/load.js';
import { summaryOutcomes } from '../../app/machine/summary-outcomes.js';
import { loadTemplate } from '../../app/machine/templates.js';
import { tempDir } from '../helpers/cli.js';
import { specOf } from '../helpers/spec.js';

/**
 * A verified phase's plan outcomes, read back from the SUMMARY.md both runtimes write with each
 * verified plan (summary-document.ts): what the phase's completion signal carries, locally from
 * the integration worktree and on a runner from the phase's checkout.
 */
describe("a phase's plan outcomes from its SUMMARY.md files", () => {
  it('reads held out, attempts, cost and the knowledge of each verified plan; leaves out the script agent, a failed plan and a plan without one', async () => {
    const spec = loadSpec(specOf([{ id: '01-01' }, { id: '01-02' }, { id: '01-03' }, { id: '01-04' }, { id: '01-05' }])).spec!;
    const phase = spec.phases[0]!;
    const dir = await tempDir('harness-summaries-');
    const template = await loadTemplate('SUMMARY.md');
    const write = async (
      id: string,
      o: { agent?: string; status?: 'verified' | 'failed'; attempts?: number; heldOut?: boolean; costUsd?: number; knowledge?: string[] },
    ) => {
      const text = summaryDocument(template, {
        spec: spec.id,
        plan: spec.planById.get(id)!,
        status: o.status ?? 'verified',
        agent: o.agent ?? 'claude',
        started: '2026-04-01T09:00:00Z',
        finished: '2026-04-01T09:10:00Z',
        durationMinutes: 10,
        attempts: o.attempts ?? 1,
        branch: `harness/${spec.id}/${id}`,
        commits: [],
        deviations: [],
        ...(o.knowledge
          ? { knowledge: o.knowledge.map((path) => ({ path, kind: 'lesson' as const, title: 'A lesson.', text: 'Do this.', score: 3, why: 'tags' })) }
          : {}),
        ...(o.costUsd === undefined ? {} : { usage: { costUsd: o.costUsd, turns: 4 } }),
        ...(o.heldOut ? { heldOut: true } : {}),
      });
      await mkdir(join(dir, 'execution', 'phases', phase.dir ?? phase.id), { recursive: true });
      await writeFile(join(dir, 'execution', 'phases', phase.dir ?? phase.id, `${id}-SUMMARY.md`), text);
    };
    await write('01-01', { heldOut: true, costUsd: 0.42, knowledge: [] });
    await write('01-02', { attempts: 2, knowledge: ['lessons/testing/a.lesson.md'] });
    await write('01-03', { agent: 'script' });
    await write('01-04', { status: 'failed', attempts: 2 });

    expect(await summaryOutcomes(dir, phase)).toEqual([
      { plan: '01-01', held_out: true, attempts: 1, first_pass: true, cost_usd: 0.42, knowledge: [] },
      { plan: '01-02', held_out: false, attempts: 2, first_pass: false, knowledge: ['lessons/testing/a.lesson.md'] },
    ]);
  });
});
