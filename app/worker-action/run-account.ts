import type { Usage } from '../engine/core/protocol/messages.js';
import { parseMarker, withMarkerRecord } from '../engine/forge/plan-issue.js';
import { formatRuns, withRun, type RunEnd, type RunRecord } from '../engine/forge/run-record.js';

/** When a worker run's stages ran, as the job saw them. */
export interface RunTimes {
  /** When the job's work began (the worker action's start). */
  start: Date;
  /** When the App dispatched it (its check run's start), when known. */
  dispatched?: Date;
  /** When the attempt began: its agent first, then its verification. */
  attempt?: Date;
  /** The attempt's own measures (AttemptOutcome.timing). */
  agentMs?: number;
  verifyMs?: number;
}

const seconds = (ms: number) => Math.max(0, Math.round(ms / 1000));
/** Longer than a day between dispatch and start is not one run's wait (GitHub cancels a job queued that long). */
const MAX_WAIT_S = 24 * 3600;

/**
 * This run's entry for its plan issue's `runs=` record (engine/forge/run-record.ts): its id
 * (the workflow run and attempt; without one, its start), its stages in seconds after its start,
 * how it ended, its engines and what they reported they used.
 */
export function runRecord(id: string | undefined, times: RunTimes, end: Date, ended: RunEnd, engines: readonly string[], usage: Usage | undefined): RunRecord {
  const start = Math.floor(times.start.getTime() / 1000);
  const total = seconds(end.getTime() - times.start.getTime());
  const within = (n: number) => Math.min(n, total);
  // A dispatch after the start, or days before it, is no wait for a runner this run had: a clock apart, a check run of another run.
  const waited = times.dispatched === undefined ? undefined : seconds(times.start.getTime() - times.dispatched.getTime());
  const out: RunRecord = {
    run: id ?? String(start),
    start,
    seconds: total,
    ...(waited !== undefined && waited > 0 && waited < MAX_WAIT_S ? { waited } : {}),
    end: ended,
    engines,
    usage: usage ?? {},
  };
  if (times.attempt === undefined) return out;
  const attemptAt = seconds(times.attempt.getTime() - times.start.getTime());
  const agentEnd = attemptAt + seconds(times.agentMs ?? 0);
  const agent = (times.agentMs ?? 0) > 0 ? ([within(attemptAt), within(agentEnd)] as const) : undefined;
  const verification = (times.verifyMs ?? 0) > 0 ? ([within(agentEnd), within(agentEnd + seconds(times.verifyMs!))] as const) : undefined;
  return { ...out, ...(agent ? { agent } : {}), ...(verification ? { verification } : {}) };
}

/** The body with `run` in its marker line's `runs=` record (a re-run of the same job replacing its own entry). */
export function withRunRecorded(body: string, run: RunRecord): string {
  return withMarkerRecord(body, 'runs', formatRuns(withRun(parseMarker(body)?.runs, run)));
}
