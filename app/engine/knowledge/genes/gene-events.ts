/**
 * The trajectory's lifecycle lines for genes and capsules (docs/design.md, Knowledge): beside
 * `match` and `use` (trajectory.ts), every step in a gene's life is one JSON line in
 * `trajectory/<YYYY-MM-DD>.jsonl`, so that what was learned, promoted and dropped can be read
 * back in order without walking the Git history.
 *
 * - `solidify`: repeated successful repairs became a candidate gene (its PR opened, or its file written);
 * - `promote`: a candidate met its tier and is proposed active;
 * - `deprecate`: unused for the decay window;
 * - `demote`: its success rate fell below the floor: back to candidate;
 * - `remove`: deprecated and unused for the removal window;
 * - `capsule`: a plan verified with genes in its brief recorded the path it took;
 * - `publish`: a publishable gene or skill was proposed to the shared knowledge repository.
 */

export const GENE_EVENTS = ['solidify', 'promote', 'deprecate', 'demote', 'remove', 'capsule', 'publish'] as const;
export type GeneEventType = (typeof GENE_EVENTS)[number];

export interface GeneEvent {
  timestamp: string;
  type: GeneEventType;
  /** The document's path in the store (`genes/<id>.gene.md`, `capsules/<id>.capsule.md`, `skills/<name>/SKILL.md`). */
  entry: string;
  kind: 'gene' | 'capsule' | 'skill';
  project: string;
  /** Why, in a sentence a person reads in the audit. */
  reason: string;
  /** The status before and after, for the changes of status. */
  from?: string;
  to?: string;
  tier?: number;
  /** The pull request that carries the change, on GitHub. */
  pr?: number;
  /** The genes a capsule applied. */
  genes?: string[];
  /** The same change proposed twice (a re-run of the schedule) is one line. */
  key: string;
}

/**
 * `basis` is the state the change starts from (the gene's `updated`, a capsule's plan attempt):
 * proposing the same change from the same state again (the schedule running while its PR is
 * still open) is the same line; once the change is merged the gene's state is new, and so is
 * the next change's key.
 */
export function geneEvent(input: Omit<GeneEvent, 'timestamp' | 'key'> & { at: Date; basis: string }): GeneEvent {
  const { at, basis, ...rest } = input;
  const status = rest.to === undefined ? '' : `/${rest.to}`;
  return { timestamp: at.toISOString(), ...rest, key: `${rest.project}/${rest.type}/${rest.entry}${status}@${basis}` };
}
