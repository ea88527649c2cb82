import type { Usage } from '../core/protocol/messages.js';
import { addUsage, type PlanUse } from '../core/run/spend.js';
import type { TimelineBar } from '../core/analysis/timeline.js';

/**
 * What each worker run of a plan did, recorded by the worker on its plan issue's marker line
 * (`runs=`, plan-issue.ts) as the run ends: when it ran, when its agent and its verification
 * did, how it ended, which engines worked and what they reported they used. The status comment
 * draws the spec's timeline and adds up its spend from these records alone, so the spec PR shows
 * where the time and the money went without reading a check run or a branch.
 *
 * One entry a run, oldest first: `<run>:<start>:<seconds>:<waited>:<agent>:<verification>:<end>:<engines>:<cost>:<turns>:<in>:<out>`,
 * `<run>` the workflow run's id and attempt (`12345.1`, a re-run of the job replaces its own
 * entry), times in whole seconds since the epoch, `<waited>` the seconds from the App's dispatch
 * to the start (the wait for a runner; empty when unknown), `<agent>` and `<verification>` each
 * `from-to` in seconds after the start (empty when that stage did not run), engines joined by
 * `+`, a figure nobody reported empty. Past RUNS_RECORDED entries, the oldest are folded into
 * one `earlier:<attempts>:<cost>:<turns>:<in>:<out>`: their spend counts, their times go.
 *
 * Only the App and people with write access can edit an issue's body; still, every field is
 * read defensively, and an entry that does not parse is left out, never guessed.
 */

export type RunEnd = 'verified' | 'failed' | 'checkpoint' | 'paused';

export interface RunRecord {
  /** The workflow run and its attempt, `12345.1`. */
  run: string;
  /** Seconds since the epoch. */
  start: number;
  seconds: number;
  /** Seconds from the App's dispatch to the start: the wait for a runner. */
  waited?: number;
  /** The agent's session, in seconds after the start. */
  agent?: readonly [number, number];
  /** The plan's verification, in seconds after the start. */
  verification?: readonly [number, number];
  end: RunEnd;
  engines: readonly string[];
  usage: Usage;
}

/** What runs folded out of the record used, and how many attempts they ended. */
export interface EarlierRuns {
  attempts: number;
  usage: Usage;
}

export interface RunsRecord {
  earlier?: EarlierRuns;
  runs: RunRecord[];
}

/** Runs a plan's record keeps with their times; older ones are folded into `earlier`. */
export const RUNS_RECORDED = 12;

/** The most characters the record takes on the marker line: the plan issue's body leaves it that room (plan-issue.ts). */
export const RUNS_RECORD_MAX = 2_500;

/** Engines an entry names at most (a plan's agent and its fallbacks). */
const MAX_ENGINES = 5;

const ENDS: Record<string, RunEnd> = { v: 'verified', f: 'failed', c: 'checkpoint', p: 'paused' };
const END_CODES: Record<RunEnd, string> = { verified: 'v', failed: 'f', checkpoint: 'c', paused: 'p' };
/** A figure larger than this is no agent's report: the entry is left out. */
const MAX_FIGURE = 1e12;

function figure(text: string | undefined, integer: boolean): number | undefined | null {
  if (text === undefined || text === '') return undefined;
  if (!/^\d+(\.\d+)?$/.test(text)) return null;
  const n = Number(text);
  if (!Number.isFinite(n) || n > MAX_FIGURE || (integer && !Number.isInteger(n))) return null;
  return n;
}

function usageOf(fields: readonly (string | undefined)[]): Usage | null {
  const [cost, turns, input, output] = [figure(fields[0], false), figure(fields[1], true), figure(fields[2], true), figure(fields[3], true)];
  if (cost === null || turns === null || input === null || output === null) return null;
  return {
    ...(cost === undefined ? {} : { costUsd: cost }),
    ...(turns === undefined ? {} : { turns }),
    ...(input === undefined ? {} : { inputTokens: input }),
    ...(output === undefined ? {} : { outputTokens: output }),
  };
}

function usageFields(usage: Usage): string {
  const f = (n: number | undefined) => (n === undefined ? '' : String(n));
  return [f(usage.costUsd === undefined ? undefined : Math.round(usage.costUsd * 1e4) / 1e4), f(usage.turns), f(usage.inputTokens), f(usage.outputTokens)].join(
    ':',
  );
}

function stageOf(text: string | undefined, seconds: number): readonly [number, number] | undefined | null {
  if (text === undefined || text === '') return undefined;
  const m = /^(\d+)-(\d+)$/.exec(text);
  if (!m) return null;
  const [from, to] = [Number(m[1]), Number(m[2])];
  return from <= to && to <= seconds ? [from, to] : null;
}

function parseRun(entry: string): RunRecord | undefined {
  const f = entry.split(':');
  if (f.length !== 12 || !/^\d{1,20}(\.\d{1,4})?$/.test(f[0]!)) return undefined;
  const start = figure(f[1], true);
  const seconds = figure(f[2], true);
  const waited = figure(f[3], true);
  if (start === undefined || start === null || seconds === undefined || seconds === null || waited === null) return undefined;
  const agent = stageOf(f[4], seconds);
  const verification = stageOf(f[5], seconds);
  const end = ENDS[f[6]!];
  const engines = f[7] === '' ? [] : f[7]!.split('+');
  if (engines.length > MAX_ENGINES) return undefined;
  const usage = usageOf(f.slice(8));
  if (agent === null || verification === null || !end || usage === null || !engines.every((e) => /^[a-z][a-z0-9-]{0,30}$/.test(e))) return undefined;
  return {
    run: f[0]!,
    start,
    seconds,
    ...(waited === undefined ? {} : { waited }),
    ...(agent ? { agent } : {}),
    ...(verification ? { verification } : {}),
    end,
    engines,
    usage,
  };
}

function parseEarlier(entry: string): EarlierRuns | undefined {
  const f = entry.split(':');
  if (f.length !== 6 || f[0] !== 'earlier') return undefined;
  const attempts = figure(f[1], true);
  const usage = usageOf(f.slice(2));
  if (attempts === undefined || attempts === null || usage === null) return undefined;
  return { attempts, usage };
}

/** A `runs=` value read; entries that do not parse are left out. */
export function parseRuns(value: string | undefined): RunsRecord | undefined {
  if (value === undefined || value === '') return undefined;
  const out: RunsRecord = { runs: [] };
  // One more than the record keeps: the folded entry.
  for (const entry of value.split(',').slice(0, RUNS_RECORDED + 1)) {
    if (entry.startsWith('earlier:')) {
      const earlier = parseEarlier(entry);
      if (earlier) out.earlier = earlier;
      continue;
    }
    const run = parseRun(entry);
    if (run && out.runs.length < RUNS_RECORDED) out.runs.push(run);
  }
  return out.runs.length > 0 || out.earlier ? out : undefined;
}

function runEntry(r: RunRecord): string {
  const stage = (s: readonly [number, number] | undefined) => (s ? `${s[0]}-${s[1]}` : '');
  return [r.run, r.start, r.seconds, r.waited ?? '', stage(r.agent), stage(r.verification), END_CODES[r.end], r.engines.join('+'), usageFields(r.usage)].join(
    ':',
  );
}

const ended = (r: RunRecord) => r.end === 'verified' || r.end === 'failed';

/** The record as the marker line holds it. */
export function formatRuns(record: RunsRecord): string {
  const entries = record.runs.map(runEntry);
  if (record.earlier) entries.unshift(`earlier:${record.earlier.attempts}:${usageFields(record.earlier.usage)}`);
  return entries.join(',');
}

/**
 * The record with `run` in it: replacing the entry of the same workflow run and attempt (the
 * worker writing its end twice), else added last; past RUNS_RECORDED, the oldest folded.
 */
export function withRun(record: RunsRecord | undefined, run: RunRecord): RunsRecord {
  const runs = [...(record?.runs ?? []).filter((r) => r.run !== run.run), run].sort((a, b) => a.start - b.start);
  let earlier = record?.earlier;
  const folded = () => ({ ...(earlier ? { earlier } : {}), runs });
  // Past the runs it keeps, or the room the body leaves it, the oldest are folded.
  while (runs.length > RUNS_RECORDED || (runs.length > 1 && formatRuns(folded()).length > RUNS_RECORD_MAX)) {
    const old = runs.shift()!;
    earlier = { attempts: (earlier?.attempts ?? 0) + (ended(old) ? 1 : 0), usage: addUsage(earlier?.usage, old.usage) };
  }
  return folded();
}

/** What the plan's runs used, for the spend (run/spend.ts); undefined when none reported anything. */
export function planUseOf(record: RunsRecord | undefined): PlanUse | undefined {
  if (!record) return undefined;
  let usage: Usage = record.earlier?.usage ?? {};
  for (const r of record.runs) usage = addUsage(usage, r.usage);
  const reported = Object.keys(usage).length > 0;
  const attempts = (record.earlier?.attempts ?? 0) + record.runs.filter(ended).length;
  if (!reported && attempts === 0) return undefined;
  return { usage, attempts, engines: record.runs.at(-1)?.engines ?? [] };
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/**
 * The plan's runs as timeline bars: each run's wait for a runner (from the App's dispatch), its
 * set-up (the job before the agent started), the agent, the verification; between a run that stopped at a checkpoint (or at the model's usage
 * limit) and the next, the wait for a person (or for the limit to reset).
 */
export function barsOf(record: RunsRecord | undefined): TimelineBar[] {
  const bars: TimelineBar[] = [];
  const runs = record?.runs ?? [];
  runs.forEach((r, i) => {
    const at = (offset: number) => iso(r.start + offset);
    const firstStage = r.agent?.[0] ?? r.verification?.[0] ?? r.seconds;
    if (r.waited) bars.push({ kind: 'runner', start: iso(r.start - r.waited), end: at(0) });
    if (firstStage > 0) bars.push({ kind: 'set-up', start: at(0), end: at(firstStage) });
    if (r.agent) bars.push({ kind: 'agent', start: at(r.agent[0]), end: at(r.agent[1]) });
    if (r.verification) bars.push({ kind: 'verification', start: at(r.verification[0]), end: at(r.verification[1]) });
    const next = runs[i + 1];
    // Until the next run's dispatch: from there it waited for a runner.
    const resumed = next ? next.start - (next.waited ?? 0) : 0;
    if (next && (r.end === 'checkpoint' || r.end === 'paused') && resumed > r.start + r.seconds) {
      bars.push({ kind: r.end === 'paused' ? 'usage limit' : 'person', start: at(r.seconds), end: iso(resumed) });
    }
  });
  return bars;
}
