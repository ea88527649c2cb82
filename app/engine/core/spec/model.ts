import type { LineMap } from './frontmatter.js';
import type { CheckInput, CHECKPOINT_KINDS, ServeSchema } from './schema.js';
import type { z } from 'zod';

type Distribute<T> = T extends { type: 'visual_quality' | 'ux_flow' } ? never : T;

/** A must_pass check, normalised: `visual_quality` and `ux_flow` become `human` with a kind. */
export type Check = Distribute<CheckInput>;
export type HumanCheck = Extract<Check, { type: 'human' }>;
export type Serve = z.output<typeof ServeSchema>;
export type CheckpointKind = (typeof CHECKPOINT_KINDS)[number];

/** A shell block the plan marks as one of its steps (```sh step <title>). */
export interface Step {
  title: string;
  lang: string;
  script: string;
  /** File line of the opening fence. */
  line: number;
}

export interface Plan {
  id: string;
  title: string;
  /** The phase id, "03". */
  phase: string;
  /** Path relative to the spec directory. */
  file: string;
  dependsOn: string[];
  filesModified: string[];
  filesRead: string[];
  autonomous: boolean;
  checkpoints: CheckpointKind[];
  agent?: string;
  /** fallback: the engines that take the plan over at its agent's usage limit, in order (the repository's agents.fallback otherwise). */
  fallback?: string[];
  timeoutMinutes: number;
  /** budget_usd: the most its agent may spend, as the agent reports its cost. */
  budgetUsd?: number;
  mustPass: Check[];
  serve?: Serve;
  requirements: string[];
  truths: string[];
  metadata?: Record<string, unknown>;
  /** Done before harness (docs/design.md "PLAN.md frontmatter"): the date, or true. */
  completed?: string | true;
  body: string;
  bodyLine: number;
  steps: Step[];
  /** 'harness', or the name of the dialect it was written in (PlanDialect). */
  format: string;
  lines: LineMap;
}

export interface Phase {
  id: string;
  number: number;
  title: string;
  goal?: string;
  /** The directory under planning/plans/, "03-auth", when one exists. */
  dir?: string;
  /** Plan ids, in order. */
  plans: string[];
  mustPass: Check[];
  serve?: Serve;
}

export interface Spec {
  id: string;
  title: string;
  phases: Phase[];
  /** Every plan, ordered by phase then id. */
  plans: Plan[];
  planById: ReadonlyMap<string, Plan>;
}

export const HUMAN_TYPES = new Set(['human', 'visual_quality', 'ux_flow']);

// echo alone; piped into another program, that program decides (`echo "a: 1" | node bin/fmt.js`).
const TRIVIAL_COMMAND = /^\s*(true|:|exit(\s+0)?|\/bin\/true|echo(\s[^|&;]*)?)\s*;?\s*$/;

/** A command that succeeds whatever the state of the work. */
export function isTrivialCommand(command: string): boolean {
  return TRIVIAL_COMMAND.test(command);
}

/** Could this check fail when the work was not done? */
export function isMachineCheckable(check: Check): boolean {
  if (check.type === 'human') return false;
  if ('command' in check && typeof check.command === 'string' && isTrivialCommand(check.command)) return false;
  return true;
}

export function phaseNumber(id: string): number {
  return Number.parseInt(id, 10);
}

export function planPhase(planId: string): string {
  return planId.slice(0, planId.indexOf('-'));
}

/** Order plan ids by phase, then by number within the phase. */
export function comparePlanIds(a: string, b: string): number {
  const [pa, na] = a.split('-').map(Number);
  const [pb, nb] = b.split('-').map(Number);
  return pa! - pb! || na! - nb! || a.localeCompare(b);
}
