import { join } from 'node:path';
import { TRAILER_SPEC } from '../engine/core/agents/commit-message.js';
import { KNOWLEDGE_ROOT } from '../engine/forge/knowledge-draft.js';
import { makeSafe, secretValues } from '../machine/content-safety.js';
import { reflectLocally, writeLessons } from '../machine/local-reflection.js';
import type { RunContext } from './context.js';

export type { RunReflection } from './context.js';
import { noteActivity } from './documents.js';

/**
 * Reflection when a phase, or the whole spec, is verified: on the integration worktree's
 * knowledge store, where the run's signals are, the new and linked lessons written and
 * committed with the run's records on the integration branch. They are proposals: the person
 * reviews them with the rest of the integration branch, and merging it accepts them. The
 * reflection itself (a reflector agent may take minutes) runs outside the integration mutex,
 * so merges go on meanwhile; only writing and committing the lessons takes it. A reflection
 * that fails is reported and the run goes on: lessons are never worth a run.
 */
export async function reflectDuringRun(ctx: RunContext, after: { phase: string } | 'spec'): Promise<void> {
  const settings = ctx.options.reflection;
  if (!settings) return;
  const wanted = after === 'spec' ? settings.config.knowledge.reflect.on_spec : settings.config.knowledge.reflect.on_phase;
  if (!wanted) return;
  const when = after === 'spec' ? `${ctx.spec.id} verified` : `phase ${after.phase} verified`;
  const worktree = ctx.integration.worktree;
  const store = join(worktree, KNOWLEDGE_ROOT);
  const safety = { roots: [worktree, ctx.repo.root], secrets: secretValues({ ...process.env, ...ctx.options.env }) };
  try {
    const result = await reflectLocally({
      store,
      root: worktree,
      config: settings.config,
      today: ctx.now(),
      ...(settings.reflector ? { reflector: settings.reflector } : {}),
      write: false,
      safety,
    });
    if (result.changes.length === 0) return;
    const created = result.changes.filter((c) => c.action === 'create');
    const linked = result.changes.filter((c) => c.action === 'link');
    const what = [
      created.length > 0 ? `${created.length} new lesson${created.length === 1 ? '' : 's'}` : '',
      linked.length > 0 ? `${linked.length} linked` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const body = (await makeSafe(result.changes.map((c) => `${c.action === 'create' ? 'new' : 'link'} ${c.path}: ${c.title}`).join('\n'), safety)).text;
    await ctx.mutex.run(async () => {
      const written = await writeLessons({ store, root: worktree, safety }, result.changes);
      await ctx.repo.commitPaths(
        worktree,
        written.map((w) => w.path),
        { subject: `knowledge(${ctx.spec.id}): ${what}, reflected when ${when}`, body, trailers: [{ key: TRAILER_SPEC, value: ctx.spec.id }] },
      );
    });
    noteActivity(ctx, `reflection: ${what}`);
    ctx.reporter.event({
      kind: 'info',
      text: `reflection (${when}): ${what}, committed on ${ctx.integration.branch} for review: ${result.changes.map((c) => c.path).join(', ')}`,
    });
  } catch (e) {
    ctx.reporter.event({
      kind: 'info',
      text: `reflection (${when}) failed and was skipped: ${(e as Error).message}; run harness reflect in the integration worktree to see why`,
    });
  }
}
