import { planPhase } from '../../core/spec/model.js';
import type { SignalDraft } from '../documents/loop.js';
import { keyOfSignalPath, renderSignal, signalKey } from './signal-file.js';
import { INDEX_FILE, signalEntries, updateIndex, type DocumentIndexEntry, type SignalIndexEntry } from '../documents/store-index.js';
import { appendTrajectory, trajectoryPath, type TrajectoryEvent } from '../documents/trajectory.js';

/**
 * One write of captured knowledge into the store, decided here and carried out by the runtime
 * (files in a worktree, a commit on the spec's signals branch): which drafts are new (a signal
 * already filed under the same key is not filed again), which fit under the per-phase cap,
 * what each is linked to, the files they become, and the store's index and trajectory after
 * them. Pure: the runtime reads the index and the day's trajectory file and hands them in.
 */

export interface CaptureBatch {
  drafts: readonly SignalDraft[];
  /** `match` and `use` events for the trajectory (and a capsule's line). */
  trajectory?: readonly (TrajectoryEvent | { key: string })[];
  /** Other documents filed with the signals: the capsule of a plan verified with genes (capsule-record.ts), with its index row. */
  documents?: readonly { path: string; text: string; index: DocumentIndexEntry }[];
  project: string;
  /** Where the signals come from (a local run, a workflow run, a comment): part of each signal's key. */
  origin: string;
  at: Date;
  /** templates/signal.md. */
  template: string;
  /**
   * Signals one phase of one spec may add, counting those already in the index since `since`
   * (the run's start locally, the signals PR's opening on GitHub; none: only this batch counts).
   */
  cap: { max: number; since?: string };
}

/** The store's files this batch reads, relative to its root. */
export function captureReads(at: Date): { index: string; trajectory: string } {
  return { index: INDEX_FILE, trajectory: trajectoryPath(at) };
}

export interface StoreTexts {
  index?: string | undefined;
  trajectory?: string | undefined;
}

export type SkipReason = 'duplicate' | 'cap';

export interface CaptureResult {
  /** Relative to the store's root: the new signals, then the index and the trajectory when they changed. */
  files: { path: string; text: string }[];
  /** The signals filed, as the index lists them. */
  filed: SignalIndexEntry[];
  skipped: { draft: SignalDraft; reason: SkipReason }[];
}

/** Earlier signals listed in a signal's `related`, at most. */
export const MAX_RELATED = 5;

function phaseOf(draft: SignalDraft): string {
  return draft.phase ?? (draft.plan !== undefined ? planPhase(draft.plan) : '');
}

function summaryOf(draft: SignalDraft): string {
  return (
    draft.happened
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? draft.type
  );
}

/** Same type and project, at least one tag in common: the same kind of thing again. */
function relatedTo(draft: SignalDraft, project: string, entries: readonly SignalIndexEntry[]): SignalIndexEntry[] {
  const tags = new Set(draft.tags);
  if (tags.size === 0) return [];
  return entries.filter((e) => e.type === draft.type && e.project === project && e.tags.some((t) => tags.has(t)));
}

export function captureFiles(batch: CaptureBatch, existing: StoreTexts): CaptureResult {
  const entries = signalEntries(existing.index);
  const keys = new Set(entries.map((e) => keyOfSignalPath(e.path)).filter((k) => k !== undefined));
  const since = batch.cap.since === undefined ? undefined : Date.parse(batch.cap.since);
  const perPhase = new Map<string, number>();
  for (const e of entries) {
    if (since === undefined || e.project !== batch.project || !(Date.parse(e.timestamp) >= since)) continue;
    const k = `${e.spec ?? ''}/${e.phase ?? ''}`;
    perPhase.set(k, (perPhase.get(k) ?? 0) + 1);
  }

  const filed: SignalIndexEntry[] = [];
  const files: { path: string; text: string }[] = [];
  const skipped: CaptureResult['skipped'] = [];
  for (const draft of batch.drafts) {
    const key = signalKey(batch.origin, draft);
    if (keys.has(key)) {
      skipped.push({ draft, reason: 'duplicate' });
      continue;
    }
    const phase = phaseOf(draft);
    const capKey = `${draft.spec ?? ''}/${phase}`;
    const count = perPhase.get(capKey) ?? 0;
    if (count >= batch.cap.max) {
      skipped.push({ draft, reason: 'cap' });
      continue;
    }
    perPhase.set(capKey, count + 1);
    keys.add(key);

    // Newest first: this batch's own signals are newer than anything in the index.
    const related = [...relatedTo(draft, batch.project, filed).reverse(), ...relatedTo(draft, batch.project, entries)];
    const { path, text } = renderSignal(batch.template, draft, {
      project: batch.project,
      at: batch.at,
      key,
      origin: batch.origin,
      related: related.slice(0, MAX_RELATED).map((e) => e.path),
      occurrences: related.length + 1,
    });
    files.push({ path, text });
    const entry: SignalIndexEntry = {
      kind: 'signal',
      path,
      timestamp: batch.at.toISOString(),
      type: draft.type,
      severity: draft.severity,
      project: batch.project,
      tags: [...draft.tags],
      summary: summaryOf(draft),
    };
    if (draft.spec !== undefined) entry.spec = draft.spec;
    if (phase !== '') entry.phase = phase;
    if (draft.plan !== undefined) entry.plan = draft.plan;
    filed.push(entry);
  }

  for (const d of batch.documents ?? []) files.push({ path: d.path, text: d.text });
  const indexed = [...filed, ...(batch.documents ?? []).map((d) => d.index)];
  if (indexed.length > 0) files.push({ path: INDEX_FILE, text: updateIndex(existing.index, indexed) });
  const trajectory = batch.trajectory && batch.trajectory.length > 0 ? appendTrajectory(existing.trajectory, batch.trajectory) : undefined;
  if (trajectory !== undefined) files.push({ path: trajectoryPath(batch.at), text: trajectory });
  return { files, filed, skipped };
}
