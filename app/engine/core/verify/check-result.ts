import type { Check } from '../spec/model.js';

/**
 * What one check found. `human` is not a pass: it means a person must answer, and the
 * orchestrator turns it into a checkpoint.
 */
export type CheckStatus = 'pass' | 'fail' | 'human';

export interface CheckResult {
  id: string;
  type: Check['type'];
  status: CheckStatus;
  /** Short and concrete: what was seen (exit code and output tail, the missing export, the line count). */
  evidence: string;
  durationMs: number;
}

/** What a check may need beyond its own fields and the ports. */
export interface CheckContext {
  /** The running server's base URL, when the plan or phase has `serve` and it started. */
  baseUrl?: string;
  /** Why the server is not there, when it failed to start: checks that need it fail with this. */
  serveError?: string;
}

/** A check's finding before the runner adds id, type and timing. */
export interface Finding {
  status: CheckStatus;
  evidence: string;
}

export function pass(evidence: string): Finding {
  return { status: 'pass', evidence };
}

export function fail(evidence: string): Finding {
  return { status: 'fail', evidence };
}
