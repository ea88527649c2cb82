import { renderTemplate } from '../core/documents/render-template.js';
import type { Pattern } from '../knowledge/reflect.js';
import type { LESSON_CATEGORIES, SignalType } from '../knowledge/schema.js';
import { knowledgeBranch, knowledgeLabels, KNOWLEDGE_ROOT, type KnowledgeDraft } from './knowledge-draft.js';
import { slug as slugOf } from './slug.js';

type Category = (typeof LESSON_CATEGORIES)[number];

/**
 * A first guess at where a lesson from each kind of signal belongs; the reviewer moves it
 * (the folder and `category` change together) when the guess is wrong.
 */
const CATEGORY: Readonly<Record<SignalType, Category>> = {
  deviation: 'workflow',
  frustration: 'workflow',
  struggle: 'workflow',
  config: 'tooling',
  pattern: 'architecture',
  repair: 'workflow',
  innovation: 'architecture',
  completion: 'workflow',
  use: 'workflow',
  interrupted: 'workflow',
  timeout: 'tooling',
  stuck: 'workflow',
};

/** More evidence, more confidence; a person raises it when the lesson is proven. */
function confidence(count: number): 'low' | 'medium' | 'high' {
  return count >= 5 ? 'high' : count >= 3 ? 'medium' : 'low';
}

/** The lesson's file name: its type and tags, so that the same pattern always names the same lesson. */
export function lessonSlug(pattern: Pattern): string {
  return slugOf(`${pattern.type} ${pattern.tags.join(' ')}`);
}

export interface LessonDraftInput {
  /** templates/lesson.md as shipped. */
  template: string;
  pattern: Pattern;
  today: Date;
}

/**
 * A lesson drafted from one pattern: the frontmatter and the evidence are facts harness knows;
 * the lesson itself and the recommendation are for the reviewer to write in the PR.
 */
export function lessonDraft(input: LessonDraftInput): KnowledgeDraft {
  const { pattern } = input;
  const slug = lessonSlug(pattern);
  const category = CATEGORY[pattern.type];
  const path = `${KNOWLEDGE_ROOT}/lessons/${category}/${slug}.lesson.md`;
  const tags = pattern.tags.map((t) => `\`${t}\``).join(', ');
  const count = pattern.signals.length;
  const projects = [...new Set(pattern.signals.map((s) => s.signal.project))].sort();
  const specs = [...new Set(pattern.signals.flatMap((s) => (s.signal.spec === undefined ? [] : [s.signal.spec])))].sort();
  const evidence = pattern.signals.map((s) => {
    const where = [s.signal.spec, s.signal.plan].filter((x) => x !== undefined).join(' ');
    const facts = [s.signal.severity, where, s.signal.timestamp].filter((x) => x !== '').join(', ');
    return `- \`${s.file}\` (${facts})${s.summary ? `: ${s.summary}` : ''}`;
  });
  const content = renderTemplate(
    input.template,
    {
      category,
      confidence: confidence(count),
      evidence_count: count,
      last_updated: input.today.toISOString().slice(0, 10),
      tags: pattern.tags,
      projects,
    },
    {
      lesson: `_To be written: the advice in one sentence._ ${count} \`${pattern.type}\` signals tagged ${tags} say the same thing happened again.`,
      when: `Work tagged ${tags}${specs.length > 0 ? `, as in ${specs.join(', ')}` : ''}${projects.length > 0 ? ` (${projects.join(', ')})` : ''}.`,
      recommendation: '_To be written: what to do differently the next time this applies._',
      evidence: evidence.join('\n'),
    },
  );
  return {
    kind: 'lesson',
    slug,
    branch: knowledgeBranch('lesson', slug),
    files: [{ path, content }],
    commitMessage: `lesson: ${pattern.type} ${pattern.tags.join(' ')} (${count} signals)`,
    title: `Lesson: ${pattern.type} signals tagged ${pattern.tags.join(', ')} (${count})`,
    body: [
      `\`/harness reflect\` found ${count} \`${pattern.type}\` signals tagged ${tags}: a pattern worth a lesson.`,
      '',
      `This PR adds \`${path}\` with the evidence listed. Write the lesson and the recommendation before merging; merging approves the lesson, closing the PR rejects it.`,
    ].join('\n'),
    labels: knowledgeLabels('lesson'),
  };
}
