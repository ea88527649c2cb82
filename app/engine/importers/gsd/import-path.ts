/**
 * Where each file of a GSD `.planning/` tree goes in a harness spec directory
 * (docs/design.md "Spec directory"). Paths are relative, with forward slashes, on both sides.
 */

export type GsdFileKind =
  | 'project'
  | 'requirements'
  | 'state'
  | 'roadmap'
  | 'project-research'
  | 'plan'
  | 'summary'
  | 'research'
  | 'context'
  | 'verification'
  | 'uat'
  /** A document in a phase folder that is named like a plan but is none (PAPER_TRADING_PLAN.md). */
  | 'phase-document'
  /** MILESTONES.md, or a finished milestone's roadmap, requirements or audit (milestones/v1.0-ROADMAP.md): the roadmap's prose points to them. */
  | 'milestone';

/** A phase directory: `phases/02-invoices-api` is `{ id: "02", dir: "02-invoices-api" }`. */
export interface GsdPhaseDir {
  /** "02", or "02.1" for an inserted phase. */
  id: string;
  /** The directory name under `phases/`, as GSD wrote it. */
  source: string;
  /** The directory name harness uses: the id padded, the rest kept to safe characters. */
  dir: string;
  decimal: boolean;
}

/** A plan's place in its phase as GSD named it: `02A-PLAN.md` is `{ number: 2, letter: "A" }`. */
export interface GsdPlanKey {
  number: number;
  /** "" or an upper-case letter: GSD splits a plan into 02A, 02B. */
  letter: string;
  /** "02A", as written (upper-cased). */
  text: string;
}

export type GsdPathMapping =
  | { kind: Exclude<GsdFileKind, 'plan' | 'summary'>; target: string; phase?: GsdPhaseDir }
  | { kind: 'plan' | 'summary'; phase: GsdPhaseDir; key: GsdPlanKey }
  | { kind: 'skip'; reason: string; plan?: boolean };

const TOP: Record<string, { kind: Exclude<GsdFileKind, 'plan' | 'summary'>; target: string }> = {
  'PROJECT.md': { kind: 'project', target: 'planning/PROJECT.md' },
  'REQUIREMENTS.md': { kind: 'requirements', target: 'planning/REQUIREMENTS.md' },
  'STATE.md': { kind: 'state', target: 'planning/STATE.md' },
  'ROADMAP.md': { kind: 'roadmap', target: 'ROADMAP.md' },
};

const PHASE_DIR = /^(\d{1,3})(\.\d+)?(?:[-_](.*))?$/;
/**
 * `02-01-PLAN.md`, `02-01A-PLAN.md` (a plan split in two), `02-auth-01-PLAN.md` (the phase's
 * slug repeated), `02.1-01-PLAN.md` (an inserted phase), and `02-PLAN.md` (a phase of one plan).
 */
const PLAN_FILE = /^(\d{1,3}(?:\.\d+)?)(?:-[A-Za-z][A-Za-z0-9_-]*?)?(?:-(\d{1,3})([A-Za-z]?))?-(PLAN|SUMMARY)\.md$/i;
/** Anything a person would call a plan file, imported or not. */
const PLAN_LIKE = /(?:^|[-_.])PLAN\.md$/i;
const PHASE_DOC = /^(\d{1,3}(?:\.\d+)?)(?:-[A-Za-z0-9._-]+?)?-(RESEARCH|CONTEXT|VERIFICATION|UAT)\.md$/;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*\.md$/;

/** Known GSD files harness has no place for, with the reason given to the user. */
const KNOWN_SKIPS: [RegExp, string][] = [
  [/^config\.json$/, 'GSD workflow settings; harness reads its own from .github/harness.yml'],
  [/^codebase\//, 'GSD codebase map; it describes the repository, not this spec'],
  [/^todos\//, 'GSD todo list; open an issue for each todo instead'],
  [/^debug\//, 'GSD debug session notes'],
  [/^quick\//, 'GSD quick task, outside the roadmap'],
  [/^milestones\/[^/]+\//, "GSD archive of a finished milestone's phases, whose roadmap is imported; harness keeps history in Git"],
  [/(^|\/)\.continue-here[^/]*\.md$/, 'GSD pause marker; a harness run resumes from its own state'],
  [/^SPEC\.md$/, 'harness writes its own SPEC.md from PROJECT.md'],
  [/-VALIDATION\.md$/, "GSD validation strategy; harness verifies with each plan's must_pass"],
  [/-USER-SETUP\.md$/, 'GSD user-setup checklist; not part of the spec'],
  [/-DISCOVERY\.md$|\/DISCOVERY\.md$/, 'GSD discovery notes; not mapped'],
];

/** Where a GSD path goes, or why it is not imported. */
export function importPath(path: string): GsdPathMapping {
  const top = TOP[path];
  if (top) return top;
  for (const [pattern, reason] of KNOWN_SKIPS) if (pattern.test(path)) return { kind: 'skip', reason };

  const parts = path.split('/');
  if (path === 'MILESTONES.md') return { kind: 'milestone', target: 'planning/MILESTONES.md' };
  if (parts[0] === 'milestones' && parts.length === 2 && NAME.test(parts[1]!)) return { kind: 'milestone', target: `planning/milestones/${parts[1]}` };
  const planLike = PLAN_LIKE.test(parts[parts.length - 1]!);
  const skip = (reason: string): GsdPathMapping => (planLike ? { kind: 'skip', reason, plan: true } : { kind: 'skip', reason });
  if (parts[0] === 'research' && parts.length === 2 && NAME.test(parts[1]!)) {
    return { kind: 'project-research', target: `planning/research/project/${parts[1]}` };
  }
  if (parts[0] !== 'phases') {
    return skip(
      planLike
        ? 'a plan outside phases/: GSD plans live in phases/NN-name/; move it into its phase directory'
        : 'not a GSD file harness maps (see docs/planning.md: Importing GSD)',
    );
  }
  if (parts.length !== 3)
    return skip(
      `not directly inside a phase directory phases/NN-name/ (it is ${parts.length === 2 ? 'in phases/ itself' : `${parts.length - 3} ${parts.length === 4 ? 'directory' : 'directories'} deeper`})`,
    );
  const phase = phaseDir(parts[1]!);
  if (!phase) return skip(`"${parts[1]}" is not a phase directory: its name must start with the phase number, as in 02-name or 02.1-name`);
  return phaseFile(phase, parts[2]!, skip);
}

export function phaseDir(name: string): GsdPhaseDir | undefined {
  const m = PHASE_DIR.exec(name);
  if (!m) return undefined;
  const number = m[1]!.padStart(2, '0');
  const slug = (m[3] ?? '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  return {
    id: m[2] ? `${number}${m[2]}` : number,
    source: name,
    dir: slug ? `${number}-${slug}` : number,
    decimal: m[2] !== undefined,
  };
}

function phaseFile(phase: GsdPhaseDir, name: string, skip: (reason: string) => GsdPathMapping): GsdPathMapping {
  const plan = PLAN_FILE.exec(name);
  if (plan) {
    const kind = plan[4]!.toUpperCase() === 'PLAN' ? 'plan' : 'summary';
    if (!samePhase(plan[1]!, phase.id)) {
      return skip(`named for phase ${plan[1]} but in the directory of phase ${phase.id} (${phase.source}); move it or fix its name`);
    }
    const number = plan[2] === undefined ? 1 : Number(plan[2]);
    const letter = (plan[3] ?? '').toUpperCase();
    return { kind, phase, key: { number, letter, text: `${String(number).padStart(2, '0')}${letter}` } };
  }
  const doc = PHASE_DOC.exec(name);
  if (doc) {
    const kind = ({ RESEARCH: 'research', CONTEXT: 'context', VERIFICATION: 'verification', UAT: 'uat' } as const)[doc[2] as 'RESEARCH'];
    return { kind, target: phaseDocTarget(kind, phase.id, phase.dir), phase };
  }
  // Named like a plan, but not as GSD names its plans: the importer reads it to tell a misnamed plan from a document.
  if (PLAN_LIKE.test(name)) return { kind: 'phase-document', target: `planning/phase-documents/${phase.dir}/${name}`, phase };
  return skip('not a GSD phase file harness maps (PLAN, SUMMARY, RESEARCH, CONTEXT, VERIFICATION, UAT)');
}

/** Where a phase's own document goes, once the phase has its harness id and directory. */
export function phaseDocTarget(kind: 'research' | 'context' | 'verification' | 'uat', id: string, dir: string): string {
  switch (kind) {
    case 'research':
      return `planning/research/phase-${id}-research.md`;
    case 'context':
      return `planning/research/phase-${id}-context.md`;
    case 'verification':
      return `execution/phases/${dir}/VERIFICATION.md`;
    default:
      return `execution/phases/${dir}/UAT.md`;
  }
}

/** "2.1" and "02.1" are the same phase. */
function samePhase(a: string, b: string): boolean {
  const norm = (s: string) =>
    s
      .split('.')
      .map((p) => String(Number(p)))
      .join('.');
  return norm(a) === norm(b);
}

/** Order of phase ids as GSD numbers them: 2 < 2.1 < 2.2 < 2.10 < 3. */
export function comparePhaseIds(a: string, b: string): number {
  const [aw, ad] = a.split('.').map(Number);
  const [bw, bd] = b.split('.').map(Number);
  return aw! - bw! || (ad ?? -1) - (bd ?? -1);
}

/** Code-unit order, the same in every locale, so reports are stable. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
