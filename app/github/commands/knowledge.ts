import type { Command } from '../../engine/forge/command.js';
import { projectName, type KnowledgeDraft } from '../../engine/forge/knowledge-draft.js';
import { spikeDraft, spikeFolder } from '../../engine/forge/spike-draft.js';
import { spikeInputs, spikeRunTitle } from '../../engine/forge/worker-target.js';
import { GitHubError } from '../../gateway/github-error.js';
import type { KnowledgePr } from '../../gateway/knowledge-pr.js';
import { makeSafe } from '../../machine/content-safety.js';
import { appSafety, safeDraft } from '../knowledge/app-safety.js';
import { loadTemplate } from '../../machine/templates.js';
import { specsHere, type Invocation } from './invocation.js';

/**
 * `/harness spike "<question>"`: the spike's knowledge PR, whose one commit adds its
 * HYPOTHESIS.md with the question (templates/spike/HYPOTHESIS.md) under
 * spikes/<project>/<slug>/, the project being the repository's name; then the worker is
 * dispatched on that branch to draft, run and decide the spike (worker-action/spike-worker.ts).
 * Asked on a plan issue or a spec PR about one spec, the spike names it. Asked again while
 * the PR is open, a spike with no decision and no worker running is run again from what its
 * branch holds.
 */
export async function spike(inv: Invocation, command: Extract<Command, { name: 'spike' }>, askedIn: string): Promise<string> {
  const specs = await specsHere(inv);
  const project = projectName(inv.github.repo.repo);
  const safety = appSafety(process.env, process.cwd());
  // The question is written into a commit, a PR and a reply: what it should not carry is taken out first.
  const question = (await makeSafe(command.question, safety)).text;
  const draft = await safeDraft(
    spikeDraft({
      template: await loadTemplate('spike/HYPOTHESIS.md'),
      question,
      project,
      ...(specs.length === 1 ? { spec: specs[0]! } : {}),
      now: inv.now(),
      askedIn,
    }),
    safety,
  );
  const folder = spikeFolder(project, draft.slug);
  const pr = await openKnowledgePr(inv, draft);
  switch (pr.state) {
    case 'opened': {
      const started = await startWorker(inv, draft.slug, false);
      if (started !== true) {
        return `Opened spike #${pr.number} for "${question}" (${pr.url}), but its worker could not be started: ${started}. Once that is fixed, ask again to start it.`;
      }
      return `Opened spike #${pr.number} for "${question}": its worker drafts the hypothesis and the experiment, runs it in \`${folder}/\` and writes the decision there. ${pr.url}`;
    }
    case 'open': {
      const entries = await inv.github.directory(folder, draft.branch);
      if (entries?.some((e) => e.name === 'DECISION.md' && e.type === 'file')) {
        return `This question has a spike already: #${pr.number} (${pr.url}), decided in \`${folder}/DECISION.md\`.`;
      }
      const running = (await inv.github.unfinishedWorkerRuns()).find((r) => r.displayTitle === spikeRunTitle(draft.slug));
      if (running) return `This question has a spike already: #${pr.number} (${pr.url}); its worker is ${running.status === 'queued' ? 'queued' : 'running'}.`;
      const started = await startWorker(inv, draft.slug, true);
      if (started !== true)
        return `This question has a spike already: #${pr.number} (${pr.url}), with no decision yet; its worker could not be started again: ${started}.`;
      return `This question has a spike already: #${pr.number} (${pr.url}), with no decision yet: its worker is started again, from what its branch holds.`;
    }
    case 'merged':
      return `This question was spiked already, in #${pr.number} (merged): its folder is \`${folder}\`.`;
    case 'closed':
      return `A spike for this question was closed without merging: #${pr.number}. Reopen it, or ask a differently worded question.`;
  }
}

/**
 * Dispatch the worker for a spike on the default branch (its copy of the workflow runs), or
 * say why it could not be: a repository without the worker workflow answers 404, and the
 * spike's PR is there all the same.
 */
async function startWorker(inv: Invocation, slug: string, resume: boolean): Promise<true | string> {
  try {
    await inv.github.dispatchWorker(inv.defaultBranch, { ...spikeInputs(slug), resume });
    return true;
  } catch (e) {
    if (e instanceof GitHubError) return e.explanation;
    throw e;
  }
}

/** A knowledge PR from the repository's default branch (the gateway's openKnowledgePr). */
export function openKnowledgePr(inv: Invocation, draft: KnowledgeDraft): Promise<KnowledgePr> {
  return inv.github.openKnowledgePr(draft, inv.defaultBranch);
}
