import { join } from 'node:path';
import { formatProblem } from '../engine/core/spec/problem.js';
import type { Plan } from '../engine/core/spec/model.js';
import { KNOWLEDGE_ROOT } from '../engine/forge/knowledge-draft.js';
import type { SurfacedEntry } from '../engine/knowledge/documents/loop.js';
import type { AttemptHistory } from '../engine/lifecycle/signals.js';
import { heldOutLine, holdoutSettings, isHeldOut } from '../engine/knowledge/holdout/holdout.js';
import { planSubject, surface } from '../engine/knowledge/surfacing/surface.js';
import { secretValues } from '../machine/content-safety.js';
import { readImports } from '../machine/source-imports.js';
import { loadSurfacingIndex, safeSurfaced } from '../machine/surfacing-store.js';
import { importedFrom } from '../engine/knowledge/documents/plan-profile.js';
import { attributeSurfaced } from '../agents/knowledge-attribution.js';
import type { WorkerRun } from './worker-run.js';

/** Whether the plan runs without surfaced knowledge (knowledge.holdout): decided by its ids and the seed alone, as `harness run` decides it. */
export function heldOutOnRunner(run: Pick<WorkerRun, 'config' | 'spec'>, plan: Pick<Plan, 'id'>): boolean {
  return isHeldOut(holdoutSettings(run.config.knowledge), run.spec.id, plan.id);
}

/** Store problems named in the job log before "and N more". */
const PROBLEMS_SHOWN = 10;

/**
 * Surfacing on a runner: the checkout's `.harness/knowledge/` is the base branch's, so what
 * is surfaced is what people merged. Knowledge helps the work and never stops it: a store
 * that cannot be read, or files in it that do not parse, are warnings in the job log.
 */
export async function surfaceOnRunner(run: WorkerRun, plan: Plan, history?: () => Promise<AttemptHistory | undefined>): Promise<SurfacedEntry[]> {
  // Held out for the comparison: nothing on any attempt, a retry's included, as on this machine; the job summary says so.
  if (heldOutOnRunner(run, plan)) {
    const line = heldOutLine(plan.id, run.config.knowledge.holdout);
    run.log.info(line);
    run.notes.push(line);
    return [];
  }
  const dir = join(run.root, KNOWLEDGE_ROOT);
  if (run.config.knowledge.repository !== undefined) {
    run.notes.push(`knowledge.repository is ${run.config.knowledge.repository}; the worker surfaces from this repository's ${KNOWLEDGE_ROOT}/ only`);
  }
  let index;
  try {
    index = await loadSurfacingIndex(dir);
  } catch (e) {
    run.log.warning(`${KNOWLEDGE_ROOT} could not be read (${(e as Error).message}); plan ${plan.id} runs without surfaced knowledge`);
    return [];
  }
  for (const p of index.problems.slice(0, PROBLEMS_SHOWN)) run.log.warning(`${formatProblem(p, KNOWLEDGE_ROOT)} (not surfaced)`);
  if (index.problems.length > PROBLEMS_SHOWN) run.log.warning(`… and ${index.problems.length - PROBLEMS_SHOWN} more problems in ${KNOWLEDGE_ROOT}`);
  // On a retry the error the last attempt met is the strongest query there is.
  const signature = history ? (await history())?.failure?.signature : undefined;
  const subject = { ...planSubject(plan, await readImports(run.root, importedFrom(plan))), ...(signature !== undefined ? { signatures: [signature] } : {}) };
  const found = surface(index, subject, {
    budgetTokens: run.config.knowledge.surface.budget_tokens,
    maxEntries: run.config.knowledge.surface.max_entries,
    ...(run.config.knowledge.genes ? { candidateShare: run.config.knowledge.genes.candidate_share } : {}),
  });
  const entries = await safeSurfaced(await attributeSurfaced(dir, found), {
    roots: [run.root, run.tempDir],
    secrets: secretValues({ ...process.env, ...run.env }),
  });
  for (const e of entries) run.log.info(`surfaced ${e.kind} ${KNOWLEDGE_ROOT}/${e.path} (score ${e.score}): ${e.why}`);
  return entries;
}
