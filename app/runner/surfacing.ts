import { join } from 'node:path';
import { formatProblem } from '../engine/core/spec/problem.js';
import type { Plan } from '../engine/core/spec/model.js';
import { KNOWLEDGE_ROOT } from '../engine/forge/knowledge-draft.js';
import type { KnowledgeIndex } from '../engine/knowledge/surfacing/knowledge-index.js';
import { heldOutLine, isHeldOut } from '../engine/knowledge/holdout/holdout.js';
import type { SurfacedEntry } from '../engine/knowledge/documents/loop.js';
import { DEFAULT_SURFACE, planSubject, surface, type SurfaceOptions } from '../engine/knowledge/surfacing/surface.js';
import { secretValues, type SafetyOptions } from '../machine/content-safety.js';
import { readImports } from '../machine/source-imports.js';
import { loadSurfacingIndex, safeSurfaced } from '../machine/surfacing-store.js';
import { importedFrom } from '../engine/knowledge/documents/plan-profile.js';
import { attributeSurfaced } from '../agents/knowledge-attribution.js';
import { readJson, writeJsonAtomic } from './atomic.js';
import { planHistory } from './capture.js';
import type { RunContext } from './context.js';

export type { RunKnowledge } from './context.js';

/**
 * Surfacing in `harness run`: the knowledge store is read once per run (the person's
 * checkout's `.harness/knowledge/`, where a lesson they accepted is, whether or not the run's
 * integration branch has it yet; or the directory `--knowledge` named), and each plan's
 * brief gets what applies to it. What a plan was given is kept with its session, so that an
 * attempt resumed after a stop gives the agent, and records, the same knowledge.
 */

/** Whether the plan runs without surfaced knowledge (knowledge.holdout): the same on every attempt, resume and retry. */
export function planHeldOut(ctx: RunContext, plan: Plan): boolean {
  return isHeldOut(ctx.options.knowledge?.holdout, ctx.spec.id, plan.id);
}

const indexes = new WeakMap<RunContext, Promise<KnowledgeIndex | undefined>>();

function storeDir(ctx: RunContext): string {
  return ctx.options.knowledge?.dir ?? join(ctx.repo.root, KNOWLEDGE_ROOT);
}

/**
 * The run's index of the store. Knowledge helps the work and must never stop it: a store
 * that cannot be read is reported and the run goes on without it; files that do not parse
 * are reported once and left out.
 */
function runIndex(ctx: RunContext): Promise<KnowledgeIndex | undefined> {
  let index = indexes.get(ctx);
  if (!index) {
    const dir = storeDir(ctx);
    index = loadSurfacingIndex(dir).then(
      (loaded) => {
        if (loaded.problems.length > 0) {
          const shown = loaded.problems.slice(0, 10).map((p) => `  ${formatProblem(p, dir)}`);
          const more =
            loaded.problems.length > shown.length ? [`  … and ${loaded.problems.length - shown.length} more (harness surface <PLAN.md> lists them all)`] : [];
          const n = loaded.problems.length;
          ctx.reporter.event({
            kind: 'info',
            text: `knowledge: ${n} problem${n === 1 ? '' : 's'} in ${dir} (those files are not surfaced):\n${[...shown, ...more].join('\n')}`,
          });
        }
        const p = loaded.pending.length;
        if (p > 0)
          ctx.reporter.event({
            kind: 'info',
            text: `knowledge: ${p} file${p === 1 ? '' : 's'} in ${dir} not committed (${loaded.pending.slice(0, 3).join(', ')}${p > 3 ? ', …' : ''}): pending review, not surfaced; commit ${p === 1 ? 'it' : 'them'} once reviewed`,
          });
        return loaded;
      },
      (e: unknown) => {
        ctx.reporter.event({ kind: 'info', text: `knowledge: ${dir} could not be read (${(e as Error).message}); plans run without surfaced knowledge` });
        return undefined;
      },
    );
    indexes.set(ctx, index);
  }
  return index;
}

function optionsOf(ctx: RunContext): SurfaceOptions {
  const k = ctx.options.knowledge;
  return k
    ? { budgetTokens: k.budgetTokens, maxEntries: k.maxEntries, ...(k.candidateShare === undefined ? {} : { candidateShare: k.candidateShare }) }
    : DEFAULT_SURFACE;
}

function safety(ctx: RunContext): SafetyOptions {
  return { roots: [ctx.repo.root, storeDir(ctx)], secrets: secretValues({ ...process.env, ...ctx.options.env }) };
}

function recordPath(ctx: RunContext, plan: Plan): string {
  return join(ctx.store.sessionDir(plan.id), 'knowledge.json');
}

/** What applies to a plan, for its brief: the attempt's own record when it is resumed, else surfaced now and recorded. */
export async function surfaceForPlan(ctx: RunContext, plan: Plan, resumed: boolean): Promise<SurfacedEntry[]> {
  // Held out for the comparison: nothing on any attempt, a retry's included, or the comparison would not be clean.
  if (planHeldOut(ctx, plan)) {
    await writeJsonAtomic(recordPath(ctx, plan), []);
    ctx.reporter.event({ kind: 'info', text: heldOutLine(plan.id, ctx.options.knowledge!.holdout!.fraction) });
    return [];
  }
  if (resumed) {
    const recorded = await readJson<SurfacedEntry[]>(recordPath(ctx, plan));
    if (recorded) return recorded;
  }
  const index = await runIndex(ctx);
  // On a retry the error the last attempt met is the strongest query there is (read under the mutex, as the store is written).
  const signature = index ? (await ctx.mutex.run(planHistory(ctx, plan)))?.failure?.signature : undefined;
  // Its files that exist on the integration branch (those it reads, those it changes) say what it works with.
  const imports = index ? await readImports(ctx.integration.worktree, importedFrom(plan)) : [];
  const subject = { ...planSubject(plan, imports), ...(signature !== undefined ? { signatures: [signature] } : {}) };
  const entries = index ? await safeSurfaced(await attributeSurfaced(storeDir(ctx), surface(index, subject, optionsOf(ctx))), safety(ctx)) : [];
  await writeJsonAtomic(recordPath(ctx, plan), entries);
  if (entries.length > 0) ctx.reporter.event({ kind: 'info', text: `${plan.id} brief: ${entries.map((e) => `${e.kind} ${e.path}`).join(', ')}` });
  for (const e of entries) ctx.reporter.event({ kind: 'info', text: `${plan.id} surfaced ${e.kind} ${e.path} (score ${e.score}): ${e.why}` });
  return entries;
}

/** What applies to each plan of a phase, for research ahead: nothing is recorded, the plans surface again when they start. */
export async function surfaceForPhase(ctx: RunContext, plans: readonly Plan[]): Promise<Map<string, SurfacedEntry[]>> {
  const index = await runIndex(ctx);
  const out = new Map<string, SurfacedEntry[]>();
  if (!index) return out;
  // A held-out plan gets nothing here either: the research document is one more way into its brief.
  for (const plan of plans)
    if (!planHeldOut(ctx, plan))
      out.set(
        plan.id,
        await safeSurfaced(surface(index, planSubject(plan, await readImports(ctx.integration.worktree, importedFrom(plan))), optionsOf(ctx)), safety(ctx)),
      );
  return out;
}
