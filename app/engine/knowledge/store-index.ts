import type { Level } from '../core/documents/fields.js';
import { planPhase } from '../core/spec/model.js';
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
  /** The rows harness wrote, by path. */
  entries: Map<string, IndexEntry>;
  /** Lines in the section harness did not write and cannot read: kept as they are. */
  other: string[];
}

function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim() || NONE;
}

function cells(row: string): string[] {
  const inner = row.trim().replace(/^\|/, '').replace(/\|$/, '');
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
  return text === NONE ? [] : text.split(',').map((t) => t.trim()).filter(Boolean);
}

function parseRow(heading: string, row: string): IndexEntry | undefined {
  const c = cells(row);
  const signal = /^## Signals · (\S+) · (\S+)$/.exec(heading);
  if (signal) {
    if (c.length !== 7) return undefined;
    const path = linkTarget(c[6]!);
    if (!path || !/^\d{4}-\d\d-\d\dT/.test(c[0]!)) return undefined;
    const entry: SignalIndexEntry = {
      kind: 'signal',
      path,
      timestamp: c[0]!,
      type: c[1] as SignalType,
      severity: c[2] as Level,
      project: signal[1]!,
      tags: parseTags(c[4]!),
      summary: c[5] === NONE ? '' : c[5]!,
    };
    if (signal[2] !== NONE) entry.spec = signal[2]!;
    const phase = /^phase (\S+)$/.exec(c[3]!);
    if (phase) entry.phase = phase[1]!;
    else if (c[3] !== NONE) {
      entry.plan = c[3]!;
      entry.phase = planPhase(c[3]!);
    }
    return entry;
  }
  const kind = (Object.keys(TITLES) as IndexedKind[]).find((k) => heading === `## ${TITLES[k]}`);
  if (!kind || c.length !== 4) return undefined;
  const path = linkTarget(c[3]!);
  if (!path) return undefined;
  return { kind, path, updated: c[0]!, title: c[1] === NONE ? '' : c[1]!, tags: parseTags(c[2]!) };
}

function parseSections(text: string): Map<string, Section> {
  const sections = new Map<string, Section>();
  let current: Section | undefined;
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.startsWith('## ')) {
      current = sections.get(line.trim()) ?? { heading: line.trim(), entries: new Map(), other: [] };
      sections.set(current.heading, current);
      continue;
    }
    if (!current || line.trim() === '' || SIGNAL_HEADER.includes(line.trim()) || DOCUMENT_HEADER.includes(line.trim())) continue;
    const entry = line.trimStart().startsWith('|') ? parseRow(current.heading, line) : undefined;
    if (entry) current.entries.set(entry.path, entry);
    else current.other.push(line);
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

function byNewest(a: IndexEntry, b: IndexEntry): number {
  return whenOf(b).localeCompare(whenOf(a)) || b.path.localeCompare(a.path);
}

/**
 * The index with `entries` merged in: a row for a path already there is replaced, every other
 * row kept. Sections are ordered (the other kinds, then signals by project and spec) and rows
 * newest first, so that the same rows always give the same text.
 */
export function updateIndex(text: string | undefined, entries: readonly IndexEntry[]): string {
  const sections = parseSections(text ?? '');
  for (const entry of entries) {
    const heading = headingOf(entry);
    for (const s of sections.values()) if (s.heading !== heading) s.entries.delete(entry.path);
    const section = sections.get(heading) ?? { heading, entries: new Map(), other: [] };
    section.entries.set(entry.path, entry);
    sections.set(heading, section);
  }
  const out = [...INTRO];
  for (const section of [...sections.values()].sort((a, b) => sectionOrder(a.heading).localeCompare(sectionOrder(b.heading)))) {
    if (section.entries.size === 0 && section.other.length === 0) continue;
    const rows = [...section.entries.values()].sort(byNewest);
    const header = section.heading.startsWith('## Signals') ? SIGNAL_HEADER : DOCUMENT_HEADER;
    out.push('', section.heading, '', ...header, ...rows.map(renderRow));
    if (section.other.length > 0) out.push('', ...section.other);
  }
  return `${out.join('\n')}\n`;
}
