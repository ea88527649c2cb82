import type { Level } from '../../core/documents/fields.js';
import type { SignalType } from './schema.js';

/**
 * What the parts of the learning loop hand each other (docs/design.md, Knowledge): capture
 * turns what happened into signal drafts; surfacing puts the knowledge that applies into a
 * plan's brief. The files they become are written by the runtime, through the content-safety
 * pass, into the knowledge store.
 */

/** A signal as capture produces it, before it is a file: the frontmatter's facts and the three sections. */
export interface SignalDraft {
  type: SignalType;
  severity: Level;
  spec?: string;
  phase?: string;
  plan?: string;
  agent?: string;
  /** Single words for reflection to group by: derived from the files and commands involved. */
  tags: string[];
  /** What happened, plainly: the first line is the signal's summary. */
  happened: string;
  context: string;
  cause: string;
  metadata?: Record<string, unknown>;
}

export const SURFACED_KINDS = ['lesson', 'skill', 'gene'] as const;
export type SurfacedKind = (typeof SURFACED_KINDS)[number];

/** A piece of accepted knowledge put into a plan's brief because it applies there. */
export interface SurfacedEntry {
  /** Its path in the knowledge store, relative to the store's root (`lessons/testing/sqlite-busy.lesson.md`). */
  path: string;
  kind: SurfacedKind;
  title: string;
  /** What the brief says of it: the lesson's advice, the skill's description, within the budget. */
  text: string;
  /** How well it applies, best first; comparable within one surfacing only. */
  score: number;
  /** Why it was chosen, for the person reading the summary. */
  why: string;
  /** Where it came from and when (the index's origin): the brief attributes it. */
  origin?: string;
  /** The errors it is about (its signatures): a failure met with it in the brief says its fix did not hold. */
  signatures?: string[];
}
