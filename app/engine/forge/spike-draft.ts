import { renderTemplate } from '../core/documents/render-template.js';
import { knowledgeBranch, knowledgeLabels, KNOWLEDGE_ROOT, type KnowledgeDraft } from './knowledge-draft.js';
import { slug as slugOf } from './slug.js';

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

const TO_WRITE = (what: string) => `_To be written: ${what}_`;

/**
 * `/harness spike "<question>"`: the spike's HYPOTHESIS.md, filed under
 * spikes/<project>/<slug>/. Only the question is known when someone asks it; the rest is left
 * as a prompt for whoever runs the spike, and the PR's review is where it gets written.
 */
export function spikeDraft(input: SpikeDraftInput): KnowledgeDraft {
  const slug = slugOf(input.question);
  const path = `${KNOWLEDGE_ROOT}/spikes/${input.project}/${slug}/HYPOTHESIS.md`;
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
      hypothesis: TO_WRITE('the answer you expect, as a claim an experiment could prove wrong.'),
      why: `${input.askedIn} ${TO_WRITE('what the answer decides, and what it costs to get it wrong.')}`,
      criteria: TO_WRITE('the result that would confirm the hypothesis, and the one that would refute it.'),
    },
  );
  return {
    kind: 'spike',
    slug,
    branch: knowledgeBranch('spike', slug),
    files: [{ path, content }],
    commitMessage: `spike: ${input.question}`,
    title: `Spike: ${input.question}`,
    body: [
      `A spike to settle one question before it costs a plan: **${input.question}**`,
      '',
      input.askedIn,
      '',
      `This PR adds \`${path}\`. Write the hypothesis and its success criteria here; the experiment (EXPERIMENT.md) and the decision (DECISION.md) follow in the same folder. Merging files the spike; closing the PR drops it.`,
    ].join('\n'),
    labels: knowledgeLabels('spike'),
  };
}
