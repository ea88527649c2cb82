import { join } from 'node:path';
import { loadSpec } from '../engine/core/spec/load.js';
import { readSpecFiles } from '../machine/spec-files.js';
import { jobSummary } from './job-summary.js';
import type { WorkerOutcome } from './outcome.js';
import { runPhaseWorker } from './phase-worker.js';
import { runPlanWorker } from './plan-worker.js';
import { findSpecDir } from './spec-dir.js';
import { readWorkerConfig } from './worker-config.js';
import { WorkerError } from './worker-error.js';
import type { WorkerDeps, WorkerRun } from './worker-run.js';
import { PLAN_READING } from '../engine/importers/dialects.js';

/** Problems listed in a failure before "and N more". */
const PROBLEMS_SHOWN = 10;

/**
 * The worker the app dispatches: read the config and the spec from the checkout, then do the
 * plan or verify the phase. What a person must fix (no such spec, plan or issue) ends as a
 * failed outcome with its reason; anything else is thrown for the entry point to report.
 */
export async function runWorker(deps: WorkerDeps): Promise<WorkerOutcome> {
  const { inputs, log } = deps;
  const target = inputs.target.kind === 'plan' ? inputs.target.plan : `phase-${inputs.target.phase}`;
  try {
    const { config, problems } = await readWorkerConfig(deps.root);
    for (const p of problems) log.warning(`${p} (the defaults are used instead)`);
    const specsRoot = inputs.specsRoot ?? config.specs_root;
    const specPath = await findSpecDir(deps.root, specsRoot, inputs.spec);
    const loaded = loadSpec(await readSpecFiles(join(deps.root, specPath)), PLAN_READING);
    if (!loaded.spec || !loaded.valid) {
      const errors = loaded.problems.filter((p) => p.severity === 'error');
      const shown = errors.slice(0, PROBLEMS_SHOWN).map((p) => `${specPath}/${p.file}:${p.line}: ${p.message}`);
      if (errors.length > PROBLEMS_SHOWN) shown.push(`… and ${errors.length - PROBLEMS_SHOWN} more`);
      throw new WorkerError(`spec ${inputs.spec} does not validate (run harness validate ${specPath}): ${shown.join('; ')}`);
    }
    const run: WorkerRun = {
      ...deps,
      config,
      notes: problems.map((p) => `config problem, defaults used: ${p}`),
      spec: loaded.spec,
      specPath,
      env: deps.env ?? {},
      now: deps.now ?? (() => new Date()),
    };
    return inputs.target.kind === 'plan' ? await runPlanWorker(run, inputs.target.plan) : await runPhaseWorker(run, inputs.target.phase);
  } catch (e) {
    if (!(e instanceof WorkerError)) throw e;
    return { result: 'failed', failure: e.message, summary: jobSummary({ heading: `${inputs.spec} / ${target}`, status: 'failed', detail: e.message }) };
  }
}
