import type { Context } from 'probot';
import { knowledgeBranch } from '../../engine/forge/knowledge-draft.js';
import { appGateway } from '../app-gateway.js';
import { ownComment } from '../spec-pr/own-comment.js';

/** The worker run a comment on a spike's PR is about: a redelivered event finds it and writes nothing. */
function marker(runId: number): string {
  return `<!-- harness:spike-run ${runId} -->`;
}

export interface SpikeRun {
  id: number;
  conclusion: string | null;
  html_url: string;
}

/**
 * A spike's worker run finished (`workflow_run` completed, titled `harness knowledge/spike/<slug>`).
 * The worker tells the spike's PR what it found by rewriting its description, which notifies
 * nobody, and a run that was cancelled or timed out tells it nothing: so the App says on the
 * open PR how the run ended, once per run. A spike changes no plan issue and starts no round.
 */
export async function onSpikeRunCompleted(context: Context<'workflow_run.completed'>, slug: string, run: SpikeRun): Promise<void> {
  const github = appGateway(context);
  const branch = knowledgeBranch('spike', slug);
  const pull = (await github.pullRequests({ head: branch, state: 'open' }))[0];
  if (!pull) {
    context.log.info(`spike ${slug}: run ${run.id} ended (${run.conclusion}) and ${branch} has no open pull request; nothing to tell`);
    return;
  }
  const mark = marker(run.id);
  if (await ownComment(github, pull.number, (c) => c.body.startsWith(mark))) return;
  const text =
    run.conclusion === 'success'
      ? `The spike's [worker run](${run.html_url}) decided it: the description above now says what it found, and the records are in this PR. Merging accepts the decision; closing the PR drops it.`
      : `The spike's [worker run](${run.html_url}) ended without a decision (${run.conclusion ?? 'no conclusion'}). What it finished is committed on this branch, and the description says why it stopped when the worker could tell. Ask again with the same \`/harness spike\` question to run it from there.`;
  await github.comment(pull.number, `${mark}\n${text}`);
}
