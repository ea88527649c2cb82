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
  | 'uat';

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

export type GsdPathMapping =
  | { kind: GsdFileKind; target: string; phase?: GsdPhaseDir; plan?: string }
  | { kind: 'decimal'; phase: GsdPhaseDir }
  | { kind: 'skip'; reason: string };

const TOP: Record<string, { kind: GsdFileKind; target: string }> = {
  'PROJECT.md': { kind: 'project', target: 'planning/PROJECT.md' },
  'REQUIREMENTS.md': { kind: 'requirements', target: 'planning/REQUIREMENTS.md' },
  'STATE.md': { kind: 'state', target: 'planning/STATE.md' },
  'ROADMAP.md': { kind: 'roadmap', target: 'ROADMAP.md' },
};

const PHASE_DIR = /^(\d{1,3})(\.\d+)?(?:[-_](.*))?$/;
const PLAN = /^(\d{1,3}(?:\.\d+)?)-(\d{1,3})-PLAN\.md$/;
const SUMMARY = /^(\d{1,3}(?:\.\d+)?)-(\d{1,3})-SUMMARY\.md$/;
const PHASE_DOC = /^(\d{1,3}(?:\.\d+)?)(?:-[A-Za-z0-9._-]+?)?-(RESEARCH|CONTEXT|VERIFICATION|UAT)\.md$/;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*\.md$/;

/** Known GSD files harness has no place for, with the reason given to the user. */
const KNOWN_SKIPS: [RegExp, string][] = [
  [/^config\.json$/, 'GSD workflow settings; harness reads its own from .github/harness.yml'],
  [/^codebase\//, 'GSD codebase map; it describes the repository, not this spec'],
  [/^todos\//, 'GSD todo list; open an issue for each todo instead'],
  [/^debug\//, 'GSD debug session notes'],
  [/^quick\//, 'GSD quick task, outside the roadmap'],
  [/^milestones\/|^MILESTONES\.md$/, 'GSD milestone archive; harness keeps history in Git'],
  [/(^|\/)\.continue-here[^/]*\.md$/, 'GSD pause marker; a harness run resumes from its own state'],
  [/^SPEC\.md$/, 'harness writes its own SPEC.md from PROJECT.md'],
  [/-VALIDATION\.md$/, 'GSD validation strategy; harness verifies with each plan\'s must_pass'],
  [/-USER-SETUP\.md$/, 'GSD user-setup checklist; not part of the spec'],
  [/-DISCOVERY\.md$|\/DISCOVERY\.md$/, 'GSD discovery notes; not mapped'],
];

/** Where a GSD path goes, or why it is not imported. */
export function importPath(path: string): GsdPathMapping {
  const top = TOP[path];
  if (top) return top;
  for (const [pattern, reason] of KNOWN_SKIPS) if (pattern.test(path)) return { kind: 'skip', reason };

  const parts = path.split('/');
  if (parts[0] === 'research' && parts.length === 2 && NAME.test(parts[1]!)) {
    return { kind: 'project-research', target: `planning/research/project/${parts[1]}` };
  }
  if (parts[0] !== 'phases') return { kind: 'skip', reason: 'not a GSD file harness maps (see README: harness import)' };
  if (parts.length !== 3) return { kind: 'skip', reason: 'not inside a phase directory phases/NN-name/' };
  const phase = phaseDir(parts[1]!);
  if (!phase) return { kind: 'skip', reason: `"${parts[1]}" is not a phase directory NN-name` };
  if (phase.decimal) return { kind: 'decimal', phase };
  return phaseFile(phase, parts[2]!);
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

function phaseFile(phase: GsdPhaseDir, name: string): GsdPathMapping {
  const plan = PLAN.exec(name);
  if (plan) {
    const n = plan[2]!.padStart(2, '0');
    return { kind: 'plan', target: `planning/plans/${phase.dir}/${phase.id}-${n}-PLAN.md`, phase, plan: n };
  }
  const summary = SUMMARY.exec(name);
  if (summary) {
    const n = summary[2]!.padStart(2, '0');
    return { kind: 'summary', target: `execution/phases/${phase.dir}/${phase.id}-${n}-SUMMARY.md`, phase, plan: n };
  }
  const doc = PHASE_DOC.exec(name);
  if (doc) {
    switch (doc[2]) {
      case 'RESEARCH':
        return { kind: 'research', target: `planning/research/phase-${phase.id}-research.md`, phase };
      case 'CONTEXT':
        return { kind: 'context', target: `planning/research/phase-${phase.id}-context.md`, phase };
      case 'VERIFICATION':
        return { kind: 'verification', target: `execution/phases/${phase.dir}/VERIFICATION.md`, phase };
      default:
        return { kind: 'uat', target: `execution/phases/${phase.dir}/UAT.md`, phase };
    }
  }
  return { kind: 'skip', reason: 'not a GSD phase file harness maps (PLAN, SUMMARY, RESEARCH, CONTEXT, VERIFICATION, UAT)' };
}

/** Code-unit order, the same in every locale, so reports are stable. */
export function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
