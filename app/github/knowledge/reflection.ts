import type { HarnessConfig } from '../../engine/core/config/schema.js';
import { KNOWLEDGE_ROOT } from '../../engine/forge/knowledge-draft.js';
import { lessonPrDraft, proposedLesson } from '../../engine/forge/lesson-draft.js';
import { distill, NO_REFLECTOR, type LessonChange } from '../../engine/knowledge/lessons/distill.js';
import { citedSignals, readLesson, signalKey, type LessonRecord } from '../../engine/knowledge/lessons/lesson-record.js';
import { LESSON_EVIDENCE_READ, reflect, type ProposedLesson, type Skipped } from '../../engine/knowledge/lessons/reflect.js';
import type { Reflector } from '../../engine/knowledge/lessons/reflector.js';
import { readSignal, type SignalRecord, type Unreadable } from '../../engine/knowledge/signals/signal-record.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { KnowledgePr } from '../../gateway/knowledge-pr.js';
import type { TreeEntry } from '../../gateway/trees.js';
import type { SafetyOptions } from '../../machine/content-safety.js';
import { reflectSettings, REFLECTOR_OVERRIDE } from '../../machine/local-reflection.js';
import { loadTemplate } from '../../machine/templates.js';
import { safeDraft } from './app-safety.js';

/**
 * Each signal is one blob read (GET /git/blobs/{sha}); the newest this many that no lesson
 * cites are read, which keeps a reflection within a few percent of an installation's hourly
 * request budget. The rest wait for the next reflection, which is told they were not read.
 */
export const MAX_SIGNALS_READ = 300;

/** Lesson PRs one reflection opens at most: reviewers take a few at a time; the next reflection offers the rest. */
export const MAX_LESSON_PRS = 5;

export interface GitHubReflectionInput {
  github: Pick<Gateway, 'directory' | 'tree' | 'blob' | 'openKnowledgePulls' | 'openKnowledgePr'>;
  /** The branch whose merged knowledge is read and which lesson PRs start from: the default branch. */
  base: string;
  config: HarnessConfig;
  now: Date;
  log: { warn(message: string): void };
  /** The reflector agent (knowledge.reflect.agent), run where the App runs. */
  reflector?: Reflector;
  safety: SafetyOptions;
}

/** One lesson change and what became of its PR; `pr` undefined: left for the next reflection. */
export interface ProposedChange {
  change: LessonChange;
  pr?: KnowledgePr;
}

export interface GitHubReflection {
  /** There is a `signals/` folder on the base branch. */
  store: boolean;
  /** Signal files there are, and those read. */
  listed: number;
  read: number;
  /** More signals no lesson cites than one reflection reads: the newest were read, the rest wait. */
  limited: boolean;
  unreadable: Unreadable[];
  changes: ProposedChange[];
  skipped: Skipped[];
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Signals are filed by day and timestamp, so the file name orders them: newest first. */
function newestFirst(a: TreeEntry, b: TreeEntry): number {
  const x = basename(a.path);
  const y = basename(b.path);
  if (x !== y) return x < y ? 1 : -1;
  return a.path < b.path ? 1 : a.path > b.path ? -1 : 0;
}

/**
 * Reflection on what is merged (docs/design.md, Knowledge): the signals and lessons under
 * `.harness/knowledge/` on the base branch, with the open lesson PRs' signals counted as
 * taken (what is proposed is processed), so that asking twice opens nothing twice. Each new
 * pattern becomes a lesson PR and each link a PR updating the lesson it adds evidence to,
 * every text of them through the content-safety pass. The reads: GET /contents/.harness/
 * knowledge; GET /git/trees/{sha}?recursive=1 for `signals/` and `lessons/`; one blob per
 * lesson; GET /pulls?state=open (every page); one blob per signal read (the newest that no
 * lesson cites, and the newest few each lesson cites, to know what the lesson is about).
 */
export async function reflectOnGitHub(input: GitHubReflectionInput): Promise<GitHubReflection> {
  const { github, base } = input;
  const folders = (await github.directory(KNOWLEDGE_ROOT, base)) ?? [];
  const signalsDir = folders.find((e) => e.name === 'signals' && e.type === 'dir');
  const result: GitHubReflection = { store: signalsDir !== undefined, listed: 0, read: 0, limited: false, unreadable: [], changes: [], skipped: [] };
  if (!signalsDir) return result;
  const lessonsDir = folders.find((e) => e.name === 'lessons' && e.type === 'dir');

  const signalEntries = (await blobs(input, signalsDir.sha)).filter((e) => e.path.endsWith('.signal.md')).sort(newestFirst);
  result.listed = signalEntries.length;
  const { lessons, unreadableLessons } = await readLessons(input, lessonsDir?.sha);
  const proposals = (await github.openKnowledgePulls('lesson')).map(proposedLesson).filter((p): p is ProposedLesson => p !== undefined);
  const known: Known = { lessons, unreadableLessons, proposals };

  const { toRead, limited } = signalsToRead(signalEntries, known);
  result.limited = limited;
  const { signals, unreadableSignals } = await readSignals(input, toRead);
  result.read = toRead.length;
  result.unreadable = [...unreadableSignals, ...unreadableLessons.map(({ file, line, problem }) => ({ file, line, problem }))];

  const reading = new Set(toRead);
  const reflection = reflect({
    signals,
    lessons,
    proposals,
    unreadable: unreadableSignals,
    unreadableLessons,
    unread: signalEntries.filter((e) => !reading.has(e)).map(signalPath),
    settings: reflectSettings(input.config),
  });
  result.skipped = reflection.skipped;
  if (reflection.patterns.length === 0 && reflection.links.length === 0) return result;

  const changes = await distill({
    reflection,
    template: await loadTemplate('lesson.md'),
    storePrefix: `${KNOWLEDGE_ROOT}/`,
    today: input.now,
    taken: new Set([...lessons.map((l) => l.file), ...unreadableLessons.map((l) => l.file), ...proposals.map((p) => p.file)]),
    ...(input.reflector ? { reflector: { agent: input.reflector, ...(await reflectorInstructions(input)) } } : {}),
    withoutAgent: NO_REFLECTOR,
  });
  result.changes = await openLessonPrs(input, changes);
  return result;
}

/** What the store and the open lesson PRs hold already: the lessons (those that do not read too) and the proposals. */
interface Known {
  lessons: LessonRecord[];
  unreadableLessons: (Unreadable & { evidence: string[] })[];
  proposals: ProposedLesson[];
}

/** A signal's path in the repository. */
function signalPath(e: TreeEntry): string {
  return `${KNOWLEDGE_ROOT}/signals/${e.path}`;
}

/** The lessons under `lessons/` (the tree `sha`), one blob each; a lesson that does not read keeps the signals it cites. */
async function readLessons(input: GitHubReflectionInput, sha: string | undefined): Promise<Pick<Known, 'lessons' | 'unreadableLessons'>> {
  const lessons: LessonRecord[] = [];
  const unreadableLessons: (Unreadable & { evidence: string[] })[] = [];
  for (const entry of sha !== undefined ? (await blobs(input, sha)).filter((e) => e.path.endsWith('.lesson.md')) : []) {
    const path = `${KNOWLEDGE_ROOT}/lessons/${entry.path}`;
    const text = new TextDecoder().decode(await input.github.blob(entry.sha));
    const read = readLesson(path, text);
    if ('problem' in read) unreadableLessons.push({ ...read, evidence: citedSignals(text) });
    else lessons.push(read);
  }
  return { lessons, unreadableLessons };
}

/**
 * What to read: the newest signals nothing cites (MAX_SIGNALS_READ of them: `limited` when there
 * are more), and the newest few each lesson (and proposal) cites.
 */
function signalsToRead(signalEntries: TreeEntry[], { lessons, unreadableLessons, proposals }: Known): { toRead: TreeEntry[]; limited: boolean } {
  const taken = new Set(
    [...lessons.flatMap((l) => l.evidence), ...unreadableLessons.flatMap((l) => l.evidence), ...proposals.flatMap((p) => p.evidence)].map(signalKey),
  );
  const unprocessed = signalEntries.filter((e) => !taken.has(signalKey(signalPath(e))));
  const fresh = unprocessed.slice(0, MAX_SIGNALS_READ);
  const byKey = new Map(signalEntries.map((e) => [signalKey(signalPath(e)), e]));
  const context =
    fresh.length === 0
      ? []
      : [...lessons, ...proposals].flatMap((l) =>
          l.evidence
            .map((p) => byKey.get(signalKey(p)))
            .filter((e): e is TreeEntry => e !== undefined)
            .sort(newestFirst)
            .slice(0, LESSON_EVIDENCE_READ),
        );
  return { toRead: [...new Set([...fresh, ...context])], limited: unprocessed.length > fresh.length };
}

/** The signals to read, one blob each: those that read, and those that do not. */
async function readSignals(input: GitHubReflectionInput, toRead: TreeEntry[]): Promise<{ signals: SignalRecord[]; unreadableSignals: Unreadable[] }> {
  const signals: SignalRecord[] = [];
  const unreadableSignals: Unreadable[] = [];
  for (const entry of toRead) {
    const read = readSignal(signalPath(entry), new TextDecoder().decode(await input.github.blob(entry.sha)));
    if ('problem' in read) unreadableSignals.push(read);
    else signals.push(read);
  }
  return { signals, unreadableSignals };
}

/** A PR for each lesson change, MAX_LESSON_PRS opened at most (through the content-safety pass); the rest left for the next reflection. */
async function openLessonPrs(input: GitHubReflectionInput, changes: LessonChange[]): Promise<ProposedChange[]> {
  const proposed: ProposedChange[] = [];
  let opened = 0;
  for (const change of changes) {
    if (opened === MAX_LESSON_PRS) {
      proposed.push({ change });
      continue;
    }
    const pr = await input.github.openKnowledgePr(await safeDraft(lessonPrDraft(change), input.safety), input.base);
    if (pr.state === 'opened') opened++;
    proposed.push({ change, pr });
  }
  return proposed;
}

/** Every file below a tree, paths relative to it (GET /git/trees/{sha}?recursive=1). */
async function blobs(input: GitHubReflectionInput, sha: string): Promise<TreeEntry[]> {
  const tree = await input.github.tree(sha, true);
  if (tree.truncated) input.log.warn(`the tree ${sha} is larger than GitHub returns at once; reflecting on the part it returned`);
  return tree.entries.filter((e) => e.type === 'blob');
}

/** The repository's own reflector instructions on the base branch, else harness's. */
async function reflectorInstructions(input: GitHubReflectionInput): Promise<{ instructions: string; source: string }> {
  const dir = REFLECTOR_OVERRIDE.slice(0, REFLECTOR_OVERRIDE.lastIndexOf('/'));
  const own = (await input.github.directory(dir, input.base))?.find((e) => e.path === REFLECTOR_OVERRIDE && e.type === 'file');
  if (own) return { instructions: new TextDecoder().decode(await input.github.blob(own.sha)), source: REFLECTOR_OVERRIDE };
  return { instructions: await loadTemplate('agents/reflector.md'), source: 'templates/agents/reflector.md' };
}
