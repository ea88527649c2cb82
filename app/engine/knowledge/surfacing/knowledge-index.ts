import { findSection, sections } from '../../core/documents/sections.js';
import { parseCondition, parseConditionList, type Condition } from '../documents/conditions.js';
import { problem, type Problem } from '../../core/spec/problem.js';
import { namedFileKeys } from './file-keys.js';
import type { SurfacedKind } from '../documents/loop.js';
import { namedFiles, projectPath } from './named-files.js';
import { parseKnowledge } from '../documents/parse.js';
import type { Gene, Lesson, Skill } from '../documents/schema.js';
import { wordCounts, words } from '../documents/words.js';

/**
 * The accepted lessons, skills and genes of a knowledge store, read once and laid out for
 * surfacing: each entry's words weighted against the whole store (a word every lesson uses
 * says little about any one of them), and inverted lists from a word, a tag or a file to the
 * entries that carry it, so that one plan is scored against the few entries it shares
 * something with rather than the whole store.
 */

export interface KnowledgeFile {
  /** Relative to the store's root (`lessons/testing/sqlite-busy.lesson.md`). */
  path: string;
  text: string;
}

export interface IndexedTag {
  tag: string;
  /** The tag's words: a tag applies when the plan has every one of them. */
  words: string[];
}

export interface IndexedEntry {
  path: string;
  kind: SurfacedKind;
  /** The lesson's one sentence, the skill's or the gene's name. */
  title: string;
  /** What the brief says of it: the lesson's recommendation, the skill's or gene's description. */
  text: string;
  tags: IndexedTag[];
  /** Project paths and globs it names. */
  files: string[];
  /** The failure signatures it is about (a lesson's `signatures`): a plan whose earlier attempt met one gets it first. */
  signatures?: string[];
  /** When it applies before a plan's first attempt (documents/conditions.ts): a lesson's `applies_when`, a skill's `metadata.applies-when`. */
  conditions?: Condition[];
  /** How far its own record makes it worth surfacing: a lesson's confidence, a gene's success rate. */
  weight: number;
  /** A gene's status: a candidate gets only a share of a brief (surface.ts). */
  status?: 'candidate' | 'active';
  /** Who wrote it and when, as its document says: the brief attributes each entry (`drafted by harness, 2026-04-02`). */
  origin?: string;
  /** The words that say when it applies, each with its share of them by rarity (they sum to 1). */
  triggers: { word: string; share: number }[];
}

/** Postings: parallel lists of entry numbers and a weight for each. */
export interface Postings {
  entries: Int32Array;
  weights: Float64Array;
}

export interface KnowledgeIndex {
  entries: IndexedEntry[];
  /** How rare each word is across the entries: ln(1 + entries / entries with the word). */
  idf: ReadonlyMap<string, number>;
  /** word → entries, with the word's share of the entry's unit-length tf-idf vector. */
  text: ReadonlyMap<string, Postings>;
  /** word → entries whose trigger words include it, with the word's share of those triggers (by rarity). */
  triggers: ReadonlyMap<string, Postings>;
  /** A tag's first word → entries, with the tag's number in the entry. */
  tags: ReadonlyMap<string, Postings>;
  /** A file key (file-keys.ts) → entries naming such a file. */
  files: ReadonlyMap<string, number[]>;
  /** The entries that say when they apply (conditions): each plan is checked against all of them. */
  conditioned: number[];
  /** Files that are no valid lesson, skill or gene: they are not surfaced, and a person should hear of them. */
  problems: Problem[];
}

const LESSON = /^lessons\/(?:[^/]+\/)*[^/]+\.lesson\.md$/;
const SKILL = /^skills\/[^/]+\/SKILL\.md$/;
const GENE = /^genes\/[^/]+\.gene\.md$/;

/** What a store file is to surfacing; archived skills, signals, spikes and the rest are not surfaced. */
export function surfacedKind(path: string): SurfacedKind | undefined {
  if (LESSON.test(path)) return 'lesson';
  if (SKILL.test(path)) return 'skill';
  if (GENE.test(path)) return 'gene';
  return undefined;
}

const CONFIDENCE = { low: 0.8, medium: 1, high: 1.2 } as const;
/** What one entry may put into a brief, however much it says: the rest is in its file. */
const MAX_TITLE = 200;
const MAX_TEXT = 600;

function prose(text: string): string {
  return text
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/** The first sentence of a text, for a lesson's title; a sentence quoted inside it does not end it. */
function firstSentence(text: string): string {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === '“' || c === '”') quoted = c === '“' ? true : c === '”' ? false : !quoted;
    else if (!quoted && (c === '.' || c === '!' || c === '?') && (i + 1 === text.length || /\s/.test(text[i + 1]!))) return text.slice(0, i + 1);
  }
  return text;
}

/** `metadata.files` as a list or as space-separated text (Agent Skills metadata values are strings). */
function metadataFiles(metadata: Record<string, unknown> | undefined): string[] {
  const value = metadata?.files;
  const list = typeof value === 'string' ? value.split(/[\s,]+/) : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  return list.map((f) => projectPath(f)).filter((f): f is string => f !== undefined);
}

function tagsOf(list: readonly string[]): IndexedTag[] {
  const seen = new Set<string>();
  const out: IndexedTag[] = [];
  for (const tag of list) {
    const tagWords = [...new Set(words(tag))];
    const key = tagWords.join(' ');
    if (tagWords.length === 0 || seen.has(key)) continue;
    seen.add(key);
    out.push({ tag, words: tagWords });
  }
  return out;
}

interface Draft {
  /** A lesson's stale fixes, by the day they gave way ("## Superseded": `- Until 2026-04-09: "…"`). */
  superseded?: string[];
  /** A skill's day: when it was extracted or last changed (metadata), to tell whether a lesson superseded its fix since. */
  since?: string;
  entry: IndexedEntry;
  /** Everything it says, for text similarity. */
  body: string;
  /** The words that say when it applies. */
  trigger: string;
}

function sectionText(body: string, bodyLine: number, ...titles: string[]): string[] {
  const all = sections(body, bodyLine);
  return titles.map((t) => prose(findSection(all, t)?.content ?? ''));
}

/** The first paragraph of a section: what to do, without where it came from (lesson-draft.ts writes the fix, then its source). */
function firstParagraph(body: string, bodyLine: number, title: string): string {
  const content = findSection(sections(body, bodyLine), title)?.content ?? '';
  return prose(
    content
      .replace(/<!--[\s\S]*?-->/g, '')
      .trim()
      .split(/\n[ \t]*\n/)[0] ?? '',
  );
}

/** What an entry is about, as a brief says "when …": its errors (signatures), else its first sentence. */
function triggerOf(signatures: readonly string[] | undefined, fallback: string): string {
  if (signatures && signatures.length > 0)
    return signatures
      .slice(0, 2)
      .map((s) => `\`${s.replace(/`/g, "'")}\``)
      .join(' or ');
  return fallback;
}

function conditionsOf(list: readonly string[] | undefined): Condition[] | undefined {
  const out = (list ?? []).map(parseCondition).filter((c): c is Condition => c !== undefined);
  return out.length > 0 ? out : undefined;
}

function lessonDraft(path: string, data: Lesson, body: string, bodyLine: number): Draft {
  const [lesson, when, recommendation, evidence] = sectionText(body, bodyLine, 'Lesson', 'When this applies', 'Recommendation', 'Evidence');
  const name = path.slice(path.lastIndexOf('/') + 1, -'.lesson.md'.length).replace(/-/g, ' ');
  const conditions = conditionsOf(data.applies_when);
  const stale = [...(findSection(sections(body, bodyLine), 'Superseded')?.content ?? '').matchAll(/^\s*[-*]\s+Until (\d{4}-\d{2}-\d{2})\b/gm)].map(
    (m) => m[1]!,
  );
  return {
    ...(stale.length > 0 ? { superseded: stale } : {}),
    entry: {
      path,
      kind: 'lesson',
      title: clip(triggerOf(data.signatures, firstSentence(lesson!) || name), MAX_TITLE),
      text: clip(firstParagraph(body, bodyLine, 'Recommendation') || recommendation!, MAX_TEXT),
      ...(conditions ? { conditions } : {}),
      tags: tagsOf(data.tags),
      files: [...new Set([...(data.files ?? []), ...metadataFiles(data.metadata), ...namedFiles([lesson, when, recommendation].join('\n'))])],
      origin: `${/Drafted by harness/.test(evidence!) ? 'drafted by harness' : /Written by the reflector agent/.test(evidence!) ? 'by the reflector agent' : 'by a person'}, ${String(data.last_updated).slice(0, 10)}`,
      ...(data.signatures && data.signatures.length > 0 ? { signatures: [...data.signatures] } : {}),
      weight: CONFIDENCE[data.confidence],
      triggers: [],
    },
    body: [name, lesson, when, recommendation, evidence].join('\n'),
    trigger: when!,
  };
}

function skillDraft(path: string, data: Skill, body: string, bodyLine: number): Draft {
  const [whenToUse] = sectionText(body, bodyLine, 'Trigger conditions');
  const metaTags = (data.metadata?.tags ?? '').split(/[\s,]+/).filter(Boolean);
  const signatures = (data.metadata?.signatures ?? '')
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
  const conditions = parseConditionList(data.metadata?.['applies-when'] ?? '').conditions;
  const solution = firstParagraph(body, bodyLine, 'Solution');
  const since = [data.metadata?.['updated-on'], data.metadata?.['extracted-on'], data.metadata?.['approved-on']].find(
    (d) => d !== undefined && /^\d{4}-\d{2}-\d{2}/.test(d),
  );
  return {
    ...(since !== undefined ? { since: since.slice(0, 10) } : {}),
    entry: {
      path,
      kind: 'skill',
      title: clip(triggerOf(signatures, data.name), MAX_TITLE),
      text: clip(solution || prose(data.description), MAX_TEXT),
      tags: tagsOf(metaTags),
      files: [...new Set([...metadataFiles(data.metadata), ...namedFiles(body)])],
      ...(signatures.length > 0 ? { signatures } : {}),
      ...(conditions.length > 0 ? { conditions } : {}),
      weight: 1,
      triggers: [],
    },
    body: [data.name.replace(/-/g, ' '), data.description, prose(body)].join('\n'),
    trigger: [data.description, whenToUse].join('\n'),
  };
}

function geneDraft(path: string, data: Gene, body: string, bodyLine: number): Draft {
  const [content, when] = sectionText(body, bodyLine, 'Content', 'When it applies');
  // A candidate has not proven itself yet; its success rate says how it did where it was used.
  const record = 0.75 + 0.5 * data.success_rate;
  return {
    entry: {
      path,
      kind: 'gene',
      title: clip(firstSentence(when!).replace(/\.$/, '') || data.name, MAX_TITLE),
      text: clip(prose(data.description), MAX_TEXT),
      tags: tagsOf([...data.tags, ...data.scenarios]),
      files: [...new Set([...metadataFiles(data.metadata), ...namedFiles([content, when].join('\n'))])],
      weight: data.status === 'candidate' ? record * 0.9 : record,
      ...(data.status === 'deprecated' ? {} : { status: data.status }),
      origin: `${data.status}, ${String(data.updated).slice(0, 10)}`,
      triggers: [],
    },
    body: [data.name, data.description, content, when].join('\n'),
    trigger: [data.description, when, data.scenarios.join(' ')].join('\n'),
  };
}

function draftOf(file: KnowledgeFile, kind: SurfacedKind, problems: Problem[]): Draft | undefined {
  const parsed = parseKnowledge(kind, file.path, file.text);
  const errors = parsed.problems.filter((p) => p.severity === 'error');
  problems.push(...parsed.problems);
  if (errors.length > 0 || parsed.data === undefined) return undefined;
  const body = parsed.body ?? '';
  const bodyLine = parsed.bodyLine ?? 1;
  // A lesson retired by the holdout comparison (holdout/retirement.ts) stays on record for reflection, and is never offered again.
  if (kind === 'lesson')
    return (parsed.data as Lesson).metadata?.retired !== undefined ? undefined : lessonDraft(file.path, parsed.data as Lesson, body, bodyLine);
  if (kind === 'skill') return skillDraft(file.path, parsed.data as Skill, body, bodyLine);
  const gene = parsed.data as Gene;
  // A deprecated gene was found wanting: it stays on record and is never offered again.
  return gene.status === 'deprecated' ? undefined : geneDraft(file.path, gene, body, bodyLine);
}

/** Postings as they are built: plain lists, made typed arrays once the index is complete. */
interface Building {
  entries: number[];
  weights: number[];
}

function push(map: Map<string, Building>, key: string, entry: number, weight: number): void {
  let p = map.get(key);
  if (!p) map.set(key, (p = { entries: [], weights: [] }));
  p.entries.push(entry);
  p.weights.push(weight);
}

function frozen(map: Map<string, Building>): Map<string, Postings> {
  const out = new Map<string, Postings>();
  for (const [key, p] of map) out.set(key, { entries: Int32Array.from(p.entries), weights: Float64Array.from(p.weights) });
  return out;
}

/**
 * Read a store's files (paths relative to its root) into an index. Only lessons
 * (`lessons/**\/*.lesson.md`), skills (`skills/<name>/SKILL.md`, never `skills-archived/`) and
 * genes (`genes/*.gene.md`, not deprecated) are entries; a file of those kinds that does not
 * parse is left out and its problems are kept, each with its file and line.
 */
export function indexKnowledge(files: readonly KnowledgeFile[]): KnowledgeIndex {
  const problems: Problem[] = [];
  const read: Draft[] = [];
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const kind = surfacedKind(file.path);
    if (kind === undefined) continue;
    const draft = draftOf(file, kind, problems);
    if (draft) read.push(draft);
  }
  const drafts = withoutStaleSkills(read, problems);

  const counts = drafts.map((d) => wordCounts(d.body));
  const df = new Map<string, number>();
  for (const c of counts) for (const w of c.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const n = drafts.length;
  const idf = new Map<string, number>();
  for (const [w, k] of df) idf.set(w, Math.log(1 + n / k));

  const text = new Map<string, Building>();
  const triggers = new Map<string, Building>();
  const tags = new Map<string, Building>();
  const fileIndex = new Map<string, number[]>();
  drafts.forEach((d, i) => {
    const vector: [string, number][] = [];
    let norm = 0;
    for (const [w, c] of counts[i]!) {
      const weight = (1 + Math.log(c)) * idf.get(w)!;
      vector.push([w, weight]);
      norm += weight * weight;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (const [w, weight] of vector) push(text, w, i, weight / norm);

    // A trigger word the store never uses elsewhere is as telling as a word gets.
    const triggerWords = [...new Set(words(d.trigger))];
    const rarity = triggerWords.map((w) => idf.get(w) ?? Math.log(1 + n));
    const total = rarity.reduce((a, b) => a + b, 0);
    if (total > 0) {
      d.entry.triggers = triggerWords.map((word, k) => ({ word, share: rarity[k]! / total }));
      for (const t of d.entry.triggers) push(triggers, t.word, i, t.share);
    }

    d.entry.tags.forEach((t, k) => push(tags, t.words[0]!, i, k));
    const keys = new Set(d.entry.files.flatMap(namedFileKeys));
    for (const key of keys) {
      const list = fileIndex.get(key);
      if (list) list.push(i);
      else fileIndex.set(key, [i]);
    }
  });
  const entries = drafts.map((d) => d.entry);
  const conditioned = entries.flatMap((e, i) => (e.conditions ? [i] : []));
  return { entries, idf, text: frozen(text), triggers: frozen(triggers), tags: frozen(tags), files: fileIndex, conditioned, problems };
}

/**
 * The entries without the skills whose fix a lesson about the same error says went stale since
 * they were written: the older fix is never surfaced again. Each such skill is a problem for a
 * person to hear of: bring it up to date with the lesson's fix, or archive it.
 */
function withoutStaleSkills(drafts: readonly Draft[], problems: Problem[]): Draft[] {
  const latest = new Map<string, { day: string; path: string }>();
  for (const d of drafts) {
    if (d.entry.kind !== 'lesson' || !d.superseded) continue;
    const day = [...d.superseded].sort().at(-1)!;
    for (const sig of d.entry.signatures ?? []) if ((latest.get(sig)?.day ?? '') < day) latest.set(sig, { day, path: d.entry.path });
  }
  if (latest.size === 0) return [...drafts];
  return drafts.filter((d) => {
    if (d.entry.kind !== 'skill') return true;
    // The same day counts as before: a day is all a Superseded line says, and a skill of that error written after it would be a duplicate of the lesson, never extracted.
    const stale = (d.entry.signatures ?? [])
      .map((sig) => ({ sig, by: latest.get(sig) }))
      .find((x) => x.by !== undefined && (d.since === undefined || d.since <= x.by.day));
    if (!stale) return true;
    problems.push(
      problem(
        d.entry.path,
        1,
        'superseded-fix',
        `its fix for \`${stale.sig}\` went stale: ${stale.by!.path} gave it a newer one on ${stale.by!.day}; it is not surfaced until it is brought up to date (metadata updated-on) or archived`,
        'warning',
      ),
    );
    return false;
  });
}
