import { LineMap } from '../../core/spec/frontmatter.js';
import type { PlanDialect } from '../../core/spec/plan.js';

/**
 * GSD writes plans as `phase: 01-foundation`, `plan: 02` with goal-backward `must_haves`.
 * harness reads them as they are: this maps a GSD frontmatter onto harness's own form,
 * keeping every key's line so that problems still point into the GSD file.
 */

export interface GsdArtifact {
  path?: unknown;
  provides?: unknown;
  min_lines?: unknown;
  exports?: unknown;
  contains?: unknown;
}

export interface GsdKeyLink {
  from?: unknown;
  to?: unknown;
  via?: unknown;
  pattern?: unknown;
}

export function isGsdPlan(data: Record<string, unknown>): boolean {
  return !('plan_id' in data) && 'phase' in data && 'plan' in data;
}

/** "01-foundation" → "01", 3 → "03". */
export function gsdPhaseId(phase: unknown): string | undefined {
  const m = /^(\d{1,3})(?:[-_\s].*)?$/.exec(String(phase ?? '').trim());
  return m ? m[1]!.padStart(2, '0') : undefined;
}

function two(n: unknown): string | undefined {
  const m = /^(\d{1,3})$/.exec(String(n ?? '').trim());
  return m ? m[1]!.padStart(2, '0') : undefined;
}

/** GSD ids may be "01-02", "1-2", or a bare "02" meaning plan 02 of the same phase. */
export function gsdDependency(dep: unknown, phase: string | undefined): string {
  const s = String(dep).trim();
  const full = /^(\d{1,3})-(\d{1,3})$/.exec(s);
  if (full) return `${full[1]!.padStart(2, '0')}-${full[2]!.padStart(2, '0')}`;
  const bare = two(s);
  if (bare && phase) return `${phase}-${bare}`;
  return s;
}

const MAX_TITLE = 200;

/**
 * Title from the body: GSD's `<objective>` first line, else the first heading without the
 * id GSD repeats in it (`# Plan 02-01: Invoices API` is "Invoices API"), made short
 * (shortTitle): the title names the plan's issue, and the objective stays whole in the body.
 */
export function gsdTitle(body: string, id?: string): string | undefined {
  const objective = /<objective>\s*\n?\s*([^\n<]+)/.exec(body);
  if (objective) return shortTitle(objective[1]!);
  const heading = /^#{1,3}\s+(.+)$/m.exec(body);
  if (!heading) return undefined;
  const text = heading[1]!
    .trim()
    .replace(/^(?:phase\s+[\d.]+\s*[,:-]?\s*)?plan\s+[\w.-]+\s*[:.\u2013\u2014-]\s*/i, '')
    .replace(id ? new RegExp(`^${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*[:.\u2013\u2014-]\\s*`) : /$^/, '')
    .trim();
  return text ? shortTitle(text) : undefined;
}

/** A title an issue list shows whole: GitHub's own lists cut a title at about this many characters. */
export const SHORT_TITLE = 72;

/** Where a clause ends and the detail that follows it begins. */
const CLAUSE = /, | and | with | so that | using | via | including | without | then /g;
/** Words a cut title must not end on: "…published CSV of" reads as cut mid-thought. */
const DANGLING = /\s+(?:a|an|the|of|to|for|from|with|and|or|in|on|at|by|into|that|its|their)$/i;

/**
 * A plan's title from GSD's objective, which is a sentence of 100 to 300 characters ("Create the
 * persistence data layer: a serialization DTO that maps …"). The first sentence; then, when
 * that is longer than SHORT_TITLE, the words before its colon or dash (what the detail after
 * them explains), without parentheses, cut at the last clause that fits, or at the last word
 * that fits with an ellipsis. Never inside a word.
 */
export function shortTitle(text: string): string {
  let t = firstSentence(text.replace(/\s+/g, ' ').trim()).replace(/[.;:,]+$/, '');
  if (t.length <= SHORT_TITLE) return t;
  const lead = /^(.{12,}?)(?::\s| [\u2014\u2013-]{1,2} |; )/.exec(t);
  if (lead) t = lead[1]!.trim();
  if (t.length > SHORT_TITLE) t = t.replace(/\s*\([^()]*\)/g, '');
  if (t.length <= SHORT_TITLE) return t;
  const clauses = [...t.matchAll(CLAUSE)].map((m) => m.index).filter((at) => at >= SHORT_TITLE / 2 && at <= SHORT_TITLE);
  if (clauses.length > 0) return t.slice(0, clauses.at(-1)).replace(/[\s,;:-]+$/, '');
  let cut = t.slice(0, SHORT_TITLE);
  const space = cut.lastIndexOf(' ');
  if (space > SHORT_TITLE / 2) cut = cut.slice(0, space);
  for (let before = ''; before !== cut;) {
    before = cut;
    cut = cut.replace(/[\s,;:.-]+$/, '').replace(DANGLING, '');
  }
  return `${cut}\u2026`;
}

/** The text up to its first full stop that ends a sentence ("e.g." and "v1.2" do not). */
function firstSentence(text: string): string {
  const end = /(?<!\b(?:e\.g|i\.e|etc|vs|cf|approx))[.!?](?=\s+["'(`]?[A-Z0-9])/.exec(text);
  return end ? text.slice(0, end.index + 1) : text;
}

/** At most 200 characters, cut at a word with an ellipsis. */
export function fitTitle(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= MAX_TITLE) return t;
  const cut = t.slice(0, MAX_TITLE - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX_TITLE / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}\u2026`;
}

function slug(value: string): string {
  return value
    .toLowerCase()
    .replace(/\.[a-z0-9]+$/, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
}

export interface GsdConversion {
  data: Record<string, unknown>;
  lines: LineMap;
}

/** Map GSD frontmatter to harness's form; what cannot be mapped is left for the schema to report. */
export function fromGsdPlan(data: Record<string, unknown>, lines: LineMap, body: string): GsdConversion {
  const c: Conversion = { data, lines, out: {}, map: new LineMap(lines.firstLine) };
  const phase = gsdPhaseId(data.phase);
  mapIdAndTitle(c, phase, body);

  if (Array.isArray(data.depends_on)) c.out.depends_on = data.depends_on.map((d) => gsdDependency(d, phase));
  else if (data.depends_on !== undefined) c.out.depends_on = data.depends_on;
  c.map.copy(lines, ['depends_on'], ['depends_on']);

  for (const key of ['files_modified', 'files_read', 'autonomous', 'requirements', 'agent', 'timeout_minutes', 'checkpoints', 'serve', 'metadata']) {
    if (data[key] !== undefined) {
      c.out[key] = data[key];
      c.map.copy(lines, [key], [key]);
    }
  }

  mapMustHaves(c);
  return { data: c.out, lines: c.map };
}

/** A conversion under way: GSD's frontmatter and its lines in, harness's frontmatter and its lines out. */
interface Conversion {
  data: Record<string, unknown>;
  lines: LineMap;
  out: Record<string, unknown>;
  map: LineMap;
}

/** plan_id from GSD's phase and plan (as written when they are not numbers), the title given or found in the body. */
function mapIdAndTitle({ data, lines, out, map }: Conversion, phase: string | undefined, body: string): void {
  const plan = two(data.plan);
  out.plan_id = phase && plan ? `${phase}-${plan}` : `${String(data.phase)}-${String(data.plan)}`;
  map.copy(lines, ['plan'], ['plan_id']);
  out.title = typeof data.title === 'string' ? fitTitle(data.title) : (gsdTitle(body, String(out.plan_id)) ?? `Plan ${String(out.plan_id)}`);
  map.copy(lines, ['title'], ['title']);
}

/** must_pass as given, then `must_haves`: its truths as truths, its artifacts and key links as checks of those types. */
function mapMustHaves(c: Conversion): void {
  const { data, lines, out, map } = c;
  const mustPass: unknown[] = Array.isArray(data.must_pass) ? [...data.must_pass] : [];
  if (Array.isArray(data.must_pass)) map.copy(lines, ['must_pass'], ['must_pass']);
  const mustHaves = (data.must_haves ?? {}) as Record<string, unknown>;
  const used = new Set<string>(mustPass.map((check) => String((check as { id?: unknown })?.id)));
  if (Array.isArray(mustHaves.truths)) {
    out.truths = mustHaves.truths.map(String);
    map.copy(lines, ['must_haves', 'truths'], ['truths']);
  }
  if (Array.isArray(mustHaves.artifacts)) {
    mustHaves.artifacts.forEach((a: GsdArtifact, j) => {
      const index = mustPass.length;
      mustPass.push(artifactCheck(a, uniqueCheckId(used, `artifact-${slug(String(a?.path ?? j + 1))}`)));
      map.copy(lines, ['must_haves', 'artifacts', j], ['must_pass', index]);
    });
  }
  if (Array.isArray(mustHaves.key_links)) {
    mustHaves.key_links.forEach((k: GsdKeyLink, j) => {
      const index = mustPass.length;
      mustPass.push(keyLinkCheck(k, uniqueCheckId(used, `link-${slug(String(k?.from ?? j + 1))}`)));
      map.copy(lines, ['must_haves', 'key_links', j], ['must_pass', index]);
    });
  }
  out.must_pass = mustPass;
  if (!map.has(['must_pass'])) map.copy(lines, ['must_haves'], ['must_pass']);
}

/** `wanted` (or "check"), numbered when it is taken; taken from then on. */
function uniqueCheckId(used: Set<string>, wanted: string): string {
  let id = wanted || 'check';
  for (let n = 2; used.has(id); n++) id = `${wanted}-${n}`;
  used.add(id);
  return id;
}

/** A GSD artifact as an `artifact` check. */
function artifactCheck(a: GsdArtifact, id: string): Record<string, unknown> {
  const check: Record<string, unknown> = { id, type: 'artifact', path: a?.path };
  if (a?.provides !== undefined) check.provides = a.provides;
  if (a?.min_lines !== undefined) check.min_lines = a.min_lines;
  if (a?.exports !== undefined) check.exports = Array.isArray(a.exports) ? a.exports : [a.exports];
  if (a?.contains !== undefined) check.contains = a.contains;
  return check;
}

/** A GSD key link as a `key_link` check. */
function keyLinkCheck(k: GsdKeyLink, id: string): Record<string, unknown> {
  const check: Record<string, unknown> = { id, type: 'key_link', from: k?.from, to: k?.to };
  if (k?.via !== undefined) check.via = k.via;
  if (k?.pattern !== undefined) check.pattern = k.pattern;
  return check;
}

/** GSD's plan form, read wherever harness reads plans (engine/importers/dialects.ts). */
export const GSD_PLAN_DIALECT: PlanDialect = { name: 'gsd', matches: isGsdPlan, toHarness: fromGsdPlan };
