import { PLAN_ID, SPEC_ID } from '../core/spec/schema.js';
import { didYouMean } from '../core/spec/suggest.js';
import { COMMAND_NAMES, type Command, type CommandName, type PhaseOrPlan, type Target } from './command.js';
import { HarnessError } from '../core/error.js';
import { parsePlanningRequest, PLANNING_USAGE } from '../planning/planning-command.js';

/**
 * The `/harness` grammar, strict so that a typo is answered rather than guessed at:
 *
 *   /harness execute <all|PP|PP-NN>        /harness status [SPEC]
 *   /harness verify <PP|PP-NN>             /harness retry <PP-NN>
 *   /harness abort <PP-NN>                 /harness respond <PP-NN> <answer…>
 *   /harness spike "<question>"            /harness reflect
 *   /harness retrospective [SPEC | [SPEC/]PLAN]   /harness audit
 *   /harness help
 *
 * and on a spec PR the planning commands (engine/planning/planning-command.ts): plan-spec,
 * research-spec, define-requirements, create-roadmap, discuss-phase PP, research-phase PP,
 * plan-phase PP, add-phase "<goal>", map-codebase, each optionally naming its spec first.
 *
 * A phase is `PP` (two or more digits), a plan `PP-NN`. Any target may name its spec,
 * `SPC-002/03-02` or `SPC-002/all`: that is how a command picks one spec on a pull request
 * that changes several. The question of `spike` is in double quotes (typographic ones too,
 * which phones and some editors type); the answer of `respond` is the rest of the line.
 *
 * Only one line counts: the first that starts with `/harness` (leading spaces allowed),
 * outside fenced code blocks, so that a comment may explain itself around the command and
 * may quote commands in code without running them. Later `/harness` lines are ignored.
 */
export class ParseError extends HarnessError {
  constructor(
    message: string,
    /** The command the line meant, when the name itself was understood. */
    readonly command?: CommandName,
  ) {
    super(message);
  }
}

export const USAGE: Readonly<Record<CommandName, string>> = {
  execute: 'execute <all|PP|PP-NN>',
  status: 'status [SPEC]',
  verify: 'verify <PP|PP-NN>',
  retry: 'retry <PP-NN>',
  abort: 'abort <PP-NN>',
  respond: 'respond <PP-NN> <answer…>',
  spike: 'spike "<question>"',
  reflect: 'reflect',
  retrospective: 'retrospective [SPEC | [SPEC/]PP-NN]',
  audit: 'audit',
  help: 'help',
  ...PLANNING_USAGE,
};

/** A hypothesis' question is one line of at most 300 characters (HypothesisSchema). */
export const QUESTION_MAX = 300;

const PREFIX = '/harness';
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const PHASE_ID = /^\d{2,}$/;
const QUOTED = /^["“”](.*)["“”]$/;

/** The first `/harness` line outside code fences, without the prefix; undefined when there is none. */
export function commandLine(body: string | null | undefined): string | undefined {
  let fence: string | undefined;
  for (const line of (body ?? '').split(/\r?\n/)) {
    const f = FENCE.exec(line);
    if (f) {
      const marker = f[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const text = line.trimStart();
    if (text === PREFIX || (text.startsWith(PREFIX) && /\s/.test(text[PREFIX.length]!))) return text.slice(PREFIX.length).trim();
  }
  return undefined;
}

/**
 * The command in a comment: undefined when the comment has no `/harness` line (it is not
 * for harness), a ParseError when it has one that does not follow the grammar.
 */
export function parseCommand(body: string | null | undefined): Command | ParseError | undefined {
  const line = commandLine(body);
  if (line === undefined) return undefined;
  try {
    return parseLine(line);
  } catch (e) {
    if (e instanceof ParseError) return e;
    throw e;
  }
}

function parseLine(line: string): Command {
  if (line === '') throw new ParseError('no command after /harness');
  const space = line.search(/\s/);
  const word = space === -1 ? line : line.slice(0, space);
  const rest = space === -1 ? '' : line.slice(space).trim();
  const name = COMMAND_NAMES.find((n) => n === word);
  if (name === undefined) throw new ParseError(`\`${word}\` is not a harness command${didYouMean(word, COMMAND_NAMES)}`);
  const args = rest === '' ? [] : rest.split(/\s+/);
  switch (name) {
    case 'execute': {
      const [token] = exactly(name, args, 1);
      return { name, ...target(name, token!, true) };
    }
    case 'verify': {
      const [token] = exactly(name, args, 1);
      return { name, ...phaseOrPlan(name, token!) };
    }
    case 'retry':
    case 'abort': {
      const [token] = exactly(name, args, 1);
      return { name, ...plan(name, token!) };
    }
    case 'respond': {
      if (args.length === 0) throw usage(name, 'name the plan and give the answer');
      const answer = rest.slice(args[0]!.length).trim();
      if (answer === '') throw usage(name, `give the answer after the plan id`);
      return { name, ...plan(name, args[0]!), answer };
    }
    case 'status': {
      if (args.length > 1) throw usage(name, `${name} takes at most a spec id, not "${rest}"`);
      if (args.length === 0) return { name };
      return { name, spec: specId(name, args[0]!) };
    }
    case 'retrospective': {
      if (args.length > 1) throw usage(name, `${name} takes at most a spec id or a plan id, not "${rest}"`);
      if (args.length === 0) return { name };
      // A plan (`01-02`, `SPC-001/01-02`): a person asks for a skill from its repair though it did not recur.
      const { id } = qualified(name, args[0]!);
      if (args[0]!.includes('/') || PLAN_ID.test(id)) return { name, ...plan(name, args[0]!) };
      return { name, spec: specId(name, args[0]!) };
    }
    case 'spike':
      return { name, question: question(rest) };
    case 'reflect':
    case 'audit':
    case 'help':
      exactly(name, args, 0);
      return { name };
    default: {
      const planning = parsePlanningRequest(name, rest);
      if (!planning.ok) throw new ParseError(planning.problem, name);
      return planning.request;
    }
  }
}

function usage(name: CommandName, problem: string): ParseError {
  return new ParseError(`${problem}; the form is \`/harness ${USAGE[name]}\``, name);
}

function exactly(name: CommandName, args: string[], n: number): string[] {
  if (args.length === n) return args;
  if (n === 0) return fail(usage(name, `${name} takes nothing after it, not "${args.join(' ')}"`));
  if (args.length === 0) return fail(usage(name, `${name} needs a target`));
  return fail(usage(name, `${name} takes one target, not "${args.join(' ')}"`));
}

function fail(error: ParseError): never {
  throw error;
}

function specId(name: CommandName, text: string): string {
  if (SPEC_ID.test(text)) return text;
  throw usage(name, `\`${text}\` is not a spec id (spec ids look like SPC-002)`);
}

/** `[SPEC/]rest`: the spec named before the first slash, if any. */
function qualified(name: CommandName, token: string): { spec?: string; id: string } {
  const slash = token.indexOf('/');
  if (slash === -1) return { id: token };
  return { spec: specId(name, token.slice(0, slash)), id: token.slice(slash + 1) };
}

function withSpec<T extends object>(spec: string | undefined, value: T): T & { spec?: string } {
  return spec === undefined ? value : { spec, ...value };
}

function target(name: CommandName, token: string, allowAll: boolean): { spec?: string; target: Target } {
  const { spec, id } = qualified(name, token);
  if (id === 'all' && allowAll) return withSpec(spec, { target: { kind: 'all' } });
  if (PHASE_ID.test(id)) return withSpec(spec, { target: { kind: 'phase', phase: id } });
  if (PLAN_ID.test(id)) return withSpec(spec, { target: { kind: 'plan', plan: id } });
  throw usage(name, `\`${id}\` is not ${allowAll ? '`all`, ' : ''}a phase (such as 03) or a plan (such as 03-02)${hintFor(id)}`);
}

function phaseOrPlan(name: CommandName, token: string): { spec?: string; target: PhaseOrPlan } {
  const parsed = target(name, token, false);
  return parsed as { spec?: string; target: PhaseOrPlan };
}

function plan(name: CommandName, token: string): { spec?: string; plan: string } {
  const { spec, id } = qualified(name, token);
  if (PLAN_ID.test(id)) return withSpec(spec, { plan: id });
  throw usage(name, `\`${id}\` is not a plan id (plan ids look like 03-02)${hintFor(id)}`);
}

/** The likeliest slip: one digit where two are needed. */
function hintFor(id: string): string {
  const padded = id.replace(/(^|-)(\d)(?=-|$)/g, '$10$2');
  return padded !== id && (PHASE_ID.test(padded) || PLAN_ID.test(padded)) ? `; did you mean ${padded}?` : '';
}

function question(rest: string): string {
  const m = QUOTED.exec(rest);
  if (!m) throw usage('spike', rest === '' ? 'ask the question in quotes' : 'put the question in double quotes, and nothing after it');
  const q = m[1]!.trim();
  if (q === '') throw usage('spike', 'the question is empty');
  if (q.length > QUESTION_MAX) throw usage('spike', `the question is ${q.length} characters; keep it to ${QUESTION_MAX}`);
  return q;
}
