import { join } from 'node:path';
import { planningAgentName } from '../engine/planning/planning-agent.js';
import { planningAnswer } from '../engine/planning/planning-answer.js';
import { phaseResearchPath } from '../engine/planning/planning-steps.js';
import { researchBranch, type ResearchTarget } from '../engine/planning/planning-target.js';
import { systemClock } from '../machine/clock.js';
import { readTextIfExists } from '../machine/files.js';
import { agentsConfig } from '../agents/config.js';
import { runPlanningHere } from '../agents/planning-here.js';
import { Checkout } from './checkout.js';
import { jobProgress } from './job-log.js';
import type { PlanningWorkerRun } from './planning-worker.js';
import { jobSummary } from './reports.js';
import { remoteAccess, type WorkerOutcome } from './worker-run.js';

/**
 * Research ahead on a runner (docs/github-flow.md, 11): the round claimed
 * `harness/<spec>/research-PP` at the base head while an earlier phase executes. The worker
 * runs `research-phase PP` there exactly as the command does (a research document, checked,
 * never code), pushes it to the claim branch and opens a pull request into the base, where a
 * person merges it before the phase's plans start (they start from the base). A phase whose
 * research document the base has already is left as it is.
 */
export async function runResearchAheadWorker(run: PlanningWorkerRun, target: ResearchTarget): Promise<WorkerOutcome> {
  const heading = `${run.inputs.spec} / research ahead for phase ${target.phase}`;
  const specDir = await run.findSpec();
  const path = `${specDir}/${phaseResearchPath(target.phase)}`;
  if ((await readTextIfExists(join(run.root, path))) !== undefined) {
    const detail = `\`${path}\` is on ${run.base} already: nothing to research`;
    run.log.info(detail);
    return { result: 'verified', summary: jobSummary({ heading, status: 'verified', detail, notes: run.notes }) };
  }
  const checkout = new Checkout(run.root, remoteAccess(run));
  const identity = await checkout.ensureIdentity();
  const agent = planningAgentName({ worker: run.inputs.agent, planning: run.config.planning?.agent, configured: run.config.agent });
  run.notes.push(`agent \`${agent}\`; commits as ${identity.name}; spec \`${specDir}\``);
  const command = { name: 'research-phase', phase: target.phase } as const;
  const outcome = await runPlanningHere({
    root: run.root,
    specDir,
    command,
    agent,
    agents: agentsConfig(run.config),
    env: run.env,
    logDir: join(run.tempDir, 'harness', 'research', target.phase),
    progress: jobProgress(run.log),
    clock: systemClock(run.now),
  });
  const branch = researchBranch(run.inputs.spec, target.phase);
  const text = planningAnswer({ command, spec: run.inputs.spec, branch, outcome, ...(run.runUrl ? { runUrl: run.runUrl } : {}) });
  if (outcome.kind !== 'committed') {
    const detail = `${text}\n\nThe branch \`${branch}\` stays, so that no later round researches this phase again: delete it to let one try.`;
    return {
      result: 'failed',
      failure: `research ahead for phase ${target.phase}: ${outcome.reason}`,
      summary: jobSummary({ heading, status: 'failed', detail, notes: run.notes }),
    };
  }
  await checkout.push(branch);
  const pull = await run.forge.openPullRequest({
    head: branch,
    base: run.base,
    title: `Research ahead: ${run.inputs.spec} phase ${target.phase}`,
    body: `Research for phase ${target.phase} of ${run.inputs.spec}, written while an earlier phase executes, so that the phase's plans start from it. Merge it before they start (they start from \`${run.base}\`); close it to leave them without.\n\n${text}`,
  });
  run.log.info(`research for phase ${target.phase}: ${pull.url}`);
  return {
    result: 'verified',
    pullRequest: { number: pull.number, url: pull.url },
    summary: jobSummary({ heading, status: 'verified', detail: `${text}\n\n${pull.url}`, notes: run.notes }),
  };
}
