import { renderTemplate } from '../core/documents/render-template.js';
import { knowledgeBranch, knowledgeLabels, KNOWLEDGE_ROOT, type KnowledgeDraft } from './knowledge-draft.js';
import { slug as slugOf } from './slug.js';
import { spikeTitle } from './spike-pr.js';

export interface SpikeDraftInput {
  /** templates/spike/HYPOTHESIS.md as shipped. */
  template: string;
  question: string;
  project: string;
  /** The spec the question came up in, when there was exactly one. */
  spec?: string;
  now: Date;
  /** Where and by whom it was asked, one line of Markdown ("Asked by @ana in #12."). */
  askedIn: string;
}

/** A spike's folder in the repository's knowledge store: `.harness/knowledge/spikes/<project>/<slug>`. */
export function spikeFolder(project: string, slug: string): string {
  return `${KNOWLEDGE_ROOT}/spikes/${project}/${slug}`;
}

/**
 * A spike as it is opened (`harness spike`, `/harness spike "<question>"`): its HYPOTHESIS.md
 * under spikes/<project>/<slug>/, holding the question and who asked it. That record is where
 * every run of the spike starts from: the spike agent then drafts the hypothesis and the
 * experiment in its place (engine/lifecycle/run-spike.ts).
 */
export function spikeDraft(input: SpikeDraftInput): KnowledgeDraft {
  const slug = slugOf(input.question);
  const path = `${spikeFolder(input.project, slug)}/HYPOTHESIS.md`;
  const content = renderTemplate(
    input.template,
    {
      spike: slug,
      project: input.project,
      spec: input.spec,
      question: input.question,
      status: 'open',
      created: input.now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      tags: [],
    },
    {
      question: input.question,
      hypothesis:
        'The spike agent drafts the hypothesis from the question when the spike runs: the answer it expects, as a claim the experiment can prove wrong.',
      why: `${input.askedIn} What the answer decides is drafted with the hypothesis.`,
      criteria: 'Drafted with the hypothesis, together with EXPERIMENT.md: the results that would confirm it, and those that would refute it.',
    },
  );
  return {
    kind: 'spike',
    slug,
    branch: knowledgeBranch('spike', slug),
    files: [{ path, content }],
    commitMessage: `spike: ${input.question}`,
    title: spikeTitle(input.question),
    body: [
      `A spike to settle one question before it costs a plan: **${input.question}**`,
      '',
      input.askedIn,
      '',
      `This PR adds \`${path}\` with the question. The spike's worker drafts the hypothesis and the experiment (EXPERIMENT.md) in the same folder, runs the experiment there (raw output in \`results/\`) and writes the decision (DECISION.md); this description then says what it found. Merging accepts the decision; closing the PR drops the spike.`,
    ].join('\n'),
    labels: knowledgeLabels('spike'),
  };
}
