/**
 * GSD's `depends_on`, in the forms real plans write it, read as harness plan ids:
 * `["01-02"]`, `[01]` (a YAML number: plan 01 of the same phase), `["02A"]`, `"03-01"` (a
 * plain string), `"01-02, 01-03"`, `["01-setup-02"]` (the phase's slug in the middle),
 * `["02.1-01"]` (an inserted phase), `["02-01-PLAN.md"]`, and whole phases: `["Phase 2"]`,
 * `["02-invoices-api"]`.
 */

export interface DependencyLookup {
  /** The harness id of a GSD plan: phase "2.1" (numbers as written, no padding) and key "02A". */
  plan(phase: string, key: string): string | undefined;
  /** Every harness plan id of a GSD phase. */
  phase(phase: string): readonly string[] | undefined;
}

export interface ReadDependencies {
  ids: string[];
  /** What could not be read or names no plan in the tree, as written. */
  unresolved: string[];
}

const FULL = /^(\d{1,3}(?:\.\d+)?)-(?:[A-Za-z][A-Za-z0-9_-]*?-)?(\d{1,3})([A-Za-z]?)$/;
const BARE = /^(\d{1,3})([A-Za-z]?)$/;
const PHASE_WORD = /^phase[\s_-]*(\d{1,3}(?:\.\d+)?)$/i;
const PHASE_DIR = /^(\d{1,3}(?:\.\d+)?)-[A-Za-z][A-Za-z0-9_-]*$/;
const DECIMAL_PHASE = /^(\d{1,3}\.\d+)$/;

/** "02" → "2", "02.1" → "2.1": one spelling for lookups. */
export function phaseKey(id: string): string {
  return id
    .split('.')
    .map((p) => String(Number(p)))
    .join('.');
}

export function planKeyText(number: string, letter: string): string {
  return `${String(Number(number)).padStart(2, '0')}${letter.toUpperCase()}`;
}

export function readDependencies(raw: unknown, ownPhase: string, lookup: DependencyLookup): ReadDependencies {
  const ids: string[] = [];
  const unresolved: string[] = [];
  for (const item of items(raw)) {
    const found = resolve(item, ownPhase, lookup);
    if (found === undefined || found.length === 0) unresolved.push(item);
    else for (const id of found) if (!ids.includes(id)) ids.push(id);
  }
  return { ids, unresolved };
}

function items(raw: unknown): string[] {
  if (raw === undefined || raw === null || raw === '') return [];
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' && !PHASE_WORD.test(raw.trim()) ? raw.split(/[,;\s]+/) : [raw];
  return list.map((d) => (typeof d === 'number' ? String(d).padStart(2, '0') : String(d ?? '').trim())).filter((d) => d !== '');
}

function resolve(item: string, ownPhase: string, lookup: DependencyLookup): readonly string[] | undefined {
  const s = item
    .replace(/^.*\//, '')
    .replace(/-(?:PLAN|SUMMARY)\.md$/i, '')
    .replace(/\.md$/i, '')
    .trim();
  const full = FULL.exec(s);
  if (full) {
    const id = lookup.plan(phaseKey(full[1]!), planKeyText(full[2]!, full[3]!));
    if (id) return [id];
  }
  const bare = BARE.exec(s);
  if (bare) {
    const id = lookup.plan(phaseKey(ownPhase), planKeyText(bare[1]!, bare[2]!));
    if (id) return [id];
  }
  const phase = PHASE_WORD.exec(s) ?? PHASE_DIR.exec(s) ?? DECIMAL_PHASE.exec(s);
  if (phase) return lookup.phase(phaseKey(phase[1]!));
  return undefined;
}
