import { buildGraph, findCycles } from '../graph/graph.js';
import { parseFrontmatter, type LineMap } from './frontmatter.js';
import { issuesToProblems } from './issues.js';
import { MAX_DOCUMENT_BYTES, MAX_PLAN_BYTES, MAX_PLANS_PER_SPEC } from './limits.js';
import { phaseNumber, planPhase, type Phase, type Plan, type Spec } from './model.js';
import { parsePlan, type PlanClaim, type PlanReading } from './plan.js';
import { countErrors, problem, sortProblems, type Problem } from './problem.js';
import { parseRoadmap, type ParsedRoadmap } from './roadmap.js';
import { SpecFrontmatterSchema } from './schema.js';
import { didYouMean } from './suggest.js';
import { decodeText, type SpecFile } from './text.js';

export interface LoadedSpec {
  /** Present when SPEC.md could be read; holds every plan that parsed. */
  spec?: Spec;
  /** Every problem, sorted by file and line. */
  problems: Problem[];
  /** No errors (warnings allowed). */
  valid: boolean;
}

export const PLANS_DIR = 'planning/plans/';

/**
 * What /^planning\/plans\/([^/]+)\/([^/]+)$/ matches of a plan's path (the whole, the phase
 * directory, the file name), without a regex match per plan.
 */
export function planLocation(path: string): [string, string, string] | undefined {
  if (!path.startsWith(PLANS_DIR)) return undefined;
  const slash = path.indexOf('/', PLANS_DIR.length);
  // Two names, neither empty, and no third.
  if (slash <= PLANS_DIR.length || slash === path.length - 1 || path.indexOf('/', slash + 1) !== -1) return undefined;
  return [path, path.slice(PLANS_DIR.length, slash), path.slice(slash + 1)];
}

const PHASE_DIR = /^(\d{1,3})(?:[-_][A-Za-z0-9._-]*)?$/;

/** Is this spec-relative path one the loader reads? Adapters use it to read only what matters. */
export function isSpecInput(path: string): boolean {
  return path === 'SPEC.md' || path === 'ROADMAP.md' || (path.startsWith(PLANS_DIR) && path.endsWith('PLAN.md'));
}

/**
 * Read a spec from its files: parse every document, check each, then check them together.
 * Plans in another tool's form are read through `reading.dialects` (importers/dialects.ts).
 */
export function loadSpec(given: readonly SpecFile[], reading: PlanReading = {}): LoadedSpec {
  const problems: Problem[] = [];
  const files = given.filter((f) => f.link === undefined);
  for (const f of given) if (f.link !== undefined) problems.push(linkProblem(f.path, f.link));
  const linked = new Set(given.filter((f) => f.link !== undefined).map((f) => f.path));
  const byPath = new Map(files.map((f) => [f.path, f]));

  const specFile = byPath.get('SPEC.md');
  const { id, title } = readSpecMd(specFile, linked, problems);
  const roadmap = readRoadmap(byPath.get('ROADMAP.md'), problems);

  // Plans, by phase directory.
  const plans: Plan[] = [];
  const dirsByPhase = new Map<string, string>();
  // Ids of every plan file, parsed or not: a broken plan is reported once, in its own file,
  // not again as an unknown dependency of each plan that needs it.
  const claimed = new Set<string>();
  const broken: PlanClaim[] = [];
  const planFiles = files.filter((f) => f.path.startsWith(PLANS_DIR) && f.path.endsWith('PLAN.md')).sort((a, b) => byLocale(a.path, b.path));
  if (planFiles.length > MAX_PLANS_PER_SPEC) {
    problems.push(
      problem(
        PLANS_DIR,
        1,
        'too-many-plans',
        `${planFiles.length} plans is over the limit of ${MAX_PLANS_PER_SPEC.toLocaleString('en-US')} per spec; split the spec`,
      ),
    );
    return finish(undefined, problems);
  }
  // Each file is read by a function of its own, called once a plan: the engine optimises it
  // as any function called often, and keeps it from one load to the next.
  const reader: PlanFileReader = { reading, problems, plans, dirsByPhase, claimed, broken, phaseOfDir: new Map() };
  for (let k = 0; k < planFiles.length; k++) readPlanFile(reader, planFiles[k]!);

  const { unique, planById } = firstOfEachId(plans, problems);
  const phases = resolvePhases(roadmap, dirsByPhase, unique, problems);
  if (planFiles.length === 0 && specFile && linked.size === 0) {
    problems.push(
      problem(PLANS_DIR, 1, 'phase-empty', 'the spec has no plans yet: add planning/plans/01-<name>/01-01-PLAN.md (see templates/PLAN.md)', 'warning'),
    );
  }
  checkDependencies(unique, broken, planById, claimed, problems);

  if (!id) return finish(undefined, problems);
  return finish({ id, title, phases, plans: unique, planById }, problems);
}

/** SPEC.md's id and title (empty when it cannot be read); what is wrong with it goes to `problems`, its absence only when it is not a link. */
function readSpecMd(specFile: SpecFile | undefined, linked: ReadonlySet<string>, problems: Problem[]): { id: string; title: string } {
  const none = { id: '', title: '' };
  if (!specFile) {
    if (!linked.has('SPEC.md'))
      problems.push(
        problem('SPEC.md', 1, 'spec-missing', 'SPEC.md is missing: create it with frontmatter "id: SPC-001" and "title: ..." (see templates/SPEC.md)'),
      );
    return none;
  }
  const text = decodeText(specFile, MAX_DOCUMENT_BYTES);
  if (!text.ok) {
    problems.push(text.problem);
    return none;
  }
  const fm = parseFrontmatter('SPEC.md', text.text);
  if (!fm.ok) {
    problems.push(...fm.problems);
    return none;
  }
  const parsed = SpecFrontmatterSchema.safeParse(fm.frontmatter.data);
  if (!parsed.success) {
    problems.push(...issuesToProblems('SPEC.md', SpecFrontmatterSchema, parsed.error, fm.frontmatter.data, fm.frontmatter.lines).map(specHint));
    return none;
  }
  return { id: parsed.data.id, title: parsed.data.title };
}

/** ROADMAP.md parsed, when there is one and it can be read; its problems go to `problems`. */
function readRoadmap(roadmapFile: SpecFile | undefined, problems: Problem[]): ParsedRoadmap | undefined {
  if (!roadmapFile) return undefined;
  const text = decodeText(roadmapFile, MAX_DOCUMENT_BYTES);
  if (!text.ok) {
    problems.push(text.problem);
    return undefined;
  }
  const roadmap = parseRoadmap('ROADMAP.md', text.text);
  problems.push(...roadmap.problems);
  return roadmap;
}

/** Duplicates: the first file (in path order) keeps the id, each other is a problem; the plans kept, sorted by id. */
function firstOfEachId(plans: readonly Plan[], problems: Problem[]): { unique: Plan[]; planById: Map<string, Plan> } {
  const planById = new Map<string, Plan>();
  const unique: Plan[] = [];
  for (const plan of plans) {
    const first = planById.get(plan.id);
    if (first) {
      problems.push(
        problem(
          plan.file,
          plan.lines.lineOf(['plan_id']),
          'duplicate-plan',
          `plan id "${plan.id}" is already used by ${first.file}:${first.lines.lineOf(['plan_id'])}; give each plan its own id`,
        ),
      );
      continue;
    }
    planById.set(plan.id, plan);
    unique.push(plan);
  }
  sortByPlanId(unique);
  return { unique, planById };
}

interface PlanFileReader {
  reading: PlanReading;
  problems: Problem[];
  plans: Plan[];
  dirsByPhase: Map<string, string>;
  claimed: Set<string>;
  broken: PlanClaim[];
  /** A phase directory's number, or null: read once per directory, not once per plan in it. */
  phaseOfDir: Map<string, string | null>;
}

/** One plan file: where it is, its text, the plan; what is wrong with any of them goes to `problems`. */
function readPlanFile(r: PlanFileReader, file: SpecFile): void {
  const { problems } = r;
  const m = planLocation(file.path);
  let dirPhase = m ? r.phaseOfDir.get(m[1]) : null;
  if (m && dirPhase === undefined) {
    dirPhase = PHASE_DIR.exec(m[1])?.[1] ?? null;
    r.phaseOfDir.set(m[1], dirPhase);
  }
  if (!m || dirPhase === null || dirPhase === undefined) {
    problems.push(
      problem(
        file.path,
        1,
        'plan-location',
        `plans live at planning/plans/<NN-phase>/<NN-MM>-PLAN.md; move this file into a phase directory such as planning/plans/01-foundation/`,
      ),
    );
    return;
  }
  const dir = m[1];
  const phase = dirPhase.padStart(2, '0');
  const other = r.dirsByPhase.get(phase);
  if (other !== undefined && other !== dir) {
    problems.push(problem(file.path, 1, 'duplicate-phase', `phase directories ${other} and ${dir} both claim phase ${phase}; merge or renumber one`));
    return;
  }
  r.dirsByPhase.set(phase, dir);
  const text = decodeText(file, MAX_PLAN_BYTES);
  if (!text.ok) {
    problems.push(text.problem);
    return;
  }
  const parsed = parsePlan(file.path, text.text, phase, r.reading);
  for (const p of parsed.problems) problems.push(p);
  r.claimed.add(parsed.claim?.id ?? m[2].replace(/-PLAN\.md$/, ''));
  if (parsed.claim && !parsed.plan) {
    r.broken.push(parsed.claim);
    // Where the file is and what it is called are wrong or right whatever else is: say so now, not after the rest is fixed.
    if (parsed.claim.id !== undefined) problems.push(...locationProblems(file.path, parsed.claim.id, parsed.claim.lines, phase, dir, m[2]));
  }
  if (!parsed.plan) return;
  const plan = parsed.plan;
  for (const p of locationProblems(file.path, plan.id, plan.lines, phase, dir, m[2])) problems.push(p);
  r.plans.push(plan);
}

/** A link in a spec is reported where it is and never followed: the engine reads no file through one. */
function linkProblem(path: string, target: string): Problem {
  const shown = target.length > 120 ? `${target.slice(0, 117)}...` : target;
  const to = shown ? ` (to ${JSON.stringify(shown)})` : '';
  return problem(
    path,
    1,
    'symlink',
    `is a symbolic link${to}; harness never follows links in a spec, which could point anywhere: put the file or folder itself here`,
  );
}

// localeCompare's own order, from one collator: localeCompare sets one up on every call.
const byLocale = new Intl.Collator().compare;

/** comparePlanIds's order, with each id split once rather than on every comparison. */
function sortByPlanId(plans: Plan[]): void {
  const keys = new Map(plans.map((p) => [p, p.id.split('-').map(Number)] as const));
  plans.sort((a, b) => {
    const [pa, na] = keys.get(a)!;
    const [pb, nb] = keys.get(b)!;
    return pa! - pb! || na! - nb! || byLocale(a.id, b.id);
  });
}

/** A plan id against the phase directory and the file name it is in. */
function locationProblems(file: string, id: string, lines: LineMap, phase: string, dir: string, name: string): Problem[] {
  const out: Problem[] = [];
  // The line is looked up only for a problem: finding it reads the frontmatter again.
  const line = () => lines.lineOf(['plan_id']);
  if (planPhase(id) !== phase) {
    out.push(
      problem(file, line(), 'plan-location', `plan_id "${id}" belongs to phase ${planPhase(id)} but the file is in ${dir}; fix the id or move the file`),
    );
  }
  const expected = `${id}-PLAN.md`;
  if (name !== expected)
    out.push(problem(file, line(), 'plan-location', `plan_id "${id}" does not match the file name ${name}; name the file ${expected} or fix the id`));
  return out;
}

function finish(spec: Spec | undefined, problems: Problem[]): LoadedSpec {
  const sorted = sortProblems(problems);
  const result: LoadedSpec = { problems: sorted, valid: countErrors(sorted) === 0 };
  if (spec) result.spec = spec;
  return result;
}

function specHint(p: Problem): Problem {
  if (p.message.startsWith('id '))
    return { ...p, message: `${p.message.replace(/; it must be.*$/, '')}; it must look like SPC-001 (capital letters, "-", digits)` };
  return p;
}

function resolvePhases(roadmap: ParsedRoadmap | undefined, dirs: Map<string, string>, plans: Plan[], problems: Problem[]): Phase[] {
  const phases = new Map<string, Phase>();
  if (roadmap && roadmap.phases.length > 0) {
    for (const p of roadmap.phases) {
      if (phases.has(p.id)) {
        problems.push(problem('ROADMAP.md', p.line, 'duplicate-phase', `phase ${p.id} is listed twice; give each phase its own id`));
        continue;
      }
      const phase: Phase = { id: p.id, number: phaseNumber(p.id), title: p.title, plans: [], mustPass: p.mustPass };
      if (p.goal !== undefined) phase.goal = p.goal;
      if (p.serve !== undefined) phase.serve = p.serve;
      const dir = dirs.get(p.id);
      if (dir !== undefined) phase.dir = dir;
      phases.set(p.id, phase);
    }
    for (const [id, dir] of dirs) {
      if (!phases.has(id)) {
        problems.push(
          problem(
            'ROADMAP.md',
            roadmap.line,
            'phase-unknown',
            `phase ${id} (planning/plans/${dir}) is not in ROADMAP.md; add { id: "${id}", title: ... } to its phases`,
          ),
        );
      }
    }
  }
  for (const [id, dir] of dirs) {
    if (phases.has(id)) continue;
    phases.set(id, { id, number: phaseNumber(id), title: titleFromDir(dir), dir, plans: [], mustPass: [] });
  }
  for (const plan of plans) phases.get(plan.phase)?.plans.push(plan.id);
  const ordered = [...phases.values()].sort((a, b) => a.number - b.number);
  if (roadmap && roadmap.phases.length > 0) {
    for (const phase of ordered) {
      if (phase.plans.length === 0 && roadmap.phases.some((p) => p.id === phase.id)) {
        const line = roadmap.phases.find((p) => p.id === phase.id)!.line;
        problems.push(
          problem(
            'ROADMAP.md',
            line,
            'phase-empty',
            `phase ${phase.id} has no plans yet; add planning/plans/${phase.id}-<name>/${phase.id}-01-PLAN.md`,
            'warning',
          ),
        );
      }
    }
  }
  return ordered;
}

function titleFromDir(dir: string): string {
  const words = dir
    .replace(/^\d+[-_]?/, '')
    .replace(/[-_]+/g, ' ')
    .trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : `Phase ${dir}`;
}

/** Unknown dependencies reported one by one in a plan; the rest are counted in one problem. */
const MAX_UNKNOWN_REPORTED = 20;
/** How many unknown dependencies in a spec get a "did you mean". */
const MAX_SUGGESTIONS = 200;

interface DependencyCheck {
  byId: Map<string, Plan>;
  claimed: ReadonlySet<string>;
  problems: Problem[];
  /** Every claimed id, listed when a suggestion is first looked for. */
  candidates: string[] | undefined;
  suggestions: number;
}

/** One plan's depends_on: repeated, itself, unknown (with a suggestion, so many times a spec), or of a later phase. */
function checkPlanDependencies(c: DependencyCheck, plan: PlanClaim): void {
  const { problems } = c;
  const seen = new Set<string>();
  let unknown = 0;
  const ownPhase = phaseNumber(plan.phase);
  // The line is looked up only for a problem: most dependencies have none.
  const line = (i: number) => plan.lines.lineOf(['depends_on', i]);
  for (let i = 0; i < plan.dependsOn.length; i++) {
    const dep = plan.dependsOn[i]!;
    if (seen.has(dep)) {
      problems.push(problem(plan.file, line(i), 'field-value', `depends_on lists "${dep}" twice; list it once`, 'warning'));
      continue;
    }
    seen.add(dep);
    if (dep === plan.id) {
      problems.push(problem(plan.file, line(i), 'self-dependency', `plan ${plan.id} depends on itself; remove "${dep}" from depends_on`));
      continue;
    }
    const target = c.byId.get(dep);
    if (!target && c.claimed.has(dep)) continue;
    if (!target) {
      // Each is reported up to a point, and a suggestion is looked for only so many times
      // a spec: thousands of unknown ids in hundreds of plans made this quadratic.
      unknown++;
      if (unknown > MAX_UNKNOWN_REPORTED) continue;
      const near =
        c.suggestions++ < MAX_SUGGESTIONS
          ? didYouMean(
              dep,
              (c.candidates ??= [...c.claimed]).filter((id) => id !== plan.id),
            )
          : '';
      problems.push(problem(plan.file, line(i), 'unknown-dependency', `depends_on "${dep}" is not a plan in this spec${near}`));
      continue;
    }
    const depPhase = target.phase;
    if (phaseNumber(depPhase) > ownPhase) {
      problems.push(
        problem(
          plan.file,
          line(i),
          'later-phase-dependency',
          `plan ${plan.id ?? plan.file} (phase ${plan.phase}) depends on ${dep} from the later phase ${depPhase}; a plan may depend only on plans of its own or an earlier phase (a plan starts once its dependencies are verified, but phases are verified in order), so move one of the plans or drop the dependency`,
        ),
      );
    }
  }
  if (unknown > MAX_UNKNOWN_REPORTED) {
    problems.push(
      problem(
        plan.file,
        plan.lines.lineOf(['depends_on']),
        'unknown-dependency',
        `depends_on lists ${unknown - MAX_UNKNOWN_REPORTED} more plans that are not in this spec (${unknown} in all; the first ${MAX_UNKNOWN_REPORTED} are reported above); depend only on plans of this spec`,
      ),
    );
  }
}

function checkDependencies(plans: Plan[], broken: PlanClaim[], byId: Map<string, Plan>, claimed: ReadonlySet<string>, problems: Problem[]): void {
  // Plans that did not parse are still checked for what they say they depend on.
  const deps: DependencyCheck = { byId, claimed, problems, candidates: undefined, suggestions: 0 };
  for (let k = 0; k < plans.length; k++) checkPlanDependencies(deps, plans[k]!);
  for (let k = 0; k < broken.length; k++) checkPlanDependencies(deps, broken[k]!);
  const graph = buildGraph(plans);
  for (const cycle of findCycles(graph)) {
    if (cycle.length === 1) continue; // reported as self-dependency
    const first = plans[cycle[0]!]!;
    const next = graph.ids[cycle[1]!]!;
    const path = [...cycle, cycle[0]!].map((i) => graph.ids[i]).join(' → ');
    problems.push(
      problem(
        first.file,
        first.lines.lineOf(['depends_on', first.dependsOn.indexOf(next)]),
        'cycle',
        `dependency cycle: ${path} (each depends on the next); remove one of these depends_on entries`,
      ),
    );
  }
}
