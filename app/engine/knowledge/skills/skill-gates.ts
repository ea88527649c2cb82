import type { SkillCandidate } from './skill-candidate.js';

/**
 * The four quality gates a candidate skill passes before it is extracted (docs/design.md,
 * Knowledge, Skills). Any FAIL blocks it, and its reason is logged with the others:
 *
 * - discovery depth: it was found by investigation or trial and error, not looked up;
 * - reusability: it applies beyond the one context it was found in;
 * - trigger clarity: it names the exact error message or symptom that calls for it;
 * - verification: the fix was shown to work in the run.
 */
export const GATES = ['discovery-depth', 'reusability', 'trigger-clarity', 'verification'] as const;
export type Gate = (typeof GATES)[number];

export interface GateVerdict {
  gate: Gate;
  pass: boolean;
  reason: string;
}

/** Failing tool calls and retries in the attempts before that count as trial and error. */
export const TRIAL_TOOL_ERRORS = 3;

/** Words of an investigation: what a person or an agent writes when they found it out. */
const INVESTIGATION =
  /\b(?:traced|tracing|bisect\w*|debugg\w*|reproduc\w*|root cause|turned out|found that|instrument\w*|profil\w*|stack trace|narrowed|isolated|experiment\w*)\b/i;
/** Words of a documentation lookup: the answer was written down already. */
const LOOKUP = /\b(?:the documentation|the docs|docs say|readme|as documented|according to|the manual|changelog says|migration guide)\b/i;
/** A path of this project (`src/db.ts`, `app/x/`): a trigger made of these is this project's, not a technology's. */
const PROJECT_PATH = /(?:^|[\s`'"(])(?:\.{0,2}\/)?[\w.-]+\/[\w./-]+/;
/**
 * An error message as a program printed it (an error's class or code leading it): a path inside
 * it is where the error happened to be met, not what the error is, so it is no reason to call
 * the trigger this project's own.
 */
const ERROR_MESSAGE =
  /^(?:[\w.]*(?:Error|Exception)\b|error\b|fatal\b|panic\b)|\b[A-Z][A-Z0-9]*_[A-Z0-9_]{2,}\b|\bE(?:NOENT|ACCES|PERM|ADDRINUSE|CONNREFUSED|CONNRESET|TIMEDOUT|EXIST|NOTDIR|ISDIR|MFILE)\b/;

function quote(text: string, max = 120): string {
  const line = text.split('\n')[0]!.trim();
  return `"${line.length > max ? `${line.slice(0, max - 1)}…` : line}"`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function discoveryDepth(c: SkillCandidate): GateVerdict {
  const gate = 'discovery-depth';
  if (c.facts.failedBefore > 0)
    return { gate, pass: true, reason: `found by trial and error: ${plural(c.facts.failedBefore, 'failed attempt')} before the one that passed` };
  if (c.facts.toolErrors >= TRIAL_TOOL_ERRORS)
    return { gate, pass: true, reason: `found by trial and error: ${plural(c.facts.toolErrors, 'failing tool call')} and retries on the way` };
  const investigated = INVESTIGATION.exec(c.facts.prose);
  if (investigated) return { gate, pass: true, reason: `the evidence records an investigation ("${investigated[0]}")` };
  const lookup = LOOKUP.exec(c.facts.prose);
  if (lookup) return { gate, pass: false, reason: `a documentation lookup ("${lookup[0]}"), with no failed attempt or investigation recorded` };
  return { gate, pass: false, reason: 'no investigation recorded: no failed attempt, no failing tool calls, no words of debugging' };
}

/** Distinct plans a repair must have recurred in before it is a skill: one plan's failure may never come back. */
export const MIN_SKILL_PLANS = 2;

/** The distinct plans among a candidate's places (`project spec/plan`); a lesson's project-wide places (`project -/-`) are not plans. */
function plansOf(c: SkillCandidate): string[] {
  return c.places.filter((p) => !p.endsWith(' -/-'));
}

/**
 * Reusability is shown, not supposed: the repair recurred in MIN_SKILL_PLANS distinct plans (a
 * lesson a person merged counts its evidence's plans), or a person asked for the skill. A
 * one-off, however general its error reads, is left to a lesson's reflection until it comes back.
 */
function reusability(c: SkillCandidate): GateVerdict {
  const gate = 'reusability';
  const plans = plansOf(c);
  if (c.requested !== undefined)
    return {
      gate,
      pass: true,
      reason: `a person asked for it (${c.requested}), though it was seen in ${plans.length === 1 ? 'one plan' : `${plans.length} plans`}`,
    };
  if (plans.length >= MIN_SKILL_PLANS)
    return { gate, pass: true, reason: `recurred in ${plans.length} plans: ${plans.slice(0, 3).join('; ')}${plans.length > 3 ? '; …' : ''}` };
  const where = plans[0] ?? c.places[0] ?? 'one place';
  const general = c.triggers.find((t) => !PROJECT_PATH.test(t) || ERROR_MESSAGE.test(t)) ?? c.signature;
  const why = general !== undefined ? `; its trigger ${quote(general)} may well recur, and a skill is drafted once it does` : '';
  return { gate, pass: false, reason: `seen only in ${where}: a skill needs a repair that recurred in ${MIN_SKILL_PLANS} distinct plans${why}` };
}

function triggerClarity(c: SkillCandidate): GateVerdict {
  const gate = 'trigger-clarity';
  if (c.triggers.length > 0)
    return {
      gate,
      pass: true,
      reason: `exact error text recorded: ${quote(c.triggers[0]!)}${c.triggers.length > 1 ? ` and ${c.triggers.length - 1} more` : ''}`,
    };
  return { gate, pass: false, reason: 'no exact error message or symptom recorded (an error code such as ENOENT, or a quoted error line)' };
}

function verification(c: SkillCandidate): GateVerdict {
  const gate = 'verification';
  if (c.facts.verified)
    return {
      gate,
      pass: true,
      reason: c.verification.trim() === '' ? 'the plan passed in the run with the fix' : `tested in the run: ${quote(c.verification)}`,
    };
  return { gate, pass: false, reason: 'the fix was not shown to work in the run: no attempt passed with it' };
}

/** The gates by harness's own rules, used when no reflector agent is configured (or its answer could not be read). */
export function heuristicVerdicts(c: SkillCandidate): GateVerdict[] {
  return [discoveryDepth(c), reusability(c), triggerClarity(c), verification(c)];
}

/** The first failing gate's reason, or undefined when all four pass. */
export function blockedBy(verdicts: readonly GateVerdict[]): GateVerdict | undefined {
  return verdicts.find((v) => !v.pass);
}
