import { PLANNING_NAMES, type PlanningRequest } from '../planning/planning-command.js';

/**
 * A `/harness` command as parsed from a comment (docs/design.md, Slash commands). Targets may name
 * their spec (`SPC-002/03-02`), which is how a command picks one spec on a pull request that
 * changes several, or acts on a spec from any issue.
 */

export type PhaseOrPlan = { kind: 'phase'; phase: string } | { kind: 'plan'; plan: string };
export type Target = { kind: 'all' } | PhaseOrPlan;

export type Command =
  | { name: 'execute'; spec?: string; target: Target }
  | { name: 'status'; spec?: string }
  | { name: 'verify'; spec?: string; target: PhaseOrPlan }
  | { name: 'retry'; spec?: string; plan: string }
  | { name: 'abort'; spec?: string; plan: string }
  | { name: 'respond'; spec?: string; plan: string; answer: string }
  | { name: 'spike'; question: string }
  | { name: 'reflect' }
  /** `plan`: a person asks for a skill from that plan's repair though it did not recur. */
  | { name: 'retrospective'; spec?: string; plan?: string }
  | { name: 'audit' }
  | { name: 'help' }
  /** The planning commands on a spec PR (engine/planning/planning-command.ts). */
  | PlanningRequest;

export type CommandName = Command['name'];

export const COMMAND_NAMES: readonly CommandName[] = [
  'execute',
  'status',
  'verify',
  'retry',
  'abort',
  'respond',
  'spike',
  'reflect',
  'retrospective',
  'audit',
  'help',
  ...PLANNING_NAMES,
];

/** Commands that only read: anyone but a bot may run them, whatever the configured permission. */
const READ_ONLY: ReadonlySet<CommandName> = new Set(['help', 'status']);

export function changesAnything(command: Command): boolean {
  return !READ_ONLY.has(command.name);
}

/** A command whose answer depends on a spec (the others work anywhere in the repository). */
export type SpecCommand = Extract<Command, { name: 'execute' | 'status' | 'verify' | 'retry' | 'abort' | 'respond' }>;

export function isSpecCommand(command: Command): command is SpecCommand {
  return ['execute', 'status', 'verify', 'retry', 'abort', 'respond'].includes(command.name);
}

/** A target as written in a command: `all`, `03` or `03-02`. */
export function targetToken(target: Target): string {
  return target.kind === 'all' ? 'all' : target.kind === 'phase' ? target.phase : target.plan;
}

/** `03-02`, `phase 03`, or `every plan`, as replies name a target. */
export function describeTarget(target: Target): string {
  switch (target.kind) {
    case 'all':
      return 'every plan';
    case 'phase':
      return `phase ${target.phase}`;
    case 'plan':
      return target.plan;
  }
}
