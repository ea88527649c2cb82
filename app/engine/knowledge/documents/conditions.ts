import { hypergeometricTail } from '../../core/stats.js';
import { profileFeatures, type PlanProfile } from './plan-profile.js';
import { stem, words } from './words.js';

/**
 * When a piece of knowledge applies, as evidence a person can read and check: what the plans
 * that met the failure had in common that the others had not. A condition is one or two
 * features of a plan's profile (plan-profile.ts) — the commands its checks run, the modules its
 * files import, the words it says — with how many plans that met the failure had them, and how
 * many that did not:
 *
 *     runs "go test -race" (3 of 3 plans that met it; 0 of 21 others)
 *     imports "github.com/jackc/pgx" and says "migration" (2 of 3 plans that met it; 1 of 21 others)
 *
 * A lesson keeps its conditions in `applies_when`, a skill in `metadata.applies-when` (one line,
 * `;`-separated); a person may edit them or write their own, without counts (then they are
 * taken at their word). Surfacing puts the knowledge into a plan's brief before its first
 * attempt only when the plan meets a condition that makes the failure likely.
 */

export type FeatureKind = 'runs' | 'imports' | 'says';

export interface Feature {
  kind: FeatureKind;
  value: string;
}

export interface Condition {
  features: Feature[];
  /** Plans that met the failure with these features, of how many met it. Absent when a person wrote the condition. */
  seen?: number;
  of?: number;
  /** Plans that did not meet it with these features, of how many such plans there were. */
  others?: number;
  among?: number;
}

/**
 * How likely a plan with the condition's features meets the failure: the plans that met it
 * among all that had the features, counting one unseen plan without it, so that a condition
 * seen twice and never elsewhere (2 of 3) is not taken for a certainty. A person's condition,
 * with no counts, is their word: 1.
 */
export function chanceOf(c: Condition): number {
  if (c.seen === undefined || c.others === undefined) return 1;
  return c.seen / (c.seen + c.others + 1);
}

function featureText(f: Feature): string {
  return `${f.kind} "${f.value.replace(/"/g, "'")}"`;
}

/** A condition as a lesson's `applies_when` item, or a part of a skill's `metadata.applies-when`. */
export function formatCondition(c: Condition): string {
  const counted =
    c.seen !== undefined && c.of !== undefined && c.others !== undefined && c.among !== undefined
      ? ` (${c.seen} of ${c.of} plans that met it; ${c.others} of ${c.among} others)`
      : '';
  return `${c.features.map(featureText).join(' and ')}${counted}`;
}

const FEATURE = /^(runs|imports|says)\s+"([^"]{1,200})"\s*/;
const COUNTS = /^\((\d{1,6}) of (\d{1,6}) plans? that met it; (\d{1,6}) of (\d{1,6}) others?\)\s*$/;

/** A condition read back from its text; undefined when it does not read as one (the caller says where). */
export function parseCondition(text: string): Condition | undefined {
  let rest = text.trim();
  const features: Feature[] = [];
  for (;;) {
    const m = FEATURE.exec(rest);
    if (!m) return undefined;
    features.push({ kind: m[1] as FeatureKind, value: m[2]! });
    rest = rest.slice(m[0].length);
    if (rest.startsWith('and ')) {
      rest = rest.slice(4);
      continue;
    }
    break;
  }
  if (rest === '') return { features };
  const c = COUNTS.exec(rest);
  if (!c) return undefined;
  const [seen, of, others, among] = c.slice(1, 5).map(Number) as [number, number, number, number];
  if (seen > of || others > among) return undefined;
  return { features, seen, of, others, among };
}

/** A skill's `metadata.applies-when`: conditions one after another, `;` between them. */
export function parseConditionList(text: string): { conditions: Condition[]; unread: string[] } {
  const conditions: Condition[] = [];
  const unread: string[] = [];
  // Split at each `;` outside quotes and the counts' brackets: a command in a condition may hold one, and the counts do.
  const parts: string[] = [];
  let quoted = false;
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && c === '(') depth++;
    else if (!quoted && c === ')') depth = Math.max(0, depth - 1);
    else if (c === ';' && !quoted && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  for (const part of parts) {
    if (part.trim() === '') continue;
    const c = parseCondition(part);
    if (c) conditions.push(c);
    else unread.push(part.trim());
  }
  return { conditions, unread };
}

/** The feature keys a condition's feature may be met by: a word as written and as stemmed. */
function keysOf(f: Feature): string[] {
  if (f.kind !== 'says') return [`${f.kind}:${f.value}`];
  const forms = new Set([f.value.toLowerCase(), stem(f.value.toLowerCase()), ...words(f.value)]);
  return [...forms].map((w) => `says:${w}`);
}

/** Whether a plan's features (profileFeatures) meet every feature of a condition. */
export function meets(c: Condition, features: ReadonlySet<string>): boolean {
  return c.features.length > 0 && c.features.every((f) => keysOf(f).some((k) => features.has(k)));
}

/** A feature key (`runs:go test -race`) as a Feature. */
export function featureOf(key: string): Feature {
  const at = key.indexOf(':');
  return { kind: key.slice(0, at) as FeatureKind, value: key.slice(at + 1) };
}

/**
 * How sure a condition must make the failure before knowledge about it reaches a plan that has
 * not met it yet: as likely as not. A line of a brief costs little; a failure met again costs
 * an attempt. Counting the unseen plan (chanceOf) keeps two plans of two from passing for a rule.
 */
export const MIN_CHANCE = 0.5;
/**
 * For a condition on what a plan runs and uses alone (its checks' commands, the modules it reads
 * and imports), less: those a plan shows deliberately, where its words are whatever its author
 * wrote that day, and a line of advice to a plan that meets the cause two times in five is worth
 * its place.
 */
export const MIN_CHANCE_STRUCTURAL = 0.4;

/** The chance a condition must make the failure to count: MIN_CHANCE, or MIN_CHANCE_STRUCTURAL for one on commands and modules alone. */
export function thresholdOf(keysOrFeatures: readonly (string | Feature)[]): number {
  const words = keysOrFeatures.some((k) => (typeof k === 'string' ? k.startsWith('says:') : k.kind === 'says'));
  return words ? MIN_CHANCE : MIN_CHANCE_STRUCTURAL;
}
/** Plans that met the failure a condition must have been seen in: one plan's incidentals are no evidence. */
export const MIN_SEEN = 2;
/**
 * Plans that met the failure a weaker condition must have been seen in: one on the plans' words (every plan's title and body
 * have a verb or a noun of the project's, list, export, refund, and two plans share one of them by chance more often than
 * not), and one below even odds (MIN_CHANCE_STRUCTURAL: two of two plans read a module and two others did too).
 */
export const MIN_SEEN_WEAK = 3;
/**
 * The shortest name of a module the failure's own words can name (`datetime`, `mocks`, `boto`): a name of one or two letters
 * (`pq`, `os`, `io`) is met in too many words by chance.
 */
export const NAMED_MODULE_MIN = 3;
/** Plans that did not meet the failure there must be to compare with before any condition is learnt. */
export const MIN_OTHERS = 3;
/** Conditions a piece of knowledge keeps at most: the strongest, covering the plans that met it. */
export const MAX_CONDITIONS = 5;
/**
 * How unlikely it must be that the plans that met the failure have a condition's features by chance (a one-sided Fisher's
 * exact test): two of two plans reading the settings module one in six others reads too is a one-in-ten coincidence, not a
 * cause; two of two and none of six others, one in twenty-eight.
 */
export const MAX_P = 0.05;
/** How much more common among the plans that met the failure than among the others a condition must be: `npm test` in every plan tells nothing. */
export const MIN_LIFT = 2;
/** A condition this sure is kept even where the others already cover the plans that met the failure: two of two, none elsewhere. */
export const STRONG_CHANCE = 0.65;
/** How much surer a pair must be than one of its features alone to be kept instead of it. */
const PAIR_MARGIN = 0.15;
/** Features tried in pairs: the most common among the plans that met it. */
const PAIR_CANDIDATES = 12;

export interface Learned {
  conditions: Condition[];
  /** The plans that met the failure and meet none of the conditions: the evidence says nothing of why they met it. */
  uncovered: number;
}

/** How many of the plans that did not meet a failure have some features: what a condition is weighed against. */
export interface OthersCount {
  /** The plans compared with. */
  readonly among: number;
  /** Those of them with every one of these features. */
  with(keys: readonly string[]): number;
}

/** The others as a list of feature sets, counted by going through them: for a few plans. */
export function countIn(sets: readonly ReadonlySet<string>[]): OthersCount {
  return { among: sets.length, with: (keys) => sets.filter((s) => keys.every((k) => s.has(k))).length };
}

/**
 * What the plans that met a failure (`met`) had in common that the others (`others`) had not:
 * single features and pairs of them, each kept when it was seen in at least MIN_SEEN plans
 * that met it, is MIN_LIFT times as common among them and makes the failure likely enough
 * (thresholdOf); the strongest first, each kept when it covers plans the ones before it did
 * not, or, a command or a module, is sure on its own (STRONG_CHANCE), at most MAX_CONDITIONS.
 * Deterministic: the same profiles give the same conditions.
 */
export function learnConditions(met: readonly PlanProfile[], others: readonly PlanProfile[]): Learned {
  return learnFrom(met.map(profileFeatures), countIn(others.map(profileFeatures)));
}

/** The last part of an imported module as a word: `github.com/golang/mock/gomock` → `gomock`, `tally/core/dates` → `date`. */
function moduleWord(module: string): string {
  return stem(
    (
      module
        .split(/[/.:\\]+/)
        .filter((p) => p !== '')
        .at(-1) ?? ''
    ).toLowerCase(),
  );
}

/**
 * The words a failure's signatures say, its masks (`<name>`, `<n>`) left out: what a module a plan imports may be named by.
 */
export function namedWords(signatures: readonly string[]): Set<string> {
  return new Set(words(signatures.join('\n').replace(/<[a-z]+>/g, ' ')));
}

/**
 * Whether `key` is a module the failure names itself (`imports:datetime` for "can't compare offset-naive and offset-aware
 * datetimes", `imports:internal/testutil/mocks` for "undefined: mocks.<name>"): the error corroborates what one plan shows.
 */
export function namedByFailure(key: string, named: ReadonlySet<string>): boolean {
  if (!key.startsWith('imports:')) return false;
  const word = moduleWord(key.slice('imports:'.length));
  return word.length >= NAMED_MODULE_MIN && named.has(word);
}

/**
 * learnConditions on feature sets, the others counted as the caller can (an index over a large store). `named`: the words of
 * the failure's signatures (namedWords). A module they name is a condition on one plan that met the failure, where any other
 * feature needs MIN_SEEN: a careful reader takes a plan reading the dates module for one that may meet "offset-naive
 * datetimes" before a second plan shows it, and a module no other plan read is no coincidence the error would repeat. It
 * must still make the failure as likely as not (no other plan without the failure imports it) to count.
 */
export function learnFrom(pos: readonly ReadonlySet<string>[], others: OthersCount, named: ReadonlySet<string> = new Set()): Learned {
  // Without plans that did not meet it there is nothing to tell the ones that did apart from: any word they share would pass.
  if (others.among < MIN_OTHERS) return { conditions: [], uncovered: pos.length };
  const support = new Map<string, number>();
  for (const p of pos) for (const f of p) support.set(f, (support.get(f) ?? 0) + 1);
  const l: Learning = { pos, others, named, support };
  const common = [...support].filter(([f, n]) => n >= Math.min(MIN_SEEN, pos.length) || namedByFailure(f, named)).map(([f]) => f);
  const candidates: Candidate[] = [];
  for (const keys of [...common.map((f) => [f]), ...pairsOf(l, common)]) {
    const c = candidateOf(l, keys);
    if (c) candidates.push(c);
  }
  const ranked = strongestFirst(withoutWeakPairs(candidates));
  const { chosen, covered } = chooseConditions(pos, ranked);
  return {
    conditions: chosen.map(({ c }) => ({ features: c.keys.map(featureOf), seen: c.seen, of: pos.length, others: c.others, among: others.among })),
    uncovered: pos.length - covered.size,
  };
}

/** One learning: the plans that met the failure (their features), the others as counted, the failure's words, and how many of the plans have each feature. */
interface Learning {
  pos: readonly ReadonlySet<string>[];
  others: OthersCount;
  named: ReadonlySet<string>;
  support: Map<string, number>;
}

/** Features that may be a condition, as counted. */
interface Candidate {
  keys: string[];
  seen: number;
  others: number;
  chance: number;
}

/** These features as a condition, when they pass every test of learnFrom's comment. */
function candidateOf(l: Learning, keys: string[]): Candidate | undefined {
  const { pos, others, named } = l;
  const seen = pos.filter((s) => keys.every((k) => s.has(k))).length;
  const corroborated = keys.length === 1 && namedByFailure(keys[0]!, named);
  if (seen < (keys.some((k) => k.startsWith('says:')) ? MIN_SEEN_WEAK : corroborated ? 1 : MIN_SEEN)) return undefined;
  const o = others.with(keys);
  const chance = seen / (seen + o + 1);
  // Below even odds (a module two of two plans read, and two others too) only on three plans or more: on two, others sharing a
  // module the project's plans often read is as likely a coincidence as not.
  if (chance < MIN_CHANCE && seen < MIN_SEEN_WEAK) return undefined;
  // And it must tell them apart: at least MIN_LIFT times as common among the plans that met the failure as among the others.
  const lift = others.among === 0 || o === 0 ? Infinity : seen / pos.length / (o / others.among);
  if (chance < thresholdOf(keys) || lift < MIN_LIFT) return undefined;
  // And not by chance: on few plans, a module most of them read is in every one that met the failure as often as not. A module
  // the error names is not met by chance.
  if (!corroborated && hypergeometricTail(seen, pos.length, seen + o, pos.length + others.among) > MAX_P) return undefined;
  return { keys, seen, others: o, chance };
}

/**
 * The pairs to try. Among so many words, two plans share some incidental one by chance, and a command or a module with it looks sure on
 * a few plans. A word joins a pair only when most of the plans that met the failure say it; two words never pair.
 */
function pairsOf(l: Learning, common: readonly string[]): string[][] {
  const { pos, others, support } = l;
  const usual = Math.max(MIN_SEEN, Math.ceil((2 * pos.length) / 3));
  // And each half must point at the failure on its own (MIN_LIFT): two features most plans have (a config package every plan
  // reads, a word every plan says) miss all of a few others together by chance, and would pass for a sharp rule.
  const liftAlone = (f: string) => {
    const o = others.with([f]);
    return o === 0 ? Infinity : support.get(f)! / pos.length / (o / others.among);
  };
  const pairable = common.filter((f) => (!f.startsWith('says:') || support.get(f)! >= usual) && liftAlone(f) >= MIN_LIFT);
  const top = [...pairable].sort((a, b) => support.get(b)! - support.get(a)! || (a < b ? -1 : 1)).slice(0, PAIR_CANDIDATES);
  const pairs: string[][] = [];
  for (let i = 0; i < top.length; i++)
    for (let j = i + 1; j < top.length; j++) if (!(top[i]!.startsWith('says:') && top[j]!.startsWith('says:'))) pairs.push([top[i]!, top[j]!].sort());
  return pairs;
}

/** A pair whose one feature alone makes the failure nearly as likely says little more than that feature: the simpler rule reaches the plans the pair's incidental half would miss. */
function withoutWeakPairs(candidates: readonly Candidate[]): Candidate[] {
  const alone = new Map(candidates.filter((c) => c.keys.length === 1).map((c) => [c.keys[0]!, c.chance]));
  return candidates.filter((c) => c.keys.length === 1 || !c.keys.some((k) => (alone.get(k) ?? -1) >= c.chance - PAIR_MARGIN));
}

/**
 * Strongest first: surest (to a tenth), then seen in more plans, then fewer features, then what a plan shows most reliably (the
 * commands its checks run and the modules it uses, before the words it happens to be written in), then by name.
 */
function strongestFirst(candidates: Candidate[]): Candidate[] {
  const rank = (keys: readonly string[]) => Math.max(...keys.map((k) => (k.startsWith('runs:') ? 0 : k.startsWith('imports:') ? 1 : 2)));
  // Chances within a tenth are alike on so few plans: there, the one seen in more plans goes first.
  const band = (chance: number) => Math.floor(chance * 10 + 1e-9);
  return candidates.sort(
    (a, b) =>
      band(b.chance) - band(a.chance) ||
      b.seen - a.seen ||
      b.chance - a.chance ||
      a.keys.length - b.keys.length ||
      rank(a.keys) - rank(b.keys) ||
      (a.keys.join() < b.keys.join() ? -1 : 1),
  );
}

/**
 * First the conditions that cover plans that met the failure the ones before them did not (single features before pairs: a
 * pair fits the plans seen more closely, and a later plan shows the one feature more often than the two); then, while there is room, a
 * command or a module sure on its own (STRONG_CHANCE) that covers another set of them: a later plan may show the cause in
 * any of these ways. A redundant pair or word would be chance's pick, and a feature met by the very plans another is (a
 * module and the packages it imports) says nothing new. A pair whose one feature is already kept alone adds nothing.
 * The chosen in the candidates' order, and the plans (by index) they cover.
 */
function chooseConditions(
  pos: readonly ReadonlySet<string>[],
  candidates: readonly Candidate[],
): { chosen: { c: Candidate; mine: number[] }[]; covered: Set<number> } {
  const chosen: { c: Candidate; mine: number[] }[] = [];
  const covered = new Set<number>();
  const mineOf = (c: Candidate) => pos.map((p, i) => (c.keys.every((k) => p.has(k)) ? i : -1)).filter((i) => i >= 0);
  const redundantPair = (c: Candidate) => c.keys.length > 1 && chosen.some((k) => k.c.keys.length === 1 && c.keys.includes(k.c.keys[0]!));
  // The simplest rule first: single features, then a pair only for plans no single feature covers.
  for (const c of [...candidates.filter((k) => k.keys.length === 1), ...candidates.filter((k) => k.keys.length > 1)]) {
    if (chosen.length >= MAX_CONDITIONS) break;
    const mine = mineOf(c);
    if (redundantPair(c) || !mine.some((i) => !covered.has(i))) continue;
    chosen.push({ c, mine });
    for (const i of mine) covered.add(i);
  }
  for (const c of candidates) {
    if (chosen.length >= MAX_CONDITIONS) break;
    if (c.chance < STRONG_CHANCE || c.keys.length > 1 || c.keys[0]!.startsWith('says:') || chosen.some((k) => k.c === c)) continue;
    const mine = mineOf(c);
    if (chosen.some((k) => k.mine.length === mine.length && k.mine.every((i, n) => mine[n] === i))) continue;
    chosen.push({ c, mine });
  }
  chosen.sort((a, b) => candidates.indexOf(a.c) - candidates.indexOf(b.c));
  return { chosen, covered };
}

/** The condition of `conditions` a plan meets that makes the failure likeliest, if any is likely enough (thresholdOf). */
export function bestMet(conditions: readonly Condition[], features: ReadonlySet<string>): { condition: Condition; chance: number } | undefined {
  let best: { condition: Condition; chance: number } | undefined;
  for (const c of conditions) {
    if (!meets(c, features)) continue;
    const chance = chanceOf(c);
    if (chance >= thresholdOf(c.features) && (!best || chance > best.chance)) best = { condition: c, chance };
  }
  return best;
}

/** A condition as a person reads it: "whose checks run `go test -race` (3 of the 3 plans that met it; 0 of the 21 others)". */
export function describeCondition(c: Condition): string {
  const parts = c.features.map((f) =>
    f.kind === 'runs' ? `whose checks run \`${f.value}\`` : f.kind === 'imports' ? `whose files import \`${f.value}\`` : `that says "${f.value}"`,
  );
  const counted = c.seen !== undefined ? ` (${c.seen} of the ${c.of} plans that met it; ${c.others} of the ${c.among} others)` : ' (as a person wrote it)';
  return `${parts.join(' and ')}${counted}`;
}
