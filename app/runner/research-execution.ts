import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { researchDocument, researchPath } from '../engine/core/run/research.js';
import type { Phase } from '../engine/core/spec/model.js';
import type { RunContext } from './context.js';
import { commitDocuments } from './documents.js';
import { surfaceForPhase } from './surfacing.js';

/** Has any plan of the phase started (or ended)? Research ahead is for phases not begun. */
export function phaseStarted(ctx: Pick<RunContext, 'schedule'>, phase: Phase): boolean {
  return phase.plans.some((id) => {
    const s = ctx.schedule.plan(id);
    return s !== 'pending' && s !== 'ready';
  });
}

/** Research ahead for a later phase, in a slot no plan could use: a planning document only. */
export async function executeResearch(ctx: RunContext, phase: Phase): Promise<void> {
  ctx.schedule.setResearch(phase.id, 'running');
  await ctx.mutex.run(async () => {
    const path = researchPath(phase);
    // The mutex may have held this behind merges: research for a phase whose plans have started comes too late to help them.
    if (!existsSync(join(ctx.integration.specDir, path)) && !phaseStarted(ctx, phase)) {
      const specPrefix = ctx.specRel === '.' ? '' : `${ctx.specRel}/`;
      const tracked = (await ctx.repo.trackedFiles(ctx.integration.worktree)).filter((f) => !f.startsWith(specPrefix) || specPrefix === '');
      const commit = await ctx.repo.revParse('HEAD', ctx.integration.worktree);
      const knowledge = await surfaceForPhase(
        ctx,
        phase.plans.map((id) => ctx.spec.planById.get(id)!),
      );
      const text = researchDocument({ spec: ctx.spec, phase, tracked, commit, now: ctx.now(), knowledge });
      await commitDocuments(ctx, { [path]: text }, `research ahead for phase ${phase.id}`);
      ctx.reporter.event({ kind: 'research', phase: phase.id, path });
    }
  });
  ctx.schedule.setResearch(phase.id, 'done');
}
