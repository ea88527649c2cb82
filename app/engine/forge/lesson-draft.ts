import { createHash } from 'node:crypto';
import type { LessonChange } from '../knowledge/lessons/distill.js';
import { signalKey } from '../knowledge/lessons/lesson-record.js';
import { evidenceLine } from '../knowledge/lessons/lesson-document.js';
import type { ProposedLesson } from '../knowledge/lessons/reflect.js';
import { knowledgeBranch, knowledgeLabels, type KnowledgeDraft } from './knowledge-draft.js';
import { ISSUE_BODY_LIMIT } from './limits.js';

/**
 * A lesson PR (docs/design.md, Knowledge): one per new lesson, on `harness/knowledge/lesson/<name>`,
 * and one per link, on `harness/knowledge/lesson/<name>-evidence-<hash>` (the hash of the
 * signals it adds, so that the same evidence always names the same branch). The body says
 * what the lesson is, who wrote it, why the pattern qualified and every signal it cites: the
 * visible list for the reviewer, and all of their paths in a comment, which is how the next
 * reflection knows the proposal's signals are taken without reading its branch.
 */

/** The first line of a lesson PR's body: what it proposes, and for which file. */
const MARKER = /^<!-- harness:lesson (create|link) (\S+) -->/;
/** Evidence lines shown in the body; the rest are in the file (and all paths in the marker comment). */
const SHOWN = 30;

function evidenceBranchName(change: LessonChange): string {
  const hash = createHash('sha256').update(change.evidence.map(signalKey).sort().join('\n')).digest('hex').slice(0, 8);
  return `${change.name}-evidence-${hash}`;
}

function quoted(text: string): string {
  return text
    .trim()
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

function author(change: LessonChange): string {
  if (change.writtenBy !== 'harness') return `the reflector agent (${change.writtenBy}), from the evidence below, which harness chose`;
  return change.agentProblem
    ? `harness, from the evidence below, because ${change.agentProblem}`
    : 'harness, from the evidence below: no agent wrote it (see the note at the end of the lesson)';
}

/** The PR of one lesson change: its branch, its commit of the lesson file and its description. */
export function lessonPrDraft(change: LessonChange): KnowledgeDraft {
  const name = change.action === 'create' ? change.name : evidenceBranchName(change);
  const n = change.pattern.signals.length;
  const signals = `${n} signal${n === 1 ? '' : 's'}`;
  const lines = change.pattern.signals.map(evidenceLine);
  const shown = lines.length > SHOWN ? [...lines.slice(0, SHOWN), `- … and ${lines.length - SHOWN} more, listed in the lesson file`] : lines;
  const head =
    change.action === 'create'
      ? [
          `Reflection found a recurring pattern and proposes a lesson: **${change.title}** (\`${change.path}\`).`,
          '',
          quoted(change.statement.lesson),
          '',
          `**When this applies:** ${change.statement.when.trim()}`,
          '',
          `**Written by** ${author(change)}.`,
          '',
          '### Why it qualified',
          '',
          `${change.why}.`,
        ]
      : [
          `Reflection found ${signals} saying what \`${change.path}\` says, and adds ${n === 1 ? 'it' : 'them'} to its evidence.`,
          '',
          quoted(change.statement.lesson),
          '',
          '### Why',
          '',
          `${change.why}.`,
        ];
  const tail =
    change.action === 'create'
      ? 'Merging this PR accepts the lesson: it is surfaced in the briefs of the plans it applies to, and its signals are processed. Closing it rejects the lesson; reflection does not propose it again. Edit the lesson on this branch first if it can be sharper.'
      : 'Merging this PR adds the evidence (and raises `evidence_count`); closing it leaves the lesson as it is.';
  const body = [
    `<!-- harness:lesson ${change.action} ${change.path} -->`,
    ...head,
    '',
    `### ${change.action === 'create' ? 'Evidence' : 'New evidence'}`,
    '',
    ...shown,
    '',
    tail,
    '',
    `<!-- harness:evidence\n${change.evidence.join('\n')}\n-->`,
  ].join('\n');
  return {
    kind: 'lesson',
    slug: name,
    branch: knowledgeBranch('lesson', name),
    files: [{ path: change.path, content: change.content }],
    commitMessage: change.action === 'create' ? `lesson: ${change.title} (${signals})` : `lesson: ${signals} more for ${change.name}`,
    title: change.action === 'create' ? `Lesson: ${change.title}` : `Lesson evidence: ${signals} more for ${change.name}`,
    body: body.length > ISSUE_BODY_LIMIT ? `${body.slice(0, ISSUE_BODY_LIMIT - 200)}\n\n(cut at GitHub's limit; the lesson file has every signal)` : body,
    labels: knowledgeLabels('lesson'),
  };
}

/**
 * An open lesson PR as reflection reads it back: the lesson it proposes (a new one or more
 * evidence for one), what it says and the signals it cites. Undefined for a PR whose body does
 * not start with harness's marker (a person's own lesson PR names no evidence harness can trust).
 */
export function proposedLesson(pull: { number: number; url: string; body: string }): ProposedLesson | undefined {
  const m = MARKER.exec(pull.body);
  if (!m) return undefined;
  const evidence =
    /<!-- harness:evidence\n([\s\S]*?)\n-->/
      .exec(pull.body)?.[1]
      ?.split('\n')
      .filter((l) => l.trim() !== '') ?? [];
  const text = pull.body.replace(/<!--[\s\S]*?-->/g, '');
  return { file: m[2]!, number: pull.number, url: pull.url, text, evidence };
}
