import type { Level } from '../../core/documents/fields.js';
import { planPhase } from '../../core/spec/model.js';
import type { SignalType } from './schema.js';

/**
 * The store's `index.md`: one table row per document, for a person to browse and for capture
 * to link, cap and look back without reading every file. It is updated incrementally (the rows
 * there are kept, new ones merged in, nothing else read), so writing one signal into a store of
 * fifty thousand costs one file, not fifty thousand.
 *
 * Signals are grouped by project and spec, newest first: the spec's signals PR only ever adds
 * rows at the top of its own section, so the PRs of two specs touch different lines.
 */

export const INDEX_FILE = 'index.md';

export interface SignalIndexEntry {
  kind: 'signal';
  /** Relative to the store's root. */
  path: string;
  timestamp: string;
  type: SignalType;
  severity: Level;
  project: string;
  spec?: string;
  /** The plan's phase, or the phase of a phase-level signal (a completion). */
  phase?: string;
  plan?: string;
  tags: string[];
  /** The first line of "What happened". */
  summary: string;
}

export const INDEXED_KINDS = ['lesson', 'skill', 'spike', 'gene', 'capsule'] as const;
export type IndexedKind = (typeof INDEXED_KINDS)[number];

/** Any other knowledge document: what it is called and when it last changed. */
export interface DocumentIndexEntry {
  kind: IndexedKind;
  path: string;
  /** A date or a timestamp. */
  updated: string;
  title: string;
  tags: string[];
}

export type IndexEntry = SignalIndexEntry | DocumentIndexEntry;

const TITLES: Readonly<Record<IndexedKind, string>> = { lesson: 'Lessons', skill: 'Skills', spike: 'Spikes', gene: 'Genes', capsule: 'Capsules' };
const SIGNAL_HEADER = ['| When | Type | Severity | Plan | Tags | What happened | File |', '|---|---|---|---|---|---|---|'];
const DOCUMENT_HEADER = ['| Updated | Title | Tags | File |', '|---|---|---|---|'];
const NONE = '—';
const SUMMARY_MAX = 160;

const INTRO = [
  '# Knowledge index',
  '',
  'Written by harness as knowledge is added: one row per document, newest first. Signals are',
  'grouped by project and spec. The documents themselves are the record; this page only points at them.',
];

interface Section {
  heading: string;
  /** What the heading says of its rows: a signal section's project and spec, or another kind. */
  of: SectionOf | undefined;
  /** The rows harness wrote, by path. */
  entries: Map<string, IndexEntry>;
  /** Each row's line as it was read, kept as it is when the row does not change. */
  lines: Map<string, string>;
  /** Lines in the section harness did not write and cannot read: kept as they are. */
  other: string[];
}

function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim() || NONE;
}

function cells(row: string): string[] {
  const inner = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  // Most rows escape nothing: a plain split is what keeps reading a large index cheap.
  if (!inner.includes('\\|')) return inner.split('|').map((c) => c.trim());
  return inner.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

function link(path: string): string {
  return `[${path.slice(path.lastIndexOf('/') + 1)}](${path.replace(/ /g, '%20')})`;
}

function linkTarget(text: string): string | undefined {
  const target = /\]\(([^)]+)\)\s*$/.exec(text)?.[1];
  return target?.replace(/%20/g, ' ');
}

function signalHeading(project: string, spec: string | undefined): string {
  return `## Signals · ${project} · ${spec ?? NONE}`;
}

function headingOf(entry: IndexEntry): string {
  return entry.kind === 'signal' ? signalHeading(entry.project, entry.spec) : `## ${TITLES[entry.kind]}`;
}

function whenOf(entry: IndexEntry): string {
  return entry.kind === 'signal' ? entry.timestamp : entry.updated;
}

function renderRow(entry: IndexEntry): string {
  const tags = entry.tags.length > 0 ? entry.tags.join(', ') : NONE;
  if (entry.kind === 'signal') {
    const summary = entry.summary.length > SUMMARY_MAX ? `${entry.summary.slice(0, SUMMARY_MAX - 1)}…` : entry.summary;
    const where = entry.plan ?? (entry.phase !== undefined ? `phase ${entry.phase}` : NONE);
    return `| ${[entry.timestamp, entry.type, entry.severity, where, tags, summary].map(cell).join(' | ')} | ${link(entry.path)} |`;
  }
  return `| ${[entry.updated, entry.title, tags].map(cell).join(' | ')} | ${link(entry.path)} |`;
}

function parseTags(text: string): string[] {
  return text === NONE
    ? []
    : text
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
}

type SectionOf = { kind: 'signal'; project: string; spec: string | undefined } | { kind: IndexedKind };

function sectionOf(heading: string): SectionOf | undefined {
  const signal = /^## Signals · (\S+) · (\S+)$/.exec(heading);
  if (signal) return { kind: 'signal', project: signal[1]!, spec: signal[2] === NONE ? undefined : signal[2]! };
  const kind = (Object.keys(TITLES) as IndexedKind[]).find((k) => heading === `## ${TITLES[k]}`);
  return kind ? { kind } : undefined;
}

function parseRow(of: SectionOf | undefined, row: string): IndexEntry | undefined {
  if (!of) return undefined;
  const c = cells(row);
  if (of.kind === 'signal') {
    if (c.length !== 7) return undefined;
    const path = linkTarget(c[6]!);
    if (!path || !/^\d{4}-\d\d-\d\dT/.test(c[0]!)) return undefined;
    const entry: SignalIndexEntry = {
      kind: 'signal',
      path,
      timestamp: c[0]!,
      type: c[1] as SignalType,
      severity: c[2] as Level,
      project: of.project,
      tags: parseTags(c[4]!),
      summary: c[5] === NONE ? '' : c[5]!,
    };
    if (of.spec !== undefined) entry.spec = of.spec;
    const phase = /^phase (\S+)$/.exec(c[3]!);
    if (phase) entry.phase = phase[1]!;
    else if (c[3] !== NONE) {
      entry.plan = c[3]!;
      entry.phase = planPhase(c[3]!);
    }
    return entry;
  }
  if (c.length !== 4) return undefined;
  const path = linkTarget(c[3]!);
  if (!path) return undefined;
  return { kind: of.kind, path, updated: c[0]!, title: c[1] === NONE ? '' : c[1]!, tags: parseTags(c[2]!) };
}

function newSection(heading: string): Section {
  return { heading, of: sectionOf(heading), entries: new Map(), lines: new Map(), other: [] };
}

function parseSections(text: string): Map<string, Section> {
  const sections = new Map<string, Section>();
  let current: Section | undefined;
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.startsWith('## ')) {
      current = sections.get(line.trim()) ?? newSection(line.trim());
      sections.set(current.heading, current);
      continue;
    }
    if (!current || line.trim() === '' || SIGNAL_HEADER.includes(line.trim()) || DOCUMENT_HEADER.includes(line.trim())) continue;
    const entry = line.trimStart().startsWith('|') ? parseRow(current.of, line) : undefined;
    if (entry) {
      current.entries.set(entry.path, entry);
      current.lines.set(entry.path, line);
    } else current.other.push(line);
  }
  return sections;
}

/** Every row of an index, in the order written (newest first within each section). */
export function parseIndex(text: string | undefined): IndexEntry[] {
  if (text === undefined) return [];
  return [...parseSections(text).values()].flatMap((s) => [...s.entries.values()]);
}

/** The signal rows of an index. */
export function signalEntries(text: string | undefined): SignalIndexEntry[] {
  return parseIndex(text).filter((e): e is SignalIndexEntry => e.kind === 'signal');
}

function sectionOrder(heading: string): string {
  const kinds = Object.values(TITLES);
  const i = kinds.findIndex((t) => heading === `## ${t}`);
  return i >= 0 ? `0${i}` : `1${heading}`;
}

/** Code-point order: the index is ASCII, and localeCompare would cost more than the rest of a capture. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function byNewest(a: IndexEntry, b: IndexEntry): number {
  return compareText(whenOf(b), whenOf(a)) || compareText(b.path, a.path);
}

/**
 * The index with `entries` merged in: a row for a path already there is replaced, every other
 * row kept. Sections are ordered (the other kinds, then signals by project and spec) and rows
 * newest first, so that the same rows always give the same text.
 */
export function updateIndex(text: string | undefined, entries: readonly IndexEntry[]): string {
  const sections = parseSections(text ?? '');
  const moved = new Set(entries.map((e) => e.path));
  for (const s of sections.values()) {
    for (const path of moved) {
      s.entries.delete(path);
      s.lines.delete(path);
    }
  }
  for (const entry of entries) {
    const heading = headingOf(entry);
    const section = sections.get(heading) ?? newSection(heading);
    section.entries.set(entry.path, entry);
    sections.set(heading, section);
  }
  const out = [...INTRO];
  for (const section of [...sections.values()].sort((a, b) => compareText(sectionOrder(a.heading), sectionOrder(b.heading)))) {
    if (section.entries.size === 0 && section.other.length === 0) continue;
    const rows = [...section.entries.values()].sort(byNewest);
    const header = section.heading.startsWith('## Signals') ? SIGNAL_HEADER : DOCUMENT_HEADER;
    out.push('', section.heading, '', ...header, ...rows.map((e) => section.lines.get(e.path) ?? renderRow(e)));
    if (section.other.length > 0) out.push('', ...section.other);
  }
  return `${out.join('\n')}\n`;
}
