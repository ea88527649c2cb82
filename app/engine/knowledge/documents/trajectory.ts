import type { SurfacedEntry } from './loop.js';
import { SKILL_TRAJECTORY_EVENTS, type SkillEventFields } from './skill-trajectory-types.js';

/**
 * The trajectory: what knowledge did in the work, one JSON object a line in
 * `trajectory/<YYYY-MM-DD>.jsonl` of the store. `match`: an entry was put into a plan's brief;
 * `use`: the plan was verified with it there. Reflection and audits count them (how often a
 * lesson is surfaced, how often the work then passes) without reading every signal.
 */

export const TRAJECTORY_EVENTS = ['match', 'use', ...SKILL_TRAJECTORY_EVENTS] as const;
export type TrajectoryEventType = (typeof TRAJECTORY_EVENTS)[number];

/** A line; skill events add their optional fields (skill-trajectory-types.ts). */
export interface TrajectoryEvent extends Partial<SkillEventFields> {
  timestamp: string;
  type: TrajectoryEventType;
  project: string;
  spec: string;
  plan: string;
  attempt?: number;
  /** The entry's path in the store. */
  entry: string;
  kind: SurfacedEntry['kind'];
  title: string;
  score: number;
  why: string;
  /** The event's identity: the same event logged twice (a re-run) is one line. */
  key: string;
}

export function trajectoryPath(at: Date): string {
  return `trajectory/${at.toISOString().slice(0, 10)}.jsonl`;
}

/** The events of one attempt: each surfaced entry matched, and used when the plan was verified with it. */
export function trajectoryEvents(input: {
  entries: readonly SurfacedEntry[];
  project: string;
  spec: string;
  plan: string;
  attempt?: number;
  verified: boolean;
  at: Date;
  /** Where the attempt ran (signalKey's origin): the same origin and attempt give the same keys. */
  origin: string;
}): TrajectoryEvent[] {
  const types: TrajectoryEventType[] = input.verified ? ['match', 'use'] : ['match'];
  return types.flatMap((type) =>
    input.entries.map((e) => ({
      timestamp: input.at.toISOString(),
      type,
      project: input.project,
      spec: input.spec,
      plan: input.plan,
      ...(input.attempt === undefined ? {} : { attempt: input.attempt }),
      entry: e.path,
      kind: e.kind,
      title: e.title,
      score: Math.round(e.score * 1000) / 1000,
      why: e.why,
      key: `${input.origin}/${input.spec}/${input.plan}/${input.attempt ?? 1}/${type}/${e.path}`,
    })),
  );
}

/** The keys already in a trajectory file: lines without one (written by hand) are kept and never match. */
function keysIn(text: string): Set<string> {
  const keys = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.trim().startsWith('{')) continue;
    try {
      const key = (JSON.parse(line) as { key?: unknown }).key;
      if (typeof key === 'string') keys.add(key);
    } catch {
      // A line that is not JSON is someone's note: left alone, and no duplicate of anything.
    }
  }
  return keys;
}

/** The file with the events it lacks appended; undefined when it has them all. Any event with a key: lifecycle events too (gene-events.ts). */
export function appendTrajectory(text: string | undefined, events: readonly { key: string }[]): string | undefined {
  const existing = text ?? '';
  const seen = keysIn(existing);
  const fresh = events.filter((e) => !seen.has(e.key) && (seen.add(e.key), true));
  if (fresh.length === 0) return undefined;
  const base = existing === '' || existing.endsWith('\n') ? existing : `${existing}\n`;
  return `${base}${fresh.map((e) => JSON.stringify(e)).join('\n')}\n`;
}
