/**
 * The trajectory events of a skill's life (docs/design.md, Knowledge): `extraction` (a
 * candidate judged by the four gates, extracted or not), `approval` (its PR merged),
 * `rejection` (closed unmerged, with the reason) and `prune` (proposed for the archive). They
 * share the line shape of `match` and `use`; these fields are optional on every line.
 */
export const SKILL_TRAJECTORY_EVENTS = ['extraction', 'approval', 'rejection', 'prune'] as const;

export interface SkillEventFields {
  /** The four gates' verdicts, for an extraction. */
  gates: { gate: string; pass: boolean; reason: string }[];
  /** extracted, skipped (a gate failed) or linked (a duplicate), for an extraction. */
  decision: 'extracted' | 'skipped' | 'linked';
  /** The existing entry a duplicate was linked to. */
  duplicate: string;
  /** Why: the closing comment of a rejection, the rule a prune applies. */
  reason: string;
  /** The pull request of an approval or rejection. */
  pr: number;
}
