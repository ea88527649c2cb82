import { makeSafe, type SafetyOptions } from '../machine/content-safety.js';
import type { CheckOutput } from '../gateway/check-runs.js';
import type { WorkerForge, WorkerOutcome } from './worker-run.js';

/**
 * The worker's writes through the content-safety pass: what an agent printed reaches the plan
 * PR's body, a checkpoint's comment and the job's summary, and a secret in it must reach none.
 */
export function safeForge(forge: WorkerForge, safety: SafetyOptions): WorkerForge {
  const safe = async (text: string) => (await makeSafe(text, safety)).text;
  return {
    ...forge,
    comment: async (issue, body) => forge.comment(issue, await safe(body)),
    openPullRequest: async (pull) => forge.openPullRequest({ ...pull, title: await safe(pull.title), body: await safe(pull.body) }),
    createCheckRun: async (run) => forge.createCheckRun(run.output ? { ...run, output: await safeOutput(run.output) } : run),
    updateCheckRun: async (id, update) => forge.updateCheckRun(id, update.output ? { ...update, output: await safeOutput(update.output) } : update),
  };
  async function safeOutput(output: CheckOutput): Promise<CheckOutput> {
    return {
      ...output,
      title: await safe(output.title),
      summary: await safe(output.summary),
      ...(output.text === undefined ? {} : { text: await safe(output.text) }),
    };
  }
}

/** The job's summary and failure, which GitHub shows on the run's page, made safe the same way. */
export async function safeOutcome(outcome: WorkerOutcome, safety: SafetyOptions): Promise<WorkerOutcome> {
  const safe = async (text: string) => (await makeSafe(text, safety)).text;
  return { ...outcome, summary: await safe(outcome.summary), ...(outcome.failure === undefined ? {} : { failure: await safe(outcome.failure) }) };
}
