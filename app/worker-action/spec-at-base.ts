import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Plan } from '../engine/core/spec/model.js';
import { loadSpec } from '../engine/core/spec/load.js';
import { PLAN_READING } from '../engine/importers/dialects.js';
import { readSpecFiles } from '../machine/spec-files.js';
import { summaryCosts } from '../machine/summary-costs.js';
import { WorkerError } from './worker-run.js';

const run = promisify(execFile);

/**
 * The plan as the spec's base has it at dispatch (the commit the plan branch started from),
 * whatever the branch holds now: verification runs the plan's must_pass from there, so an agent
 * that edits its own PLAN.md on the branch cannot weaken the checks its work is judged by.
 */
export async function planAtBase(
  root: string,
  base: string,
  specPath: string,
  planId: string,
  tempDir: string,
): Promise<{ plan: Plan; costs: Map<string, number> }> {
  await mkdir(tempDir, { recursive: true });
  const dir = await mkdtemp(join(tempDir, 'harness-spec-at-base-'));
  try {
    // Positional parameters, never interpolated: the spec path is the repository's.
    await run('sh', ['-c', 'git archive --format=tar "$1" -- "$2" | tar -x -C "$3"', 'sh', base, specPath, dir], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
    const loaded = loadSpec(await readSpecFiles(join(dir, specPath)), PLAN_READING);
    const plan = loaded.spec?.planById.get(planId);
    if (!plan)
      throw new WorkerError(
        `plan ${planId} is not in ${specPath} at the base commit ${base.slice(0, 7)}: the worker verifies plans as the base has them; merge the spec first`,
      );
    // What the spec's merged plans cost, as the base records it: the agent cannot lower it on its branch either.
    return { plan, costs: await summaryCosts(join(dir, specPath)) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
