import { KNOWLEDGE_ROOT } from '../../engine/forge/knowledge-draft.js';
import { skippedSummary } from '../../engine/knowledge/lessons/skipped-summary.js';
import { MAX_LESSON_PRS, MAX_SIGNALS_READ, type GitHubReflection } from './reflection.js';

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** The answer to `/harness reflect`. */
export function reflectionAnswer(result: GitHubReflection, branch: string): string {
  if (!result.store) return `I found no signals to reflect on: there is no \`${KNOWLEDGE_ROOT}/signals/\` on \`${branch}\` yet.`;
  const lines = [
    `Read ${plural(result.read, 'signal')} of the ${result.listed} under \`${KNOWLEDGE_ROOT}/signals/\` on \`${branch}\`${result.limited ? ` (of those no lesson cites, the newest ${MAX_SIGNALS_READ}; the rest wait for the next reflection)` : ''}.`,
  ];
  if (result.unreadable.length > 0) {
    const shown = result.unreadable.slice(0, 5).map((u) => `\`${u.file}\`:${u.line}: ${u.problem}`);
    lines.push(
      `${plural(result.unreadable.length, 'file')} could not be read and ${result.unreadable.length === 1 ? 'was' : 'were'} left out: ${shown.join('; ')}${result.unreadable.length > 5 ? '; …' : ''}`,
    );
  }
  if (result.changes.length === 0)
    lines.push('', 'Nothing to distil yet: no pattern recurs in enough places with enough weight, and no new signal adds to a lesson.');
  else {
    lines.push('', `Found ${plural(result.changes.length, 'lesson')} to propose:`);
    for (const { change, pr } of result.changes) {
      const what =
        change.action === 'create'
          ? `new lesson **${change.title}** (${plural(change.evidence.length, 'signal')}, ${change.writtenBy === 'harness' ? 'drafted by harness' : `written by ${change.writtenBy}`})`
          : `${plural(change.evidence.length, 'more signal')} for \`${change.path}\``;
      const state = pr
        ? `#${pr.number} (${{ opened: 'opened', open: 'already open', merged: 'merged already', closed: 'closed without merging: not proposed again' }[pr.state]})`
        : `left for the next reflection (${MAX_LESSON_PRS} lesson PRs at a time)`;
      lines.push(`- ${what}: ${state}`);
    }
  }
  if (result.skipped.length > 0) lines.push('', `Not made into lessons: ${plural(result.skipped.length, 'signal')} (${skippedSummary(result.skipped)}).`);
  return lines.join('\n');
}
