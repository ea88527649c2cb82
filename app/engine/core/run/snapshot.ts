import type { PlanUse } from './spend.js';
import type { PlanSpan } from '../analysis/timeline.js';
import type { PhaseState, PlanState } from '../state/plan-state.js';

/** What a run knows at one moment, for the documents it writes and the status it prints. */
export interface RunSnapshot {
  spec: string;
  title: string;
  plans: ReadonlyMap<string, PlanState>;
  phases: ReadonlyMap<string, PhaseState>;
  /** Minutes of work per plan whose run has ended (verified or failed). */
  minutes: ReadonlyMap<string, number>;
  /** When each plan that has run ran (its last attempt): the timeline in STATUS.md. */
  spans?: ReadonlyMap<string, PlanSpan>;
  /** US dollars per plan, as its agent reported them; absent or empty when none did. */
  costs?: ReadonlyMap<string, number>;
  /** What each plan's agents reported they used over its attempts (spend.ts): STATUS.md's Spend section. */
  uses?: ReadonlyMap<string, PlanUse>;
  /** Plans paused at the model's usage limit, with when they run again (ISO); held as `checkpoint` in `plans`. */
  paused?: ReadonlyMap<string, string>;
  /** Why a plan is blocked or failed, in a line. */
  reasons: ReadonlyMap<string, string>;
  /** Newest last: "01-02 verified", with an ISO time. */
  activity: readonly { at: string; text: string }[];
  now: Date;
}
