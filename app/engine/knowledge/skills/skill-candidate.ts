import type { Condition } from '../documents/conditions.js';
import { appliesWhen, placeEvidence, placeKey } from '../lessons/applies.js';
import type { LessonRecord } from '../lessons/lesson-record.js';
import { signalKey } from '../lessons/lesson-record.js';
import type { SignalRecord } from '../signals/signal-record.js';

/**
 * Where a skill can come from (docs/design.md, Knowledge, Skills): a verified repair (a plan
 * that failed and then passed, from the attempt history its signals record), a fix an agent
 * reported as its own insight, or a lesson with enough evidence behind it.
 */
export type SkillSource = 'repair' | 'insight' | 'lesson';

/** A candidate skill: what the gates judge, and what the skill is drafted from when they pass. */
export interface SkillCandidate {
  source: SkillSource;
  /** A stable identity: the repair's plan, the insight's signal, the lesson's file. */
  id: string;
  spec?: string;
  plan?: string;
  /** Distinct `project spec/plan` places it was seen in. */
  places: string[];
  title: string;
  problem: string;
  /** The exact error messages and symptoms recorded, each as it was said. */
  triggers: string[];
  /** The failure signature the repairs share (knowledge/signals/signature.ts), when they are a failure's. */
  signature?: string;
  /** When it applies before a plan's first attempt (documents/conditions.ts), learnt from the plans it was seen in against the others. */
  conditions?: Condition[];
  /** A person asked for this skill (how they asked): it need not have recurred to be reusable. */
  requested?: string;
  rootCause: string;
  solution: string;
  /** What the run showed of the fix: the attempt that passed, the checks it passed. */
  verification: string;
  tags: string[];
  /** The signal (or lesson) paths it rests on. */
  evidence: string[];
  facts: {
    /** Failed attempts before the one that passed. */
    failedBefore: number;
    /** Failing tool calls and retries the agent reported, the trace of trial and error. */
    toolErrors: number;
    /** The plan passed in the run with the fix in place. */
    verified: boolean;
    /** Every word of the evidence's prose, for the investigation and documentation rules. */
    prose: string;
  };
}

/** Evidence a lesson needs before it is a candidate skill (knowledge.skills.lesson_evidence's default). */
export const LESSON_EVIDENCE = 3;

const FAILED_TYPES = new Set(['struggle', 'stuck', 'timeout']);

function place(s: SignalRecord): string {
  return `${s.signal.project} ${s.signal.spec ?? '-'}/${s.signal.plan ?? '-'}`;
}

function meta(s: SignalRecord, key: string): unknown {
  return (s.signal.metadata as Record<string, unknown> | undefined)?.[key];
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function text(s: SignalRecord): string {
  return [s.text?.happened, s.text?.context, s.text?.cause].filter(Boolean).join('\n');
}

/** Quoted or backticked phrases that read as an error, and the `said` line of a failure. */
export function errorTexts(prose: string): string[] {
  const out: string[] = [];
  for (const m of prose.matchAll(/[`"“]([^`"”\n]{6,200})[`"”]/g)) {
    const phrase = m[1]!.trim();
    if (ERRORISH.test(phrase)) out.push(phrase);
  }
  return [...new Set(out)];
}

/**
 * Lines of a failure's output that are an error message as a program printed it, quoted or
 * not: a line that starts with an error's name (`Error:`, `TypeError:`, `fatal:`, `panic:`,
 * `FAIL`) or that carries an error code (SQLITE_BUSY, ENOENT, TS2345). An agent's or a
 * script's stderr is quoted into a struggle signal line by line, without quotation marks.
 */
export function errorLines(prose: string): string[] {
  const out: string[] = [];
  for (const raw of prose.split('\n')) {
    const line = raw.trim();
    if (line.length < 6 || line.length > 200) continue;
    // ${PROJECT_ROOT} and the like are harness's placeholders for paths, not error codes.
    if (ERROR_LINE.test(line) || ERROR_CODE.test(line.replace(/\$\{[A-Z_]+\}/g, ''))) out.push(line);
  }
  return [...new Set(out)];
}

const ERROR_LINE = /^(?:[A-Za-z]*(?:Error|Exception)|error|fatal|panic|FAIL(?:ED)?|Traceback)\b[:\s(]/;
/** A phrase that names an error by its class or code: `TypeError: …`, `SQLITE_BUSY`, `ENOENT`, `TS2345`, `E0308`. */
const ERROR_NAME = /\b[A-Za-z]*(?:Error|Exception|Warning)\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]{2,}\b|\bE[A-Z]{3,}\b|\b[A-Z]{2,}\d{3,}\b|\bE\d{4}\b|\bpanic\b/;
const ERROR_CODE = /\b(?:[A-Z][A-Z0-9]*_[A-Z0-9_]{2,}|E(?:NOENT|ACCES|PERM|ADDRINUSE|CONNREFUSED|CONNRESET|TIMEDOUT|EXIST|NOTDIR|ISDIR|MFILE)|TS\d{4})\b/;

/** What an error message looks like: a code (ENOENT, SQLITE_BUSY, TS2345, E0308), or the words errors use. */
export const ERRORISH =
  /\b(?:[A-Z][A-Z0-9]*_[A-Z0-9_]+|E[A-Z]{3,}|[A-Z]{2,}\d{3,}|E\d{4})\b|\b(?:error|exception|failed|failure|cannot|can't|could not|not found|denied|refused|timed? ?out|undefined is not|is not a function|no such|invalid|unexpected|panic|traceback|segmentation|locked|conflict)\b/i;

function byPlan(signals: readonly SignalRecord[]): Map<string, SignalRecord[]> {
  const groups = new Map<string, SignalRecord[]>();
  for (const s of signals) {
    if (s.signal.plan === undefined) continue;
    const key = `${s.signal.project}/${s.signal.spec ?? '-'}/${s.signal.plan}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  return groups;
}

function repairCandidate(repair: SignalRecord, plan: readonly SignalRecord[]): SkillCandidate {
  const failures = plan.filter((s) => FAILED_TYPES.has(s.signal.type)).sort((a, b) => num(meta(a, 'attempt')) - num(meta(b, 'attempt')));
  const insights = plan.filter((s) => meta(s, 'reported') === 'agent');
  const said = failures.flatMap((f) => {
    const line = meta(f, 'said');
    const checks = meta(f, 'checks');
    return [...(typeof line === 'string' ? [line] : []), ...(Array.isArray(checks) ? checks.map((c) => `check ${String(c)} failed`) : [])];
  });
  const prose = [...failures, repair, ...insights].map(text).join('\n');
  // The errors the failures said first; quoted phrases only when they read as an error message (a class or a code), never a path, a command or the fix.
  const quoted = [...new Set([...said.filter((l) => ERRORISH.test(l)), ...errorTexts(prose).filter((t) => ERROR_NAME.test(t))])];
  // An unquoted error line counts when it says more than a quoted trigger already does.
  const triggers = [...quoted, ...new Set(failures.flatMap((f) => errorLines(f.text?.happened ?? '')).filter((l) => !quoted.some((q) => l.includes(q))))];
  const last = failures[failures.length - 1];
  const toolErrors = failures.reduce((n, f) => n + num(meta(f, 'toolErrors')) + num(meta(f, 'retries')), 0);
  const signature = meta(repair, 'signature');
  return {
    ...(typeof signature === 'string' && signature !== '' ? { signature } : {}),
    source: 'repair',
    id: `repair:${repair.signal.spec ?? '-'}/${repair.signal.plan}`,
    ...(repair.signal.spec ? { spec: repair.signal.spec } : {}),
    ...(repair.signal.plan ? { plan: repair.signal.plan } : {}),
    places: [...new Set([repair, ...failures].map(place))],
    title: insights[0]?.summary ?? `${repair.signal.plan}: ${last?.summary ?? repair.summary ?? 'a repair'}`,
    problem: last?.text?.happened ?? repair.text?.happened ?? '',
    triggers,
    rootCause:
      [last?.text?.cause, ...insights.map((i) => i.text?.cause)].filter((c) => c && !/has not checked it/.test(c)).join('\n\n') || (repair.text?.cause ?? ''),
    solution: solutionOf(repair, insights),
    verification: repair.text?.happened ?? '',
    tags: [...new Set([...failures, repair, ...insights].flatMap((s) => s.signal.tags))],
    evidence: [...failures, repair, ...insights].map((s) => s.file),
    facts: { failedBefore: Math.max(num(meta(repair, 'failedBefore')), failures.length), toolErrors, verified: meta(repair, 'outcome') === 'verified', prose },
  };
}

/**
 * The fix a repair recorded, whole: the agent's own account (its insight, else what it said it
 * did), else the commands and settings the passing attempt's diff added.
 */
function solutionOf(repair: SignalRecord, insights: readonly SignalRecord[]): string {
  const told = [...new Set(insights.map((i) => (i.text?.happened ?? '').trim()).filter(Boolean))];
  if (told.length > 0) return told.join('\n\n');
  const fix = meta(repair, 'fix') as { said?: unknown; added?: unknown } | undefined;
  const said = Array.isArray(fix?.said) ? fix.said.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : [];
  if (said.length > 0) return said[0]!;
  const added = Array.isArray(fix?.added)
    ? fix.added.filter(
        (a): a is { file: string; line: string } => typeof (a as { line?: unknown })?.line === 'string' && typeof (a as { file?: unknown })?.file === 'string',
      )
    : [];
  return added.length > 0
    ? `Add ${added
        .slice(0, 3)
        .map((a) => `\`${a.line}\` (in \`${a.file}\`)`)
        .join(', ')}.`
    : '';
}

function insightCandidate(insight: SignalRecord, plan: readonly SignalRecord[]): SkillCandidate {
  const failures = plan.filter((s) => FAILED_TYPES.has(s.signal.type));
  const repair = plan.find((s) => s.signal.type === 'repair' && meta(s, 'outcome') === 'verified');
  const own = text(insight);
  const prose = [own, ...failures.map(text)].join('\n');
  const passed = /\bwhich passed\b/.test(insight.text?.context ?? '') || repair !== undefined;
  return {
    source: 'insight',
    id: `insight:${signalKey(insight.file)}`,
    ...(insight.signal.spec ? { spec: insight.signal.spec } : {}),
    ...(insight.signal.plan ? { plan: insight.signal.plan } : {}),
    places: [place(insight)],
    title: insight.summary ?? 'an insight',
    problem: failures[0]?.text?.happened ?? insight.text?.happened ?? '',
    triggers: [
      ...new Set([...failures.map((f) => meta(f, 'said')).filter((l): l is string => typeof l === 'string' && ERRORISH.test(l)), ...errorTexts(prose)]),
    ],
    rootCause: failures[failures.length - 1]?.text?.cause ?? '',
    solution: insight.text?.happened ?? '',
    verification: passed
      ? `The plan ${insight.signal.plan ?? ''} passed in the run with this fix (${repair ? (repair.summary ?? 'a verified repair') : 'the agent reported it on an attempt that passed'}).`
      : '',
    tags: insight.signal.tags,
    evidence: [insight, ...failures, ...(repair ? [repair] : [])].map((s) => s.file),
    facts: { failedBefore: failures.length, toolErrors: failures.reduce((n, f) => n + num(meta(f, 'toolErrors')), 0), verified: passed, prose },
  };
}

function lessonCandidate(lesson: LessonRecord, signals: ReadonlyMap<string, SignalRecord>): SkillCandidate {
  const evidence = lesson.evidence.map((p) => signals.get(signalKey(p))).filter((s): s is SignalRecord => s !== undefined);
  const failures = evidence.filter((s) => FAILED_TYPES.has(s.signal.type));
  const repairs = evidence.filter((s) => s.signal.type === 'repair' && meta(s, 'outcome') === 'verified');
  const prose = [lesson.text.lesson, lesson.text.when, lesson.text.recommendation, ...evidence.map(text)].join('\n');
  const places = [...new Set([...evidence.map(place), ...lesson.lesson.projects.map((p) => `${p} -/-`)])];
  return {
    source: 'lesson',
    id: `lesson:${lesson.file}`,
    places,
    title: lesson.title,
    problem: lesson.text.lesson,
    triggers: [
      ...new Set([...failures.map((f) => meta(f, 'said')).filter((l): l is string => typeof l === 'string' && ERRORISH.test(l)), ...errorTexts(prose)]),
    ],
    rootCause: failures.map((f) => f.text?.cause ?? '').find(Boolean) ?? lesson.text.lesson,
    solution: lesson.text.recommendation,
    verification: repairs
      .map((r) => r.summary ?? '')
      .filter(Boolean)
      .join('\n'),
    tags: lesson.lesson.tags,
    evidence: [lesson.file, ...lesson.evidence],
    facts: { failedBefore: failures.length, toolErrors: failures.reduce((n, f) => n + num(meta(f, 'toolErrors')), 0), verified: repairs.length > 0, prose },
  };
}

export interface CandidateInput {
  signals: readonly SignalRecord[];
  lessons: readonly LessonRecord[];
  /** Only this spec's run (a retrospective of one spec); all when absent. */
  spec?: string;
  /** Evidence a lesson needs to be a candidate. */
  lessonEvidence?: number;
}

/**
 * The candidates in a store: each verified repair (one per plan), each fix an agent reported
 * (an `innovation` or `pattern` it sent) on a plan that was not repaired, and each lesson with
 * at least `lessonEvidence` signals. Ordered as found, repairs first.
 */
export function skillCandidates(input: CandidateInput): SkillCandidate[] {
  const signals = input.spec === undefined ? input.signals : input.signals.filter((s) => s.signal.spec === input.spec);
  const byFile = new Map(input.signals.map((s) => [s.file, s]));
  const plans = byPlan(signals);
  const out: SkillCandidate[] = [];
  for (const group of plans.values()) {
    const repairs = group.filter((s) => s.signal.type === 'repair').sort((a, b) => num(meta(b, 'attempt')) - num(meta(a, 'attempt')));
    if (repairs[0]) out.push(repairCandidate(repairs[0], group));
    else for (const insight of group.filter((s) => meta(s, 'reported') === 'agent')) out.push(insightCandidate(insight, group));
  }
  // Repairs of one error are one candidate, pooled across plans and specs (those of other specs too).
  const elsewhere =
    input.spec === undefined
      ? []
      : [...byPlan(input.signals.filter((s) => s.signal.spec !== input.spec)).values()].flatMap((group) => {
          const repair = group.filter((s) => s.signal.type === 'repair').sort((a, b) => num(meta(b, 'attempt')) - num(meta(a, 'attempt')))[0];
          return repair ? [repairCandidate(repair, group)] : [];
        });
  const pooled = poolBySignature(out, elsewhere);
  // When each repair's skill applies: the plans its failure met against every other plan the store knows.
  const evidence = placeEvidence(input.signals);
  for (const c of pooled) {
    if (c.source !== 'repair' || c.signature === undefined) continue;
    const met = [
      ...new Set(
        c.evidence
          .map((e) => byFile.get(e))
          .filter((r): r is SignalRecord => r?.signal.plan !== undefined)
          .map((r) => placeKey(r.signal.project, r.signal.spec, r.signal.plan!)),
      ),
    ];
    const learned = appliesWhen(evidence, met, [], [c.signature]);
    if (learned.conditions.length > 0) c.conditions = learned.conditions;
  }
  const byKey = new Map(input.signals.map((s) => [signalKey(s.file), s]));
  const specSignals = new Set(signals.map((s) => signalKey(s.file)));
  for (const lesson of input.lessons) {
    if (lesson.lesson.evidence_count < (input.lessonEvidence ?? LESSON_EVIDENCE)) continue;
    if (input.spec !== undefined && !lesson.evidence.some((p) => specSignals.has(signalKey(p)))) continue;
    pooled.push(lessonCandidate(lesson, byKey));
  }
  return pooled;
}

/** Repair candidates of the same signature merged into the first of them; `more` (other specs') only join a pool of these. */
function poolBySignature(candidates: readonly SkillCandidate[], more: readonly SkillCandidate[]): SkillCandidate[] {
  const bySignature = new Map<string, SkillCandidate>();
  const out: SkillCandidate[] = [];
  for (const c of candidates) {
    if (c.source !== 'repair' || c.signature === undefined) {
      out.push(c);
      continue;
    }
    const pool = bySignature.get(c.signature);
    if (pool) merge(pool, c);
    else {
      const first = { ...c, places: [...c.places], triggers: [...c.triggers], tags: [...c.tags], evidence: [...c.evidence], facts: { ...c.facts } };
      bySignature.set(c.signature, first);
      out.push(first);
    }
  }
  for (const c of more)
    if (c.signature !== undefined) {
      const pool = bySignature.get(c.signature);
      if (pool) merge(pool, c);
    }
  return out;
}

function merge(pool: SkillCandidate, c: SkillCandidate): void {
  pool.places = [...new Set([...pool.places, ...c.places])];
  pool.triggers = [...new Set([...pool.triggers, ...c.triggers])];
  pool.tags = [...new Set([...pool.tags, ...c.tags])];
  pool.evidence = [...new Set([...pool.evidence, ...c.evidence])];
  if (c.solution !== '' && !pool.solution.includes(c.solution)) pool.solution = pool.solution === '' ? c.solution : pool.solution;
  pool.facts.failedBefore += c.facts.failedBefore;
  pool.facts.toolErrors += c.facts.toolErrors;
  pool.facts.verified ||= c.facts.verified;
}
