import { parseKnowledge } from '../knowledge/documents/parse.js';
import type { Signal } from '../knowledge/documents/schema.js';
import { compareText, INDEX_FILE, signalEntries } from '../knowledge/documents/store-index.js';
import type { AttemptFailure, AttemptHistory } from './signals.js';

/**
 * A plan's previous attempt as the knowledge store remembers it: every failed attempt leaves a
 * `struggle`, `stuck` or `timeout` signal whose metadata says which attempt it was and how it
 * failed. The store is the one record both runtimes keep across retries (a local `--retry`
 * starts the plan's session afresh; on GitHub a retry is a new workflow run), so the count of
 * attempts and the last failure come from there. The runtime reads the files; this decides.
 */

const FAILURE_TYPES = new Set(['struggle', 'stuck', 'timeout']);

/** Signal files that may record the plan's last failed attempt, newest first (at most `limit`). */
export function historyCandidates(index: string | undefined, where: { project: string; spec: string; plan: string }, limit = 5): string[] {
  return signalEntries(index)
    .filter((e) => FAILURE_TYPES.has(e.type) && e.project === where.project && e.spec === where.spec && e.plan === where.plan)
    .sort((a, b) => compareText(b.timestamp, a.timestamp) || compareText(b.path, a.path))
    .slice(0, limit)
    .map((e) => e.path);
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;
}

/** The attempt a failure signal records, or undefined for one that records none (a struggle from tool errors). */
export function historyOf(signal: Signal): AttemptHistory | undefined {
  const m = signal.metadata ?? {};
  if (m.outcome !== 'failed' || typeof m.attempt !== 'number' || typeof m.failure !== 'string') return undefined;
  const fingerprint = m.failure;
  const kind: AttemptFailure['kind'] = fingerprint.startsWith('timeout:') ? 'timeout' : fingerprint.startsWith('agent:') ? 'agent' : 'verification';
  const checks = strings(m.checks);
  const changed = strings(m.changed);
  const failure: AttemptFailure = {
    kind,
    fingerprint,
    ...(checks ? { checks } : {}),
    ...(typeof m.step === 'string' ? { step: m.step } : {}),
    ...(typeof m.said === 'string' ? { said: m.said } : {}),
    ...(typeof m.signature === 'string' ? { signature: m.signature } : {}),
    ...(changed ? { changed } : {}),
  };
  return { attempt: m.attempt, failure };
}

/**
 * The latest attempt among the candidates' signals. `notFrom`: an origin whose signals are this
 * very attempt's (a re-run of the same workflow run), which are no earlier attempt.
 */
export function latestAttempt(signals: readonly (Signal | undefined)[], notFrom?: string): AttemptHistory | undefined {
  let best: AttemptHistory | undefined;
  for (const s of signals) {
    if (notFrom !== undefined && s?.metadata?.origin === notFrom) continue;
    const h = s && historyOf(s);
    if (h && (best === undefined || h.attempt > best.attempt)) best = h;
  }
  return best;
}

/**
 * The plan's last failed attempt in a store read through `read` (a path relative to the
 * store's root → its text): the index, then the few signals it points at.
 */
export async function readAttemptHistory(
  read: (path: string) => Promise<string | undefined>,
  where: { project: string; spec: string; plan: string },
  notFrom?: string,
): Promise<AttemptHistory | undefined> {
  const paths = historyCandidates(await read(INDEX_FILE), where);
  const signals = await Promise.all(
    paths.map(async (path) => {
      const text = await read(path);
      return text === undefined ? undefined : parseKnowledge('signal', path, text).data;
    }),
  );
  return latestAttempt(signals, notFrom);
}
