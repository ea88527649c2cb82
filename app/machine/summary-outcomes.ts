import { join } from 'node:path';
import { parseFrontmatter } from '../engine/core/spec/frontmatter.js';
import type { Phase } from '../engine/core/spec/model.js';
import { summaryOutcome, type PlanOutcome } from '../engine/knowledge/signals/plan-outcome.js';
import { readTextIfExists } from './files.js';

/**
 * The outcomes of a verified phase's plans for its completion signal (signals/plan-outcome.ts),
 * read from their SUMMARY.md (`execution/phases/<phase>/<plan>-SUMMARY.md` of the spec
 * directory), which both runtimes write with each verified plan: the integration worktree has
 * them locally, and the phase's checkout (every plan merged) on a runner. A plan without one,
 * or whose agent reads no brief, is left out.
 */
export async function summaryOutcomes(specDir: string, phase: Phase): Promise<PlanOutcome[]> {
  const dir = join(specDir, 'execution', 'phases', phase.dir ?? phase.id);
  const out: PlanOutcome[] = [];
  for (const plan of phase.plans) {
    const name = `${plan}-SUMMARY.md`;
    const text = await readTextIfExists(join(dir, name));
    if (text === undefined) continue;
    const parsed = parseFrontmatter(name, text);
    if (!parsed.ok) continue;
    const outcome = summaryOutcome(plan, parsed.frontmatter.data as Record<string, unknown>);
    if (outcome) out.push(outcome);
  }
  return out;
}
