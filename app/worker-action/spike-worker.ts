import { join } from 'node:path';
import { knowledgeBranch, KNOWLEDGE_ROOT } from '../engine/forge/knowledge-draft.js';
import { spikeReport, spikeTitle, type SpikeReportInput } from '../engine/forge/spike-pr.js';
import type { SpikeOutcome } from '../engine/lifecycle/run-spike.js';
import { spikeAgentName } from '../engine/lifecycle/spike-agent.js';
import { systemClock } from '../machine/clock.js';
import { makeSafe, secretValues } from '../machine/content-safety.js';
import { agentsConfig } from '../agents/config.js';
import { runSpikeHere } from '../agents/run-spike-here.js';
import { findSpikeFolders } from '../agents/spike-folder.js';
import { Checkout } from './checkout.js';
import { jobProgress } from './job-log.js';
import { remoteAccess, WorkerError, type WorkerOutcome, type WorkerRun } from './worker-run.js';

/** A spike's run: the config is read; there is no spec to load. */
export type SpikeWorkerRun = Omit<WorkerRun, 'spec' | 'specPath'>;

/**
 * A spike on a runner (`/harness spike`): the checkout is the spike's branch, opened by the App
 * with the question's HYPOTHESIS.md. The spike runs exactly as `harness spike` runs it
 * (agents/run-spike-here.ts); what it committed is pushed to the branch, and the spike's
 * knowledge PR is told what was found, or why it could not finish. No plan issue is read or
 * written: a spike is nobody's plan.
 */
export async function runSpikeWorker(run: SpikeWorkerRun, slug: string): Promise<WorkerOutcome> {
  const { log, forge } = run;
  const branch = knowledgeBranch('spike', slug);
  const folders = await findSpikeFolders(run.root, slug);
  if (folders.length === 0) {
    throw new WorkerError(
      `the checkout of ${branch} has no spike ${slug}: no ${KNOWLEDGE_ROOT}/spikes/<project>/${slug}/HYPOTHESIS.md; open the spike with /harness spike "<question>"`,
    );
  }
  if (folders.length > 1)
    throw new WorkerError(`spike ${slug} is filed in more than one folder (${folders.join(', ')}); keep one and remove the others from ${branch}`);
  const folder = folders[0]!;
  const checkout = new Checkout(run.root, remoteAccess(run));
  const identity = await checkout.ensureIdentity();
  const agent = spikeAgentName({ spike: run.config.knowledge.spike?.agent, worker: run.inputs.agent, configured: run.config.agent });
  run.notes.push(`agent \`${agent}\`; commits as ${identity.name}; folder \`${folder}\``);
  const logDir = join(run.tempDir, 'harness', 'spikes', slug);

  const outcome = await runSpikeHere({
    root: run.root,
    folder,
    agent,
    agents: agentsConfig(run.config),
    env: run.env,
    logDir,
    progress: jobProgress(log),
    clock: systemClock(run.now),
  });
  // What the stages committed is the spike's record so far, whatever the end: a later run goes on from it.
  if (outcome.commits.length > 0) await checkout.push(branch);

  // Without the question (its record cannot be read) the PR keeps the title it has.
  const question = outcome.identity?.question;
  const report = (
    await makeSafe(spikeReport(reportInput(outcome, question ?? `the spike ${slug}`, folder, agent, run.runUrl)), {
      roots: [run.root, run.tempDir],
      secrets: secretValues({ ...process.env, ...run.env }),
    })
  ).text;
  const pull = (await forge.pullRequests({ head: branch, state: 'open' }))[0];
  if (pull) {
    await forge.updatePullRequest(pull.number, { ...(question === undefined ? {} : { title: spikeTitle(question) }), body: report });
    log.info(`told the spike's PR #${pull.number} what was found: ${pull.url}`);
  } else {
    log.warning(`no open pull request for ${branch}: the spike was closed or merged meanwhile; its records are pushed to the branch`);
  }
  const summary = `## harness spike ${slug}\n\n${outcome.kind === 'decided' ? '**✅ Decided**' : '**❌ Failed**'}${pull ? `: [#${pull.number}](${pull.url})` : ''}\n\n${run.notes.map((n) => `- ${n}`).join('\n')}\n\n${report}`;
  return {
    result: outcome.kind === 'decided' ? 'verified' : 'failed',
    ...(outcome.kind === 'failed' ? { failure: `spike ${slug}: ${outcome.reason}` } : {}),
    ...(pull ? { pullRequest: { number: pull.number, url: pull.url } } : {}),
    summary,
  };
}

function reportInput(outcome: SpikeOutcome, question: string, folder: string, agent: string, runUrl: string | undefined): SpikeReportInput {
  const input: SpikeReportInput = {
    question,
    folder,
    agent,
    discarded: outcome.discarded,
    redactions: outcome.redactions,
    dropped: outcome.dropped,
    retries: outcome.retries,
    ...(runUrl === undefined ? {} : { runUrl }),
  };
  if (outcome.kind === 'decided') {
    input.decided = {
      decision: outcome.decision,
      experiment: outcome.experiment,
      decisionBody: outcome.decisionBody,
      experimentBody: outcome.experimentBody,
      results: outcome.results,
    };
  } else {
    input.failed = { reason: outcome.reason, problems: outcome.problems, ...(outcome.stage === undefined ? {} : { stage: outcome.stage }) };
  }
  return input;
}
