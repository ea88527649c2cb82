import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { researchDocument, researchPath } from '../engine/core/run/research.js';
import type { Phase } from '../engine/core/spec/model.js';
import type { RunContext } from './context.js';
import { commitDocuments } from './documents.js';
import { surfaceForPhase } from './surfacing.js';

/** Research ahead for a later phase, in a slot no plan could use: a planning document only. */
export async function executeResearch(ctx: RunContext, phase: Phase): Promise<void> {
  ctx.schedule.setResearch(phase.id, 'running');
  await ctx.mutex.run(async () => {
    const path = researchPath(phase);
    if (!existsSync(join(ctx.integration.specDir, path))) {
      const specPrefix = ctx.specRel === '.' ? '' : `${ctx.specRel}/`;
      const tracked = (await ctx.repo.trackedFiles(ctx.integration.worktree)).filter((f) => !f.startsWith(specPrefix) || specPrefix === '');
      const commit = await ctx.repo.revParse('HEAD', ctx.integration.worktree);
      const knowledge = await surfaceForPhase(ctx, phase.plans.map((id) => ctx.spec.planById.get(id)!));
      const text = researchDocument({ spec: ctx.spec, phase, tracked, commit, now: ctx.now(), knowledge });
      await commitDocuments(ctx, { [path]: text }, `research ahead for phase ${phase.id}`);
      ctx.reporter.event({ kind: 'research', phase: phase.id, path });
    }
  });
  ctx.schedule.setResearch(phase.id, 'done');
}
