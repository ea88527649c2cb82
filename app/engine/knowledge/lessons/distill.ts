import { agentNote, draftNote, harnessDraft, recommendationOf, whenOf, type LessonText } from './lesson-draft.js';
import { categoryOf, lessonDocument, lessonPath, type LessonCategory } from './lesson-document.js';
import { linkedLesson, type LinkUpdate } from './lesson-link.js';
import type { Pattern, PatternLink, Reflection } from './reflect.js';
import { parseReflectorAnswer, reflectorPrompt, ReflectorError, type Reflector } from './reflector.js';

/** What reflection proposes for one lesson: a new file, or more evidence for one there is. */
export interface LessonChange {
  action: 'create' | 'link';
  /** The lesson's path, relative to the repository root. */
  path: string;
  title: string;
  /** The lesson in one sentence, and when it applies: what a reviewer reads first. */
  statement: { lesson: string; when: string };
  /** The lesson file's whole text, as it is to be written. */
  content: string;
  /** The existing lessons this change is about (the one linked to); none for a new lesson. */
  links: string[];
  /** The signals it adds as evidence, relative to the repository root, oldest first. */
  evidence: string[];
  /** Why the pattern qualified, or why it was linked. */
  why: string;
  /** Who wrote the text: the reflector agent's name, or `harness`. */
  writtenBy: string;
  /** When an agent was asked and harness drafted the lesson after all: why. */
  agentProblem?: string;
  /** The file name without `.lesson.md`: a stable name for a branch. */
  name: string;
  category: LessonCategory;
  pattern: Pattern;
}

export interface DistillInput {
  reflection: Reflection;
  /** templates/lesson.md as shipped. */
  template: string;
  /** The store's path from the repository root, ending in `/` (`.harness/knowledge/`). */
  storePrefix: string;
  today: Date;
  /** Paths of the lessons there are: a new lesson never takes one. */
  taken: ReadonlySet<string>;
  /** The reflector agent and its instructions; without one, harness drafts each lesson itself. */
  reflector?: { agent: Reflector; instructions: string; source: string };
  /** Why no agent writes the lessons, for the note under each (default: none is configured). */
  withoutAgent?: string;
}

export const NO_REFLECTOR = 'no reflector agent is configured (knowledge.reflect.agent)';

/**
 * Each new pattern distilled into a lesson, and each link into the linked lesson's new text.
 * With a reflector, it writes each lesson (one at a time: a reviewer reads them one at a
 * time too); an agent that cannot run or answers out of form does not stop reflection: that
 * lesson is drafted by harness, and says why.
 */
export async function distill(input: DistillInput): Promise<LessonChange[]> {
  const changes: LessonChange[] = [];
  const taken = new Set(input.taken);
  for (const { pattern, why } of input.reflection.patterns) changes.push(await newLesson(input, pattern, why, taken));
  for (const link of input.reflection.links) {
    const change = linkChange(input, link);
    if (change !== undefined) changes.push(change);
  }
  return changes;
}

/** A lesson's text and who wrote it; when an agent was asked and harness drafted it after all, why. */
interface Written {
  text: LessonText;
  category: LessonCategory;
  writtenBy: string;
  agentProblem?: string;
}

/** A new pattern as a new lesson, at a path no lesson takes (then taken). */
async function newLesson(input: DistillInput, pattern: Pattern, why: string, taken: Set<string>): Promise<LessonChange> {
  const { text, category, writtenBy, agentProblem } = await written(input, pattern, why);
  const note = writtenBy === 'harness' ? draftNote(agentProblem ?? input.withoutAgent ?? NO_REFLECTOR) : agentNote(writtenBy);
  const { name, path } = lessonPath(pattern, category, input.storePrefix, taken);
  taken.add(path);
  return {
    action: 'create',
    path,
    title: text.title,
    statement: { lesson: text.lesson, when: text.when },
    content: lessonDocument({ template: input.template, pattern, text, category, note, today: input.today }),
    links: [],
    evidence: pattern.signals.map((s) => s.file),
    why,
    writtenBy,
    ...(agentProblem !== undefined ? { agentProblem } : {}),
    name,
    category,
    pattern,
  };
}

/** The lesson as the reflector writes it, when there is one and it answers in form; else as harness drafts it. */
async function written(input: DistillInput, pattern: Pattern, why: string): Promise<Written> {
  const draft = harnessDraft(pattern);
  const byHarness: Written = { text: draft, category: categoryOf(pattern), writtenBy: 'harness' };
  if (!input.reflector) return byHarness;
  const { agent, instructions, source } = input.reflector;
  try {
    const answer = parseReflectorAnswer(await agent.write(reflectorPrompt({ instructions, source, pattern, why, draft })), draft.title);
    if ('problem' in answer) return { ...byHarness, agentProblem: `the reflector agent (${agent.name}) answered out of form: ${answer.problem}` };
    return { text: answer, category: answer.category ? answer.category : byHarness.category, writtenBy: agent.name };
  } catch (e) {
    if (!(e instanceof ReflectorError)) throw e;
    return { ...byHarness, agentProblem: `the reflector agent (${agent.name}) failed: ${e.message}` };
  }
}

/** A link as the linked lesson's new text; none when the text would not change. */
function linkChange(input: DistillInput, link: PatternLink): LessonChange | undefined {
  const content = linkedLesson(link.lesson, link.pattern.signals, input.today, linkUpdate(link, input.today));
  if (content === undefined) return undefined;
  const file = link.lesson.file;
  return {
    action: 'link',
    path: file,
    title: link.lesson.title,
    statement: { lesson: link.lesson.text.lesson, when: link.lesson.text.when },
    content,
    links: [file],
    evidence: link.pattern.signals.map((s) => s.file),
    why: link.why,
    writtenBy: 'harness',
    name: file.slice(file.lastIndexOf('/') + 1).replace(/\.lesson\.md$/, ''),
    category: link.lesson.lesson.category,
    pattern: link.pattern,
  };
}

/**
 * What a link changes besides the evidence: the signatures of other wordings, the conditions
 * learnt again, and, when the lesson's fix went stale, the newer fix in its place with a line
 * that keeps the older one on record (never surfaced again: only the Recommendation is).
 */
function linkUpdate(link: PatternLink, today: Date): LinkUpdate {
  const { pattern } = link;
  const update: LinkUpdate = {};
  if (pattern.signatures && pattern.signatures.length > 0) update.signatures = pattern.signatures;
  if (pattern.conditions && pattern.conditions.length > 0) {
    update.conditions = pattern.conditions;
    update.when = whenOf({ ...pattern, signatures: [...new Set([...(link.lesson.lesson.signatures ?? []), ...(pattern.signatures ?? [])])] });
  }
  if (link.supersede) {
    const fresh: Pattern = { ...pattern, signals: [...link.supersede.failed, ...link.supersede.repairs] };
    const recommendation = recommendationOf(fresh);
    const old = link.lesson.text.recommendation
      .split(/\n\s*\n/)[0]!
      .replace(/\s+/g, ' ')
      .trim();
    const { briefed, failed, repairs } = link.supersede;
    const where = [...new Set((briefed ? failed : repairs).map((s) => [s.signal.spec, s.signal.plan].filter(Boolean).join(' ')))];
    const places = `${where.slice(0, 5).join('; ')}${where.length > 5 ? '; …' : ''}`;
    const day = today.toISOString().slice(0, 10);
    update.supersede = {
      recommendation,
      note: briefed
        ? `Until ${day}: "${old.replace(/"/g, "'")}" — plans with it in their brief still failed the same way (${places}), and the repairs after them recorded the fix now under Recommendation.`
        : `Until ${day}: "${old.replace(/"/g, "'")}" — the latest repairs of the same failure (${places}) recorded another fix, the one now under Recommendation.`,
    };
  }
  return update;
}
