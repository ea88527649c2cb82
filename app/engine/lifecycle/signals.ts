import type { Level } from '../core/documents/fields.js';
import type { Insight } from '../core/protocol/messages.js';
import type { Deviation } from '../core/run/deviations.js';
import type { Check, Phase, Plan } from '../core/spec/model.js';
import type { LevelResult, VerificationReport } from '../core/verify/levels.js';
import type { SignalDraft, SurfacedEntry } from '../knowledge/documents/loop.js';
import { sayAddition, tellingAdditions, type AddedLine } from '../knowledge/signals/added-lines.js';
import { failureSignature } from '../knowledge/signals/signature.js';
import { deriveTags, type TagSources } from '../knowledge/signals/signal-tags.js';
import { recognisedError } from '../core/verify/telling-line.js';
import { evidenceErrorLine, evidenceLine, tellingLine } from './failure-reason.js';
import { profileOfPlan } from '../knowledge/documents/plan-profile.js';
import type { AgentSeen } from './run-agent.js';

/**
 * Capture at the source (docs/design.md, Knowledge): the signals one plan attempt, one phase or
 * one stopped run gives, read off facts the runtime already holds. The same rules run on this
 * machine and on a runner, so the same attempt leaves the same signals wherever it ran. Cheap
 * and without judgement: reflection decides later what, if anything, they mean.
 */

/** How an attempt failed, in a form that stays the same when it fails the same way again. */
export interface AttemptFailure {
  kind: 'agent' | 'verification' | 'timeout';
  /** Stable across attempts: the failing checks, the failing step, or the error with its numbers and paths taken out. */
  fingerprint: string;
  /** Failing checks, `plan/check` or `check`. */
  checks?: string[];
  /** The failing step's title, when the agent says which. */
  step?: string;
  /** The line of the agent's error (or of the failing check's output) that says what went wrong, as it said it. */
  said?: string;
  /** The telling line normalised (knowledge/signals/signature.ts): the same for the same error in any plan. */
  signature?: string;
  /** The files the attempt changed, as far as it got: what the passing attempt is compared with. */
  changed?: string[];
  /** The commit the attempt ended on: what the passing attempt's diff is read from. */
  head?: string;
}

/** The plan's previous attempt, when it failed: what the runtime found in the store. */
export interface AttemptHistory {
  attempt: number;
  failure?: AttemptFailure;
}

/** What the passing attempt did that the failed one had not: the fix, as far as the facts show it. */
export interface AttemptFix {
  /** Files the passing attempt changed that the failed one did not (all it changed, when the failed one's are not known). */
  files: string[];
  /** The agent's own words about what it did: its reported insights (HARNESS_INSIGHT, the MCP worker report) and its summary. */
  said: string[];
  /** The commands and settings the passing attempt's diff adds (knowledge/signals/added-lines.ts). */
  added: AddedLine[];
}

/** Failed attempts before a verified one from which it is also a struggle. */
export const STRUGGLE_AFTER_FAILURES = 3;
/** Tool calls failing in one attempt from which it was a struggle, and retries of a failed call. */
export const STRUGGLE_TOOL_ERRORS = 3;
export const STRUGGLE_RETRIES = 2;

const STEP_ERROR = /^step \d+\/\d+ "([^"]+)"/;

/** Numbers, hashes, paths and quoted values vary between attempts that fail the same way. */
function normalise(text: string): string {
  return text
    .split('\n')[0]!
    .toLowerCase()
    .replace(/\(log: [^)]*\)/g, '')
    .replace(/(?:\/[^\s/:'"]+)+\/?/g, '<path>')
    .replace(/\b[0-9a-f]{7,40}\b/g, '<sha>')
    .replace(/\d+(?:\.\d+)?/g, '#')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 160);
}

function checkKey(result: LevelResult): string {
  return result.plan === undefined ? result.id : `${result.plan}/${result.id}`;
}

const SAID_MAX = 500;
/** Files a signal lists at most. */
const MAX_FILES = 40;

/**
 * The line of an agent's error that says what went wrong. The first line is how the agent
 * ended ("the command exited with code 1"), the same for every failure; the output after it
 * holds the agent's own words, and its telling line (failure-reason.ts) is what tells one
 * failure from another, and what a person reading the signal needs.
 */
export function agentErrorLine(error: string): string {
  const [first = '', ...output] = error.split('\n');
  const line = tellingLine(output) ?? first.trim();
  return line.length > SAID_MAX ? `${line.slice(0, SAID_MAX - 1)}…` : line;
}

/**
 * The signature of an agent's error: the error a tool's recogniser finds in the agent's output
 * (the lines after how it ended), never how it ended ("the command exited with code 1") nor an
 * output's last line: a failure nothing recognises has no signature, or every such failure
 * would share one.
 */
export function agentErrorSignature(error: string): string | undefined {
  const [, ...output] = error.split('\n');
  return failureSignature(recognisedError(output)?.line);
}

/** The failure of an attempt, from its agent error or its verification report. */
export function attemptFailure(input: { agentError?: string; timedOut: boolean; report?: VerificationReport }): AttemptFailure {
  if (input.agentError !== undefined) {
    const step = STEP_ERROR.exec(input.agentError)?.[1];
    const kind = input.timedOut ? 'timeout' : 'agent';
    const said = agentErrorLine(input.agentError);
    const signature = agentErrorSignature(input.agentError);
    if (step !== undefined) return { kind, fingerprint: `${kind}:step:${step}`, step, said, ...(signature ? { signature } : {}) };
    return { kind, fingerprint: `${kind}:${normalise(said)}`, said, ...(signature ? { signature } : {}) };
  }
  const failing = (input.report?.results ?? []).filter((r) => r.status === 'fail');
  const failed = failing.map(checkKey).sort();
  if (failed.length > 0) {
    // The first failing check's telling line: what a person reads first, and what tells this failure from another.
    const first = failing[0]!;
    const line = evidenceLine(first.evidence);
    const said = line.length > SAID_MAX ? `${line.slice(0, SAID_MAX - 1)}…` : line;
    const signature = failureSignature(evidenceErrorLine(first.evidence));
    return { kind: 'verification', fingerprint: `checks:${failed.join(',')}`, checks: failed, ...(said ? { said } : {}), ...(signature ? { signature } : {}) };
  }
  const problems = (input.report?.problems ?? []).map(normalise).sort();
  const signature = failureSignature(input.report?.problems[0]);
  return { kind: 'verification', fingerprint: `verification:${problems.join(';') || 'no reason'}`, ...(signature ? { signature } : {}) };
}

/** The fix, from the failed attempt's files, the passing attempt's and what its agent said. */
export function attemptFix(previous: AttemptFailure | undefined, changed: readonly string[], said: readonly string[], diff?: string): AttemptFix {
  const before = new Set(previous?.changed ?? []);
  const added = previous?.changed === undefined ? [] : changed.filter((f) => !before.has(f));
  // A retry on the failed attempt's checkout changes the same files again: then what it changed is all there is to say.
  const files = added.length > 0 ? added : [...changed];
  return {
    files: [...new Set(files)].sort(),
    said: [...new Set(said.map((s) => s.trim()).filter((s) => s !== ''))],
    added: tellingAdditions(diff, { only: changed }),
  };
}

function describeFailure(failure: AttemptFailure): string {
  if (failure.checks) return `check${failure.checks.length === 1 ? '' : 's'} ${failure.checks.join(', ')} failed`;
  if (failure.step) return `${failure.kind === 'timeout' ? 'time ran out in' : 'the agent failed at'} step "${failure.step}"`;
  const said = failure.said ?? failure.fingerprint.replace(/^[a-z]+:/, '');
  return failure.kind === 'timeout' ? `time ran out ("${said}")` : `the agent failed: "${said}"`;
}

function commandOf(check: Check): string | undefined {
  return 'command' in check && typeof check.command === 'string' ? check.command : undefined;
}

/** Where a plan's tags come from: its files, its checks (the failing ones when some failed), the step that failed. */
function planSources(plan: Plan, failure?: AttemptFailure, extra: TagSources = {}): TagSources {
  const failing = new Set(failure?.checks?.map((c) => c.slice(c.lastIndexOf('/') + 1)) ?? []);
  const checks = failing.size > 0 ? plan.mustPass.filter((c) => failing.has(c.id)) : plan.mustPass;
  const step = failure?.step !== undefined ? plan.steps.find((s) => s.title === failure.step) : undefined;
  return {
    files: [...plan.filesModified, ...(extra.files ?? [])],
    commands: [...checks.flatMap((c) => commandOf(c) ?? []), ...(step ? [step.script] : []), ...(extra.commands ?? [])],
    checks: [...checks.map((c) => c.type), ...(extra.checks ?? [])],
    words: [...(extra.words ?? [])],
  };
}

/** What an attempt was, for the rules below. */
export interface AttemptRecord {
  spec: string;
  plan: Plan;
  /** The agent the attempt ran. */
  agent: string;
  /** This attempt's number (1 for the first). */
  attempt: number;
  /** Failed attempts before this one. */
  failedBefore: number;
  previous?: AttemptHistory;
  end: 'verified' | 'failed' | 'checkpoint';
  /** Why it failed. */
  reason?: string;
  failure?: AttemptFailure;
  timedOut: boolean;
  undeclaredWrites: readonly Deviation[];
  seen?: AgentSeen;
  /** What the configuration asks the agent to be. */
  expects?: { model?: string };
  /** The knowledge surfaced into its brief. */
  knowledge?: readonly SurfacedEntry[];
  /** The files the attempt changed (all of them, against the plan's base). */
  changed?: readonly string[];
  /** What the agent said it did, when it finished (its summary). */
  summary?: string;
  /** A repair's diff since the failed attempt's head (unified, no context), when the checkout has it. */
  diff?: string;
  /** The modules the plan's files import (read from its checkout), for its profile. */
  imports?: readonly string[];
}

function draft(
  r: AttemptRecord,
  type: SignalDraft['type'],
  severity: Level,
  tags: string[],
  text: { happened: string; context: string; cause: string },
  metadata: Record<string, unknown>,
): SignalDraft {
  return { type, severity, spec: r.spec, phase: r.plan.phase, plan: r.plan.id, agent: r.agent, tags, ...text, metadata: { attempt: r.attempt, ...metadata } };
}

function where(r: AttemptRecord): string {
  return `plan ${r.plan.id} (${r.plan.title}) of ${r.spec}`;
}

function baseContext(r: AttemptRecord): string[] {
  const lines = [`Attempt ${r.attempt} by the ${r.agent} agent.`];
  if (r.plan.filesModified.length > 0) lines.push(`The plan's files: ${r.plan.filesModified.map((f) => `\`${f}\``).join(', ')}.`);
  const checks = r.plan.mustPass.map((c) => `\`${c.id}\` (${c.type})`);
  if (checks.length > 0) lines.push(`Its checks: ${checks.join(', ')}.`);
  const facts = r.seen?.facts;
  if (facts?.toolCalls !== undefined)
    lines.push(`The agent made ${facts.toolCalls} tool calls; ${facts.toolErrors ?? 0} failed and ${facts.retries ?? 0} repeated a failed one.`);
  return lines;
}

/** A failed attempt's signals: a timeout when it ran out of time, and stuck when it failed as the attempt before did, else (not timed out) a struggle. */
function failureSignals(r: AttemptRecord): SignalDraft[] {
  const failure = r.failure!;
  const told = failureTold(r, failure);
  const out: SignalDraft[] = [];
  if (r.timedOut) out.push(timeoutSignal(r, told));
  if (r.previous?.failure?.fingerprint === failure.fingerprint) out.push(stuckSignal(r, told));
  else if (!r.timedOut) out.push(failedStruggle(r, told));
  return out;
}

/** What a failed attempt's signals tell alike. */
interface FailureTold {
  failure: AttemptFailure;
  tags: string[];
  facts: Record<string, unknown>;
  /** Why it failed, as the runtime said it (else as the failure describes itself). */
  reason: string;
  context: string;
}

function failureTold(r: AttemptRecord, failure: AttemptFailure): FailureTold {
  const tags = deriveTags(planSources(r.plan, failure));
  const facts = failureFacts(r, failure);
  const reason = r.reason ?? describeFailure(failure);
  const context = baseContext(r);
  if (r.failedBefore > 0) context.push(`${r.failedBefore} earlier attempt${r.failedBefore === 1 ? '' : 's'} failed too.`);
  return { failure, tags, facts, reason, context: context.join('\n') };
}

/** A failed attempt's facts, for reflection: how it failed, what it touched, the plan's profile and what its brief carried. */
function failureFacts(r: AttemptRecord, failure: AttemptFailure): Record<string, unknown> {
  return {
    outcome: 'failed',
    failure: failure.fingerprint,
    ...(failure.signature ? { signature: failure.signature } : {}),
    ...(failure.checks ? { checks: failure.checks } : {}),
    ...(failure.step ? { step: failure.step } : {}),
    ...(failure.said ? { said: failure.said } : {}),
    ...(r.plan.filesModified.length > 0 ? { files: [...r.plan.filesModified] } : {}),
    ...(r.changed && r.changed.length > 0 ? { changed: r.changed.slice(0, MAX_FILES) } : {}),
    ...(failure.head ? { head: failure.head } : {}),
    profile: profileOfPlan(r.plan, r.imports),
    // What its brief carried: a failure met with a fix in the brief says that fix no longer holds.
    ...(r.knowledge && r.knowledge.length > 0 ? { briefed: r.knowledge.map((e) => e.path) } : {}),
    ...(r.knowledge?.some((e) => e.signatures?.length) ? { briefedFor: [...new Set(r.knowledge.flatMap((e) => e.signatures ?? []))] } : {}),
  };
}

function timeoutSignal(r: AttemptRecord, told: FailureTold): SignalDraft {
  const { failure } = told;
  return draft(
    r,
    'timeout',
    'high',
    told.tags,
    {
      happened: `${capitalise(where(r))} ran out of its ${r.plan.timeoutMinutes} minutes (timeout_minutes) on attempt ${r.attempt}.\n\n${told.reason}`,
      context: told.context,
      cause: failure.step
        ? `The work stopped in step "${failure.step}": the step takes longer than the plan allows, or it waits on something that never comes.`
        : 'The work takes longer than timeout_minutes allows, or the agent waited on something that never came.',
    },
    told.facts,
  );
}

function stuckSignal(r: AttemptRecord, told: FailureTold): SignalDraft {
  return draft(
    r,
    'stuck',
    'high',
    told.tags,
    {
      happened: `${capitalise(where(r))} failed the same way as its attempt before: ${describeFailure(told.failure)} (attempt ${r.attempt}, as attempt ${r.previous!.attempt}).\n\n${told.reason}`,
      context: told.context,
      cause:
        'Another attempt changed nothing that matters to this failure: the plan, its checks or what the agent is told must change, not the number of tries.',
    },
    { ...told.facts, previous: r.previous!.attempt },
  );
}

function failedStruggle(r: AttemptRecord, told: FailureTold): SignalDraft {
  const { failure } = told;
  return draft(
    r,
    'struggle',
    'medium',
    told.tags,
    {
      happened: `Attempt ${r.attempt} at ${where(r)} failed: ${describeFailure(failure)}.\n\n${told.reason}`,
      context: told.context,
      cause:
        failure.kind === 'verification'
          ? 'The agent finished, but the work does not meet the checks named above.'
          : 'The agent could not finish the plan; its own error is quoted above.',
    },
    told.facts,
  );
}

/** What the agent said it did: its reported insights first, then its summary (a default "`cmd` finished" says nothing). */
function agentWords(r: AttemptRecord): string[] {
  const insights = (r.seen?.insights ?? []).map((i) => [i.summary, i.detail].filter((x) => x !== undefined && x.trim() !== '').join(': '));
  const summary = r.summary !== undefined && !/^`[^`]*` finished$/.test(r.summary.trim()) ? [r.summary] : [];
  return [...insights, ...summary].map((t) => (t.length > SAID_MAX ? `${t.slice(0, SAID_MAX - 1)}…` : t));
}

function quoted(text: string): string {
  return `"${text.replace(/"/g, "'")}"`;
}

/** A verified attempt after failed ones: a repair, and a struggle too when it took many attempts. */
function repairSignals(r: AttemptRecord): SignalDraft[] {
  if (r.failedBefore === 0) return [];
  const told = repairTold(r);
  const out = [repairSignal(r, told)];
  if (r.failedBefore >= STRUGGLE_AFTER_FAILURES) out.push(repairStruggle(r, told));
  return out;
}

/** What a repair's signals tell alike. */
interface RepairTold {
  /** How the attempt before failed, when the store remembers. */
  last: AttemptFailure | undefined;
  tags: string[];
  context: string[];
  /** The commands that show the repair held. */
  validation: string[];
  fix: AttemptFix;
  facts: Record<string, unknown>;
}

function repairTold(r: AttemptRecord): RepairTold {
  const last = r.previous?.failure;
  const tags = deriveTags(planSources(r.plan, last));
  const context = baseContext(r);
  if (last) context.push(`The attempt before failed: ${describeFailure(last)}.`);
  const validation = repairValidation(r.plan, last);
  const fix = attemptFix(last, r.changed ?? [], agentWords(r), r.diff);
  const told = { last, tags, context, validation, fix };
  return { ...told, facts: repairFacts(r, told) };
}

/** The commands that show the repair held (the repaired checks', else all the plan's): a gene solidified from it validates with them. */
function repairValidation(plan: Plan, last: AttemptFailure | undefined): string[] {
  const repairedChecks = new Set(last?.checks?.map((c) => c.slice(c.lastIndexOf('/') + 1)) ?? []);
  return plan.mustPass.filter((c) => repairedChecks.size === 0 || repairedChecks.has(c.id)).flatMap((c) => commandOf(c) ?? []);
}

/** A repair's facts, for reflection: what it repaired, the checks that now pass, the plan's profile and the fix. */
function repairFacts(r: AttemptRecord, told: Omit<RepairTold, 'facts'>): Record<string, unknown> {
  const { last, validation, fix } = told;
  return {
    outcome: 'verified',
    failedBefore: r.failedBefore,
    ...(last ? { repaired: last.fingerprint } : {}),
    ...(last?.signature ? { signature: last.signature } : {}),
    ...(last?.said ? { said: last.said } : {}),
    ...(last?.checks ? { checks: last.checks } : {}),
    ...(validation.length > 0 ? { validation } : {}),
    ...(r.plan.filesModified.length > 0 ? { files: [...r.plan.filesModified] } : {}),
    profile: profileOfPlan(r.plan, r.imports),
    ...(fix.files.length > 0 || fix.said.length > 0 || fix.added.length > 0
      ? {
          fix: {
            ...(fix.said.length > 0 ? { said: fix.said } : {}),
            ...(fix.files.length > 0 ? { files: fix.files.slice(0, MAX_FILES) } : {}),
            ...(fix.added.length > 0 ? { added: fix.added } : {}),
          },
        }
      : {}),
  };
}

/** What fixed it, in sentences: the agent's words, what its diff adds, the files it changed. */
function whatFixedIt(fix: AttemptFix): string[] {
  return [
    ...(fix.said.length > 0 ? [`The agent said: ${fix.said.map(quoted).join('; ')}.`] : []),
    ...(fix.added.length > 0 ? [`Its diff adds ${fix.added.map(sayAddition).join(', ')}.`] : []),
    ...(fix.files.length > 0
      ? [
          `It changed ${fix.files
            .slice(0, 10)
            .map((f) => `\`${f}\``)
            .join(', ')}${fix.files.length > 10 ? ', …' : ''}.`,
        ]
      : []),
  ];
}

function repairSignal(r: AttemptRecord, told: RepairTold): SignalDraft {
  const { last, fix, validation } = told;
  const fixed = whatFixedIt(fix);
  const error = last?.said !== undefined ? `: ${quoted(last.said)}` : '';
  return draft(
    r,
    'repair',
    r.failedBefore >= 2 ? 'medium' : 'low',
    told.tags,
    {
      happened: [
        `${capitalise(where(r))} passed on attempt ${r.attempt}, after ${r.failedBefore} failed attempt${r.failedBefore === 1 ? '' : 's'}${error}.`,
        ...(fixed.length > 0 ? ['', `What fixed it: ${fixed.join(' ')}`] : []),
      ].join('\n'),
      context: [
        ...told.context,
        ...(validation.length > 0 ? [`The check${validation.length === 1 ? '' : 's'} that now pass: ${validation.map((c) => `\`${c}\``).join(', ')}.`] : []),
      ].join('\n'),
      cause: last
        ? `What failed before (${describeFailure(last)}) was put right in this attempt${fix.said.length > 0 ? `: ${fix.said.map(quoted).join('; ')}` : ''}.`
        : 'An earlier attempt failed; this one put it right.',
    },
    told.facts,
  );
}

function repairStruggle(r: AttemptRecord, told: RepairTold): SignalDraft {
  return draft(
    r,
    'struggle',
    'high',
    told.tags,
    {
      happened: `${capitalise(where(r))} needed ${r.attempt} attempts to pass.`,
      context: told.context.join('\n'),
      cause: 'The plan is harder than it reads, or its brief lacks what the agent needs to get it right the first time.',
    },
    { ...told.facts, reason: 'attempts' },
  );
}

function streamStruggle(r: AttemptRecord, alreadyStruggling: boolean): SignalDraft[] {
  const facts = r.seen?.facts;
  if (!facts || alreadyStruggling) return [];
  const errors = facts.toolErrors ?? 0;
  const retries = facts.retries ?? 0;
  if (errors < STRUGGLE_TOOL_ERRORS && retries < STRUGGLE_RETRIES) return [];
  return [
    draft(
      r,
      'struggle',
      errors >= 2 * STRUGGLE_TOOL_ERRORS || retries >= 2 * STRUGGLE_RETRIES ? 'medium' : 'low',
      deriveTags(planSources(r.plan)),
      {
        happened: `The agent on ${where(r)} had ${errors} failing tool call${errors === 1 ? '' : 's'} and ${retries} retr${retries === 1 ? 'y' : 'ies'} of a failed call, of ${facts.toolCalls ?? 0} calls.`,
        context: baseContext(r).join('\n'),
        cause: 'The agent went by trial and error: something it needed (a command, a path, an API) was not what it expected.',
      },
      { reason: 'tool-errors', toolCalls: facts.toolCalls ?? 0, toolErrors: errors, retries },
    ),
  ];
}

function deviationSignals(r: AttemptRecord): SignalDraft[] {
  return r.undeclaredWrites.map((d) =>
    draft(
      r,
      'deviation',
      d.impact,
      deriveTags({ files: d.files }),
      {
        happened: `${capitalise(where(r))} changed ${d.files.length === 1 ? 'a file' : `${d.files.length} files`} outside its files_modified: ${d.files
          .slice(0, 20)
          .map((f) => `\`${f}\``)
          .join(', ')}${d.files.length > 20 ? ', …' : ''}.`,
        context: [
          ...baseContext(r),
          `files_modified: ${r.plan.filesModified.length > 0 ? r.plan.filesModified.map((f) => `\`${f}\``).join(', ') : 'none'}.`,
        ].join('\n'),
        cause: `${d.reason} Either the plan should declare these files, or the agent went beyond the plan.`,
      },
      {
        files: d.files,
        ...signatureOf(
          `undeclared write outside files_modified: ${[...new Set(d.files.map((f) => (f.includes('/') ? `${f.split('/')[0]}/` : f)))].sort().join(', ')}`,
        ),
      },
    ),
  );
}

function signatureOf(line: string): { signature?: string } {
  const signature = failureSignature(line);
  return signature ? { signature } : {};
}

/** `sonnet` names `claude-sonnet-4-5-20250929`; a different family or version does not. */
function sameModel(configured: string, reported: string): boolean {
  const a = configured.toLowerCase();
  const b = reported.toLowerCase();
  return a === b || b.includes(a) || a.includes(b);
}

function configSignals(r: AttemptRecord): SignalDraft[] {
  const out: SignalDraft[] = [];
  const model = r.seen?.facts?.model;
  const wanted = r.expects?.model;
  const tags = deriveTags({ words: ['config', r.agent] });
  if (model !== undefined && wanted !== undefined && !sameModel(wanted, model)) {
    out.push(
      draft(
        r,
        'config',
        'medium',
        deriveTags({ words: ['config', 'model', r.agent] }),
        {
          happened: `The ${r.agent} agent on ${where(r)} ran the model \`${model}\`; the configuration asks for \`${wanted}\`.`,
          context: baseContext(r).join('\n'),
          cause:
            'The configured model was not honoured: an alias resolved differently, an account without access to it, or a setting that overrides the one in .github/harness.yml.',
        },
        { configured: wanted, reported: model },
      ),
    );
  }
  const named = r.seen?.agent;
  if (named !== undefined && named !== r.agent) {
    out.push(
      draft(
        r,
        'config',
        'medium',
        tags,
        {
          happened: `${capitalise(where(r))} was given to the ${r.agent} agent, but the agent that answered calls itself \`${named}\`.`,
          context: baseContext(r).join('\n'),
          cause: 'The agent configured under that name runs something else than the configuration says.',
        },
        { configured: r.agent, reported: named },
      ),
    );
  }
  return out;
}

function insightSignals(r: AttemptRecord): SignalDraft[] {
  // An insight reported while repairing a failure is the agent's account of the fix: evidence of that failure's cluster.
  const repairs = r.end === 'verified' && r.failedBefore > 0 ? r.previous?.failure?.signature : undefined;
  return (r.seen?.insights ?? []).map((insight: Insight) =>
    draft(
      r,
      insight.kind,
      'low',
      deriveTags(planSources(r.plan, undefined, { words: insight.tags ?? [] })),
      {
        happened: [insight.summary, ...(insight.detail ? ['', insight.detail] : [])].join('\n'),
        context: [
          `Reported by the ${r.agent} agent while working on ${where(r)}, attempt ${r.attempt}, which ${r.end === 'verified' ? 'passed' : r.end === 'failed' ? 'failed' : 'stopped for a person'}.`,
        ].join('\n'),
        cause: "The agent's own account; harness has not checked it.",
      },
      { reported: 'agent', ...(repairs ? { signature: repairs, repairs: true } : {}) },
    ),
  );
}

function useSignals(r: AttemptRecord): SignalDraft[] {
  const entries = r.knowledge ?? [];
  if (r.end !== 'verified' || entries.length === 0) return [];
  return [
    draft(
      r,
      'use',
      'low',
      deriveTags(planSources(r.plan)),
      {
        happened: `${capitalise(where(r))} passed with ${entries.length} piece${entries.length === 1 ? '' : 's'} of knowledge in its brief: ${entries.map((e) => `${e.kind} \`${e.path}\``).join(', ')}.`,
        context: entries.map((e) => `- ${e.kind} \`${e.path}\` (${e.title}): ${e.why}`).join('\n'),
        cause: 'Surfacing chose these for the plan; the plan passed with them in the brief.',
      },
      {
        entries: entries.map((e) => e.path),
        ...(entries.some((e) => e.signatures?.length) ? { briefedFor: [...new Set(entries.flatMap((e) => e.signatures ?? []))] } : {}),
      },
    ),
  ];
}

/** The signals of one attempt, most telling first (a cap keeps the first ones). */
export function attemptSignals(r: AttemptRecord): SignalDraft[] {
  const failed = r.end === 'failed' && r.failure !== undefined ? failureSignals(r) : [];
  const repaired = r.end === 'verified' ? repairSignals(r) : [];
  const struggling = [...failed, ...repaired].some((s) => s.type === 'struggle');
  const settled = r.end !== 'checkpoint';
  return [
    ...failed,
    ...repaired,
    ...streamStruggle(r, struggling),
    ...(settled ? deviationSignals(r) : []),
    ...configSignals(r),
    ...insightSignals(r),
    ...useSignals(r),
  ];
}

/** One plan of a verified phase, as the completion signal sums it up. */
export interface CompletedPlan {
  id: string;
  title: string;
  attempts?: number;
  minutes?: number;
}

/**
 * A phase verified: one `completion` signal for the whole phase, not one per plan (the plans'
 * own facts are in their SUMMARY.md), so that success is on record without drowning the rest.
 */
export function phaseCompletion(input: {
  spec: string;
  phase: Phase;
  plans: readonly Plan[];
  done: readonly CompletedPlan[];
  report?: VerificationReport;
  imports?: ReadonlyMap<string, readonly string[]>;
}): SignalDraft {
  const { phase, done } = input;
  const attempts = done.reduce((n, p) => n + (p.attempts ?? 1), 0);
  const timed = done.filter((p) => p.minutes !== undefined);
  const minutes = Math.round(timed.reduce((n, p) => n + p.minutes!, 0) * 10) / 10;
  const retried = done.filter((p) => (p.attempts ?? 1) > 1);
  const checks = input.report?.results ?? [];
  const tags = deriveTags({
    files: input.plans.flatMap((p) => p.filesModified),
    checks: [...input.plans.flatMap((p) => p.mustPass.map((c) => c.type)), ...phase.mustPass.map((c) => c.type)],
    commands: phase.mustPass.flatMap((c) => commandOf(c) ?? []),
  });
  const lines = done.map(
    (p) =>
      `- ${p.id} ${p.title}${p.attempts !== undefined && p.attempts > 1 ? `: ${p.attempts} attempts` : ''}${p.minutes !== undefined ? ` (${p.minutes > 0 ? p.minutes : '<0.1'} min)` : ''}`,
  );
  return {
    type: 'completion',
    severity: 'low',
    spec: input.spec,
    phase: phase.id,
    tags,
    happened: `Phase ${phase.id} (${phase.title}) of ${input.spec} was verified: ${done.length} plan${done.length === 1 ? '' : 's'}${timed.length > 0 ? ` in ${minutes >= 1 ? `${minutes} minutes` : 'under a minute'} of work` : ''}, ${attempts === done.length ? `${done.length === 1 ? 'on its' : 'each on its'} first attempt` : `${attempts} attempts`}.\n\n${lines.join('\n')}`,
    context: `${checks.length > 0 ? `Phase-level verification ran ${checks.length} check${checks.length === 1 ? '' : 's'} on the merged work; all passed.` : "The phase has no checks of its own beyond its plans'."}${retried.length > 0 ? ` Needed more than one attempt: ${retried.map((p) => p.id).join(', ')}.` : ''}`,
    cause: retried.length > 0 ? 'Most plans passed at once; the ones that did not have their own signals.' : 'Every plan passed on its first attempt.',
    metadata: {
      plans: done.length,
      attempts,
      ...(timed.length > 0 ? { minutes } : {}),
      // Every plan's profile: what reflection tells the plans that met a failure from the others by.
      profiles: Object.fromEntries(input.plans.slice(0, MAX_PROFILES).map((p) => [p.id, profileOfPlan(p, input.imports?.get(p.id))])),
    },
  };
}

/** Plans whose profile a completion signal keeps at most: a phase of more is rare, and the first are enough to compare with. */
const MAX_PROFILES = 200;

/** What a stop knows of a plan it cut short (the App knows it from the plan's issue). */
export type StoppedPlan = Pick<Plan, 'id' | 'title' | 'phase' | 'filesModified'>;

/** A run a person stopped (Ctrl-C locally, `/harness abort` on GitHub), with what was running then. */
export function interruptedSignal(input: { spec: string; plans: readonly StoppedPlan[]; by: string; phase?: string; context?: string }): SignalDraft {
  const { plans } = input;
  const phases = [...new Set(plans.map((p) => p.phase))];
  const one = plans.length === 1 ? plans[0] : undefined;
  return {
    type: 'interrupted',
    severity: 'medium',
    spec: input.spec,
    ...(one ? { phase: one.phase, plan: one.id } : phases.length === 1 ? { phase: phases[0]! } : input.phase !== undefined ? { phase: input.phase } : {}),
    tags: deriveTags({ files: plans.flatMap((p) => p.filesModified), words: ['interrupted'] }),
    happened: `${input.by} stopped ${plans.length === 0 ? `the run of ${input.spec}` : `${plans.map((p) => `plan ${p.id} (${p.title})`).join(', ')} of ${input.spec}`} while ${plans.length === 1 ? 'it was' : 'they were'} running.`,
    context: [
      ...(plans.length > 0
        ? plans.map((p) => `- ${p.id}: files ${p.filesModified.map((f) => `\`${f}\``).join(', ') || 'not known here'}`)
        : ['No plan was running.']),
      ...(input.context ? ['', input.context] : []),
    ].join('\n'),
    cause: 'A person chose to stop the work: it was going wrong, taking too long, or no longer wanted.',
    metadata: { plans: plans.map((p) => p.id) },
  };
}

function capitalise(text: string): string {
  return `${text[0]!.toUpperCase()}${text.slice(1)}`;
}
