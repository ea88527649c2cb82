/**
 * The planning commands (docs/design.md, Planning): each turns part of a spec into documents
 * an agent writes and a person reviews, on the spec PR (`/harness plan-phase 03`) or in a
 * checkout (`harness plan-phase <spec-dir> 03`). They share one grammar for their arguments.
 */

export const PLANNING_NAMES = [
  'plan-spec',
  'research-spec',
  'define-requirements',
  'create-roadmap',
  'discuss-phase',
  'research-phase',
  'plan-phase',
  'add-phase',
  'map-codebase',
] as const;

export type PlanningName = (typeof PLANNING_NAMES)[number];

/** The commands about one phase of the roadmap: they take its number. */
export const PHASE_COMMANDS: ReadonlySet<PlanningName> = new Set(['discuss-phase', 'research-phase', 'plan-phase']);

export type PlanningCommand =
  | { name: Exclude<PlanningName, 'discuss-phase' | 'research-phase' | 'plan-phase' | 'add-phase'> }
  | { name: 'discuss-phase' | 'research-phase' | 'plan-phase'; phase: string }
  | { name: 'add-phase'; goal: string };

/** The longest goal `add-phase` takes: one sentence of a roadmap, not a document. */
export const GOAL_MAX = 300;

export function isPlanningName(word: string): word is PlanningName {
  return (PLANNING_NAMES as readonly string[]).includes(word);
}

/** `plan-phase 03`, `add-phase "…"`, `map-codebase`: the command as a person writes it. */
export function planningWords(command: PlanningCommand): string {
  if ('phase' in command) return `${command.name} ${command.phase}`;
  if (command.name === 'add-phase') return `add-phase "${command.goal}"`;
  return command.name;
}

/** The usage line of each, for help and for the answer to a slip. */
export const PLANNING_USAGE: Readonly<Record<PlanningName, string>> = {
  'plan-spec': 'plan-spec',
  'research-spec': 'research-spec',
  'define-requirements': 'define-requirements',
  'create-roadmap': 'create-roadmap',
  'discuss-phase': 'discuss-phase <PP>',
  'research-phase': 'research-phase <PP>',
  'plan-phase': 'plan-phase <PP>',
  'add-phase': 'add-phase "<goal>"',
  'map-codebase': 'map-codebase',
};

const PHASE = /^\d{2,}$/;
const QUOTED = /^["“”](.*)["“”]$/s;

export type PlanningArgs = { ok: true; command: PlanningCommand } | { ok: false; problem: string };

/** A planning command's arguments (what follows its name), checked. */
export function parsePlanningArgs(name: PlanningName, rest: string): PlanningArgs {
  const text = rest.trim();
  const usage = (problem: string): PlanningArgs => ({ ok: false, problem: `${problem}; the form is \`${PLANNING_USAGE[name]}\`` });
  if (PHASE_COMMANDS.has(name)) {
    if (text === '') return usage(`${name} needs the phase number`);
    if (/\s/.test(text)) return usage(`${name} takes one phase, not "${text}"`);
    const padded = /^\d$/.test(text) ? `0${text}` : text;
    if (!PHASE.test(padded)) return usage(`\`${text}\` is not a phase number (phases look like 03)`);
    return { ok: true, command: { name: name as 'plan-phase', phase: padded } };
  }
  if (name === 'add-phase') {
    const m = QUOTED.exec(text);
    if (!m) return usage(text === '' ? "say the phase's goal in quotes" : 'put the goal in double quotes, and nothing after it');
    const goal = m[1]!.replace(/\s+/g, ' ').trim();
    if (goal === '') return usage('the goal is empty');
    if (goal.length > GOAL_MAX) return usage(`the goal is ${goal.length} characters; keep it to ${GOAL_MAX}`);
    return { ok: true, command: { name, goal } };
  }
  if (text !== '') return usage(`${name} takes nothing after it, not "${text}"`);
  return { ok: true, command: { name } as PlanningCommand };
}

/** A planning command as the `/harness` grammar reads it: the spec may be named, `plan-phase SPC-002/03`, `plan-spec SPC-002`. */
export type PlanningRequest = PlanningCommand & { spec?: string };

const SPEC_TOKEN = /^([A-Z][A-Z0-9]*-\d+)(?:\/(.*))?$/;

/** The arguments after a planning command's name, with an optional spec in front. */
export function parsePlanningRequest(name: PlanningName, rest: string): { ok: true; request: PlanningRequest } | { ok: false; problem: string } {
  let text = rest.trim();
  let spec: string | undefined;
  const first = text.split(/\s+/)[0] ?? '';
  const m = SPEC_TOKEN.exec(first);
  if (m && !text.startsWith('"')) {
    spec = m[1]!;
    text = (m[2] ?? '') + text.slice(first.length);
    if (PHASE_COMMANDS.has(name) && m[2] === undefined) text = text.trim();
  }
  const parsed = parsePlanningArgs(name, text);
  if (!parsed.ok) return parsed;
  return { ok: true, request: spec === undefined ? parsed.command : { ...parsed.command, spec } };
}

/** A line each, for `harness` without arguments. */
export const PLANNING_SUMMARY: Readonly<Record<PlanningName, string>> = {
  'plan-spec': 'PROJECT.md from SPEC.md, by an agent',
  'research-spec': 'research the spec: stack, features, architecture, pitfalls, summary',
  'define-requirements': 'REQUIREMENTS.md from the spec and its research',
  'create-roadmap': 'ROADMAP.md: phases with goals, success criteria and checks',
  'discuss-phase': 'questions about a phase; with the answers, its context',
  'research-phase': 'research a phase before it is planned',
  'plan-phase': 'the PLAN.md files of a phase, goal-backward',
  'add-phase': 'one more phase in ROADMAP.md',
  'map-codebase': 'a map of the codebase: structure, stack, patterns, …',
};
