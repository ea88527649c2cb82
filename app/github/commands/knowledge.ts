import type { Command } from '../../engine/forge/command.js';
import { projectName, type KnowledgeDraft } from '../../engine/forge/knowledge-draft.js';
import { spikeDraft } from '../../engine/forge/spike-draft.js';
import type { KnowledgePr } from '../../gateway/knowledge-pr.js';
import { loadTemplate } from '../../machine/templates.js';
import { specsHere, type Invocation } from './invocation.js';

/**
 * `/harness spike "<question>"`: a knowledge PR adding the spike's HYPOTHESIS.md (from
 * templates/spike/HYPOTHESIS.md) under spikes/<project>/<slug>/, where the project is the
 * repository's name. Asked on a plan issue or a spec PR about one spec, the spike names it.
 */
export async function spike(inv: Invocation, command: Extract<Command, { name: 'spike' }>, askedIn: string): Promise<string> {
  const specs = await specsHere(inv);
  const draft = spikeDraft({
    template: await loadTemplate('spike/HYPOTHESIS.md'),
    question: command.question,
    project: projectName(inv.github.repo.repo),
    ...(specs.length === 1 ? { spec: specs[0]! } : {}),
    now: inv.now(),
    askedIn,
  });
  const pr = await openKnowledgePr(inv, draft);
  switch (pr.state) {
    case 'opened':
      return `Opened spike #${pr.number} for "${command.question}": write the hypothesis and its success criteria there. ${pr.url}`;
    case 'open':
      return `This question has a spike already: #${pr.number} (${pr.url}).`;
    case 'merged':
      return `This question was spiked already, in #${pr.number} (merged): its folder is \`${draft.files[0]!.path.replace(/\/HYPOTHESIS\.md$/, '')}\`.`;
    case 'closed':
      return `A spike for this question was closed without merging: #${pr.number}. Reopen it, or ask a differently worded question.`;
  }
}

/** A knowledge PR from the repository's default branch (the gateway's openKnowledgePr). */
export function openKnowledgePr(inv: Invocation, draft: KnowledgeDraft): Promise<KnowledgePr> {
  return inv.github.openKnowledgePr(draft, inv.defaultBranch);
}
