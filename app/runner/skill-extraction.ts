import { join } from 'node:path';
import { TRAILER_SPEC } from '../engine/core/agents/commit-message.js';
import type { Phase } from '../engine/core/spec/model.js';
import { KNOWLEDGE_ROOT } from '../engine/forge/knowledge-draft.js';
import { secretValues } from '../machine/content-safety.js';
import { retrospectLocally, writeExtractions } from '../machine/skill-retrospective.js';
import { runOrigin, runProject } from './capture.js';
import type { RunContext } from './context.js';
import { noteActivity } from './documents.js';

/**
 * Skill extraction when a phase is verified (knowledge.skills.extract: `verification` says
 * whether it runs then, `execution` whether the candidates of the phase's plans, which did the
 * work, count; both on by default): the candidates of the phase's plans in the run's signals
 * (a plan repaired, a fix an agent reported) through the four gates, on the integration
 * worktree's store. Extracted skills and one `extraction` line per candidate, extracted or
 * skipped, are committed on the integration branch with the run's records: proposals, which
 * the person reviews with the rest of it. Judging (the reflector agent may take minutes) runs
 * outside the integration mutex; writing and committing take it. A failure is reported and the
 * run goes on.
 */
export async function extractDuringRun(ctx: RunContext, phase: Phase): Promise<void> {
  const settings = ctx.options.reflection;
  if (!settings) return;
  const extract = settings.config.knowledge.skills.extract;
  if (!extract.verification || !extract.execution) return;
  const worktree = ctx.integration.worktree;
  const store = join(worktree, KNOWLEDGE_ROOT);
  const safety = { roots: [worktree, ctx.repo.root], secrets: secretValues({ ...process.env, ...ctx.options.env }) };
  const when = `phase ${phase.id} verified`;
  try {
    const o = {
      store,
      root: worktree,
      config: settings.config,
      now: ctx.now(),
      spec: ctx.spec.id,
      plans: phase.plans,
      project: await runProject(ctx),
      origin: runOrigin(ctx),
      safety,
    };
    const result = await retrospectLocally({ ...o, ...(settings.reflector ? { judge: settings.reflector } : {}), write: false });
    if (result.extractions.length === 0) return;
    const extracted = result.extractions.filter((x) => x.decision === 'extracted');
    const what = `${extracted.length} skill${extracted.length === 1 ? '' : 's'} extracted of ${result.extractions.length} candidate${result.extractions.length === 1 ? '' : 's'}`;
    await ctx.mutex.run(async () => {
      const written = await writeExtractions(o, result.extractions);
      if (written.length === 0) return;
      await ctx.repo.commitPaths(
        worktree,
        written.map((w) => w.path),
        {
          subject: `knowledge(${ctx.spec.id}): ${what}, when ${when}`,
          body: result.extractions.map((x) => `${x.decision} ${x.path ?? `skills/${x.name}`}: ${x.reason}`).join('\n'),
          trailers: [{ key: TRAILER_SPEC, value: ctx.spec.id }],
        },
      );
    });
    noteActivity(ctx, `skills: ${what}`);
    ctx.reporter.event({
      kind: 'info',
      text: `skills (${when}): ${what}${extracted.length > 0 ? `, committed on ${ctx.integration.branch} for review: ${extracted.map((x) => x.path).join(', ')}` : ''}`,
    });
  } catch (e) {
    ctx.reporter.event({
      kind: 'info',
      text: `skill extraction (${when}) failed and was skipped: ${(e as Error).message}; run harness retrospective ${ctx.spec.id} in the integration worktree to see why`,
    });
  }
}
