import type { Extraction } from './skill-extraction.js';
import type { TrajectoryEvent } from '../documents/trajectory.js';

/**
 * The trajectory lines of a skill's life (trajectory.ts, skill-trajectory-types.ts): the same
 * line shape as `match` and `use`, with `kind: skill`, the skill's path as `entry`, and a key
 * that makes logging the same event twice (a redelivered webhook, a re-run) one line.
 */

export interface SkillEventBase {
  at: Date;
  project: string;
  /** Where it happened: the spec and plan it came from, `-` when none. */
  spec?: string;
  plan?: string;
}

function base(b: SkillEventBase): Pick<TrajectoryEvent, 'timestamp' | 'project' | 'spec' | 'plan' | 'kind' | 'score'> {
  return { timestamp: b.at.toISOString(), project: b.project, spec: b.spec ?? '-', plan: b.plan ?? '-', kind: 'skill', score: 0 };
}

/** One `extraction` line per candidate, with the four gates, whatever became of it. */
export function extractionEvents(extractions: readonly Extraction[], b: Omit<SkillEventBase, 'spec' | 'plan'> & { origin: string }): TrajectoryEvent[] {
  return extractions.map((x) => ({
    ...base({ ...b, ...(x.candidate.spec ? { spec: x.candidate.spec } : {}), ...(x.candidate.plan ? { plan: x.candidate.plan } : {}) }),
    type: 'extraction',
    entry: x.path ?? x.duplicate?.path ?? `skills/${x.name}/SKILL.md`,
    title: x.candidate.title.slice(0, 200),
    score: x.verdicts.filter((v) => v.pass).length / x.verdicts.length,
    why: x.reason,
    gates: x.verdicts.map((v) => ({ gate: v.gate, pass: v.pass, reason: v.reason })),
    decision: x.decision,
    ...(x.duplicate ? { duplicate: x.duplicate.path } : {}),
    key: `${b.origin}/extraction/${x.candidate.id}`,
  }));
}

/** A skill PR merged (`approval`) or closed unmerged (`rejection`, with the closing comment's reason). */
export function reviewEvent(
  input: SkillEventBase & { type: 'approval' | 'rejection'; name: string; pr: number; reason?: string; by: string },
): TrajectoryEvent {
  return {
    ...base(input),
    type: input.type,
    entry: input.type === 'approval' ? `skills/${input.name}/SKILL.md` : `skills-archived/${input.name}/SKILL.md`,
    title: input.name,
    why:
      input.type === 'approval' ? `merged by @${input.by} in #${input.pr}` : `closed by @${input.by} in #${input.pr}${input.reason ? `: ${input.reason}` : ''}`,
    pr: input.pr,
    ...(input.reason ? { reason: input.reason } : {}),
    key: `review/${input.pr}/${input.type}`,
  };
}

/** A skill proposed for the archive by an audit, with the rule that applies. */
export function pruneEvent(input: SkillEventBase & { name: string; reason: string; origin: string }): TrajectoryEvent {
  return {
    ...base(input),
    type: 'prune',
    entry: `skills/${input.name}/SKILL.md`,
    title: input.name,
    why: input.reason,
    reason: input.reason,
    key: `${input.origin}/prune/${input.name}`,
  };
}
