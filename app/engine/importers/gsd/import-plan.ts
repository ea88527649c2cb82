import { parseFrontmatter } from '../../core/spec/frontmatter.js';
import { frontmatterText } from './frontmatter-text.js';
import { fromGsdPlan } from './plan.js';

/** GSD keys `fromGsdPlan` maps onto harness's own; the rest are kept under `metadata.gsd`. */
const MAPPED = new Set([
  'phase',
  'plan',
  'title',
  'depends_on',
  'files_modified',
  'files_read',
  'autonomous',
  'requirements',
  'agent',
  'timeout_minutes',
  'checkpoints',
  'serve',
  'metadata',
  'must_pass',
  'must_haves',
]);
const MUST_HAVES_MAPPED = new Set(['truths', 'artifacts', 'key_links']);

/** harness's PLAN.md keys, in the order docs/design.md writes them. */
const ORDER = [
  'plan_id',
  'title',
  'depends_on',
  'files_modified',
  'files_read',
  'autonomous',
  'checkpoints',
  'agent',
  'timeout_minutes',
  'requirements',
  'truths',
  'must_pass',
  'serve',
  'metadata',
];

/** GSD's checkpoint task types, by the harness checkpoint each one is. */
const CHECKPOINTS: [RegExp, string][] = [
  [/type\s*=\s*["']checkpoint:decision["']/, 'decision'],
  [/type\s*=\s*["']checkpoint:human-verify["']/, 'verification'],
  [/type\s*=\s*["']checkpoint:human-action["']/, 'action'],
];

export interface PlanLocation {
  /** The phase id from the directory, "02". */
  phase: string;
  /** The GSD directory name, "02-invoices-api". */
  dir: string;
  /** The plan number from the file name, "03". */
  plan: string;
}

/**
 * Rewrite one GSD PLAN.md in harness's own frontmatter, body unchanged. A plan already in
 * harness's form, or one whose frontmatter does not parse, is returned as it is: validating
 * the written spec then reports what is wrong, at the right line.
 */
export function importPlan(file: string, text: string, at: PlanLocation): string {
  const fm = parseFrontmatter(file, text, false);
  if (!fm.ok) return text;
  const { data, lines, body } = fm.frontmatter;
  if ('plan_id' in data) return text;

  // Plans from before GSD wrote frontmatter say where they are only through their path.
  const gsd: Record<string, unknown> = { ...data, phase: data.phase ?? at.dir, plan: data.plan ?? at.plan };
  const { data: mapped } = fromGsdPlan(gsd, lines, body);

  if (mapped.autonomous === undefined) mapped.autonomous = true;
  if (mapped.depends_on === undefined) mapped.depends_on = [];
  if (mapped.files_modified === undefined) mapped.files_modified = [];
  if (mapped.checkpoints === undefined) {
    const found = CHECKPOINTS.filter(([pattern]) => pattern.test(body)).map(([, kind]) => kind);
    if (found.length > 0) mapped.checkpoints = found;
  }

  const kept = leftovers(data);
  if (Object.keys(kept).length > 0) {
    const metadata = isRecord(mapped.metadata) ? mapped.metadata : {};
    mapped.metadata = { ...metadata, gsd: kept };
  }

  const ordered: Record<string, unknown> = {};
  for (const key of ORDER) if (mapped[key] !== undefined) ordered[key] = mapped[key];
  return frontmatterText(ordered) + body;
}

/** GSD keys harness does not read (wave, type, user_setup, …), kept so nothing is lost. */
function leftovers(data: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) if (!MAPPED.has(key)) kept[key] = value;
  if (isRecord(data.must_haves)) {
    const rest = Object.fromEntries(Object.entries(data.must_haves).filter(([key]) => !MUST_HAVES_MAPPED.has(key)));
    if (Object.keys(rest).length > 0) kept.must_haves = rest;
  }
  return kept;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
