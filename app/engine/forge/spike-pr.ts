import { findSection, sections } from '../core/documents/sections.js';
import type { Decision, Experiment } from '../knowledge/documents/schema.js';
import { ISSUE_BODY_LIMIT } from './limits.js';

/** What a spike's run found, as its knowledge PR tells it. */
export interface SpikeReportInput {
  question: string;
  /** The spike's folder, repository-relative. */
  folder: string;
  agent: string;
  decided?: {
    decision: Decision;
    experiment: Experiment;
    /** DECISION.md's and EXPERIMENT.md's bodies. */
    decisionBody: string;
    experimentBody: string;
    results: readonly string[];
  };
  failed?: { reason: string; problems: readonly string[]; stage?: string };
  discarded: readonly string[];
  redactions: readonly { path: string; line: number }[];
  dropped: readonly { path: string; why: string }[];
  retries: readonly string[];
  runUrl?: string;
}

/** A section of a record's body, without its comments; empty when it is not there. */
function section(body: string, title: string): string {
  return (findSection(sections(body, 1), title)?.content ?? '').replace(/<!--[\s\S]*?-->/g, '').trim();
}

/** Each part of a report at most this long: the records are on the branch for the rest. */
const PART_MAX = 12_000;

function clip(text: string): string {
  return text.length > PART_MAX ? `${text.slice(0, PART_MAX)}\n\n…(cut: the rest is in the record on the branch)` : text;
}

/** The spike's title on GitHub, the same from its opening to its end. */
export function spikeTitle(question: string): string {
  return `Spike: ${question}`;
}

/**
 * The spike's knowledge PR once its worker ran: what was decided and on what evidence (the
 * records' own sections), where the records are, and what was kept out of them; or why it
 * could not finish and how to run it again. Merging accepts the decision.
 */
export function spikeReport(input: SpikeReportInput): string {
  const out: string[] = [];
  const { decided, failed } = input;
  const by = `the \`${input.agent}\` agent${input.runUrl ? ` in [this worker run](${input.runUrl})` : ''}`;
  if (decided) {
    const { decision, experiment } = decided;
    out.push(`**${input.question}** — ${decision.outcome}, with ${decision.confidence} confidence.`, '', `> ${decision.decision}`, '');
    out.push(
      `The spike was designed and run by ${by}; its records are in \`${input.folder}/\`. Merging this PR accepts the decision; closing it drops the spike.`,
    );
    const says = section(decided.decisionBody, 'Decision');
    if (says) out.push('', '### Decision', '', clip(says));
    out.push(
      '',
      '### Method',
      '',
      `A ${experiment.method} within a time box of ${experiment.time_box_minutes} minutes, against ${experiment.criteria.length} criteri${experiment.criteria.length === 1 ? 'on' : 'a'}:`,
      '',
    );
    for (const c of experiment.criteria) out.push(`- \`${c.id}\`: ${c.measure}; target ${c.target}`);
    const results = section(decided.experimentBody, 'Results');
    if (results) out.push('', '### Results', '', clip(results));
    const evidence = section(decided.decisionBody, 'Evidence');
    if (evidence) out.push('', '### Evidence', '', clip(evidence));
    out.push(
      '',
      '### Records',
      '',
      `- \`${input.folder}/HYPOTHESIS.md\`, \`EXPERIMENT.md\`, \`DECISION.md\``,
      `- \`${input.folder}/results/\`: ${decided.results.length} file${decided.results.length === 1 ? '' : 's'} of raw output`,
    );
  } else if (failed) {
    out.push(`**${input.question}** — the spike could not finish${failed.stage ? ` its ${failed.stage} stage` : ''}: ${failed.reason}.`);
    if (failed.problems.length > 0) out.push('', ...failed.problems.map((p) => `- ${p}`));
    out.push(
      '',
      `It was run by ${by}. Whatever stage finished before is committed on this branch, in \`${input.folder}/\`. Once what is said above is fixed, ask again with the same \`/harness spike\` question: the spike goes on from what the branch holds.`,
    );
  }
  const kept: string[] = [];
  if (input.discarded.length > 0)
    kept.push(`- Put back as they were, written outside the spike's folder: ${input.discarded.map((p) => `\`${p}\``).join(', ')}`);
  if (input.redactions.length > 0) {
    kept.push(
      `- Redacted: ${input.redactions.length} secret${input.redactions.length === 1 ? '' : 's'} (${[...new Set(input.redactions.map((r) => `\`${r.path}:${r.line}\``))].join(', ')})`,
    );
  }
  for (const d of input.dropped) kept.push(`- Left out: \`${d.path}\`: ${d.why}`);
  for (const r of input.retries) kept.push(`- Given back to the agent once: ${r}`);
  if (kept.length > 0) out.push('', '### Kept out of the records', '', ...kept);
  const body = `${out.join('\n')}\n`;
  return body.length > ISSUE_BODY_LIMIT ? `${body.slice(0, ISSUE_BODY_LIMIT - 80)}\n\n…(cut: the records on the branch have the rest)\n` : body;
}
