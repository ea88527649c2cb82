import type { BriefKnowledge } from '../protocol/messages.js';

/**
 * The section of an agent's brief that carries what harness has learned and surfaced for the
 * plan. It is written here, once, because surfacing measures its budget on exactly this
 * text: what is counted is what the agent reads.
 */

export const KNOWLEDGE_HEADING = '## What harness has learned that applies here';

export const KNOWLEDGE_INTRO =
  'Earlier work left these in harness’s knowledge store (`.harness/knowledge/` unless the project keeps it elsewhere); ' +
  'each was chosen because it applies to this plan. Follow them unless the plan says otherwise, ' +
  'and say in a commit message when one did not fit.';

/** About four characters a token, as the budget in .github/harness.yml (knowledge.surface.budget_tokens) counts. */
export const CHARS_PER_TOKEN = 4;

export function tokensOf(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** One entry as the brief lists it: the title, what it says, and the file with the whole of it. */
export function knowledgeLine(entry: Pick<BriefKnowledge, 'kind' | 'title' | 'text' | 'path'>): string {
  const title = /[.!?:]$/.test(entry.title) ? entry.title : `${entry.title}:`;
  const text = entry.text.trim();
  return `- **${title}** ${text}${text ? ' ' : ''}(${entry.kind}, \`${entry.path}\`)`;
}

/** The section's lines, heading first; none at all when nothing was surfaced. */
export function knowledgeBrief(entries: readonly Pick<BriefKnowledge, 'kind' | 'title' | 'text' | 'path'>[]): string[] {
  if (entries.length === 0) return [];
  return [KNOWLEDGE_HEADING, '', KNOWLEDGE_INTRO, '', ...entries.map(knowledgeLine)];
}

/** The characters the section takes before any entry: the heading, the introduction and their blank lines. */
export const KNOWLEDGE_OVERHEAD = [KNOWLEDGE_HEADING, '', KNOWLEDGE_INTRO, ''].join('\n').length + 1;
