import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SignalDraft } from '../../../../app/engine/knowledge/documents/loop.js';
import { renderSignal } from '../../../../app/engine/knowledge/signals/signal-file.js';
import { readSignal, type SignalRecord } from '../../../../app/engine/knowledge/signals/signal-record.js';
import { ROOT } from '../../../helpers/paths.js';

/**
 * Recorded signal sets: the signals capture files for a plan that failed and was repaired,
 * rendered through templates/signal.md as a run writes them, then read back as reflection reads
 * them. Each set bends one fact so that one gate fails.
 */

export const SIGNAL_TEMPLATE = readFileSync(join(ROOT, 'templates', 'signal.md'), 'utf8');
export const SKILL_TEMPLATE = readFileSync(join(ROOT, 'templates', 'skill', 'SKILL.md'), 'utf8');
/** The fixed clock. */
export const NOW = new Date('2026-03-10T12:00:00Z');

let n = 0;
export function file(draft: SignalDraft, at = NOW, project = 'notes-service'): { path: string; text: string } {
  const key = (++n).toString(16).padStart(8, '0');
  return renderSignal(SIGNAL_TEMPLATE, draft, { project, at, key });
}

export function read(files: readonly { path: string; text: string }[]): SignalRecord[] {
  return files.map((f) => {
    const r = readSignal(f.path, f.text);
    if ('problem' in r) throw new Error(`${f.path}:${r.line}: ${r.problem}`);
    return r;
  });
}

const SAID = 'SQLITE_BUSY: database is locked';

export interface SetOptions {
  plan?: string;
  said?: string;
  /** Failed attempts before the verified one; 0 makes no repair at all. */
  failed?: number;
  verified?: boolean;
  insight?: { summary: string; detail: string };
  tags?: string[];
  project?: string;
  /** The failure's signature, as capture records it: the repairs of one signature in several plans are one candidate. */
  signature?: string;
}

/** A plan's attempt history as signals: its failed attempts (struggle), then the repair when it passed, then the agent's insight. */
export function repairSet(o: SetOptions = {}): { path: string; text: string }[] {
  const plan = o.plan ?? '01-02';
  const tags = o.tags ?? ['sqlite', 'tests'];
  const out: { path: string; text: string }[] = [];
  const failed = o.failed ?? 1;
  for (let a = 1; a <= failed; a++) {
    out.push(
      file(
        {
          type: 'struggle',
          severity: 'medium',
          spec: 'SPC-001',
          plan,
          agent: 'claude',
          tags,
          happened: `Attempt ${a} at plan ${plan} (Storage) of SPC-001 failed: the agent failed: "${o.said ?? SAID}".`,
          context: `Attempt ${a} by the claude agent.`,
          cause: 'The agent could not finish the plan; its own error is quoted above.',
          metadata: {
            attempt: a,
            outcome: 'failed',
            failure: `agent:${(o.said ?? SAID).toLowerCase()}`,
            said: o.said ?? SAID,
            ...(o.signature ? { signature: o.signature } : {}),
          },
        },
        new Date(NOW.getTime() - (failed - a + 2) * 3600_000),
        o.project,
      ),
    );
  }
  if (failed > 0 && o.verified !== false) {
    out.push(
      file(
        {
          type: 'repair',
          severity: 'low',
          spec: 'SPC-001',
          plan,
          agent: 'claude',
          tags,
          happened: `Plan ${plan} (Storage) of SPC-001 passed on attempt ${failed + 1}, after ${failed} failed attempt${failed === 1 ? '' : 's'}.`,
          context: `Attempt ${failed + 1} by the claude agent.`,
          cause: 'What failed before was put right in this attempt.',
          metadata: { attempt: failed + 1, outcome: 'verified', failedBefore: failed, ...(o.signature ? { signature: o.signature } : {}) },
        },
        new Date(NOW.getTime() - 3600_000),
        o.project,
      ),
    );
  }
  if (o.insight) {
    out.push(
      file(
        {
          type: 'innovation',
          severity: 'low',
          spec: 'SPC-001',
          plan,
          agent: 'claude',
          tags,
          happened: `${o.insight.summary}\n\n${o.insight.detail}`,
          context: `Reported by the claude agent while working on plan ${plan} (Storage) of SPC-001, attempt ${failed + 1}, which ${o.verified === false ? 'failed' : 'passed'}.`,
          cause: "The agent's own account; harness has not checked it.",
          metadata: { attempt: failed + 1, reported: 'agent' },
        },
        new Date(NOW.getTime() - 1800_000),
        o.project,
      ),
    );
  }
  return out;
}

export const FIX = {
  summary: 'One SQLite file per test file stops SQLITE_BUSY in parallel vitest runs',
  detail: 'Traced the lock to every test file opening notes.db at once; each test file now opens its own database in a temporary directory.',
};

/** The signature capture gives SQLITE_BUSY: the repairs of it in two plans are one candidate that recurred. */
export const SIGNATURE = 'SQLITE_BUSY: database is locked';

/** The same repair in two plans of a spec: a skill's evidence that it recurs. */
export function recurring(o: SetOptions = {}, plans: readonly string[] = ['01-02', '01-05']): { path: string; text: string }[] {
  return plans.flatMap((plan) => repairSet({ signature: SIGNATURE, ...o, plan }));
}
