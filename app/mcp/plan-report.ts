import { join } from 'node:path';
import { loadSpec } from '../engine/core/spec/load.js';
import { PLAN_READING } from '../engine/importers/dialects.js';
import { readSpecFiles } from '../machine/spec-files.js';
import { readTextIfExists } from '../machine/files.js';
import { integrationBranch, RunRepo } from '../runner/repo.js';
import type { LocalSpec } from './local-specs.js';
import { McpToolError } from './tool-result.js';

export interface ReportDocument {
  /** SUMMARY.md, the plan's VERIFICATION.md, or its phase's VERIFICATION.md. */
  kind: 'summary' | 'verification' | 'phase-verification';
  /** Repository path. */
  path: string;
  /** Where it was read: the run's integration branch, or the working tree (after the run was merged). */
  from: string;
  text: string;
}

/**
 * A plan's SUMMARY.md and VERIFICATION.md, where harness writes them: the spec's
 * execution/phases/<phase>/ directory on the run's integration branch (harness run), or in the
 * checkout once that branch (or, from GitHub, the plan PR) is merged. A local run writes the
 * plan's verification into its SUMMARY.md and the phase's into VERIFICATION.md; the worker on
 * GitHub writes <plan>-VERIFICATION.md beside the summary. Whatever exists is returned.
 */
export async function readPlanReport(root: string, spec: LocalSpec, planId: string): Promise<ReportDocument[]> {
  const loaded = loadSpec(await readSpecFiles(join(root, spec.dir)), PLAN_READING);
  if (!loaded.spec) throw new McpToolError(`${spec.id} (${spec.dir}) cannot be read: run harness_validate on it for the problems`);
  const plan = loaded.spec.planById.get(planId);
  if (!plan) throw new McpToolError(`${spec.id} has no plan "${planId}": its plans are ${loaded.spec.plans.map((p) => p.id).join(', ')}`);
  const phase = loaded.spec.phases.find((p) => p.id === plan.phase);
  const dir = `${spec.dir}/execution/phases/${phase?.dir ?? plan.phase}`;
  const wanted = [
    { kind: 'summary' as const, path: `${dir}/${plan.id}-SUMMARY.md` },
    { kind: 'verification' as const, path: `${dir}/${plan.id}-VERIFICATION.md` },
    { kind: 'phase-verification' as const, path: `${dir}/VERIFICATION.md` },
  ];
  const repo = await RunRepo.open(root);
  const branch = integrationBranch(spec.id);
  const onBranch = await repo.branchExists(branch);
  const found: ReportDocument[] = [];
  for (const w of wanted) {
    if (onBranch && (await repo.git().run(['ls-tree', '--name-only', branch, '--', w.path])).trim() !== '') {
      found.push({ ...w, from: branch, text: await repo.git().run(['show', `${branch}:${w.path}`]) });
      continue;
    }
    const text = await readTextIfExists(join(repo.root, w.path));
    if (text !== undefined) found.push({ ...w, from: 'working tree', text });
  }
  return found;
}
