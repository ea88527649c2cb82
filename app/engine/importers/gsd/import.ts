import { SPEC_ID } from '../../core/spec/schema.js';
import { comparePaths, importPath, type GsdFileKind, type GsdPhaseDir } from './import-path.js';
import { importPlan } from './import-plan.js';
import { importProblem, type ImportProblem } from './import-problem.js';
import { importRoadmap } from './import-roadmap.js';
import { coreValue, projectTitle, specDocument } from './spec-document.js';

/** One file of a GSD tree, as an adapter hands it over: path relative to `.planning/`. */
export interface GsdFile {
  path: string;
  text: string;
}

export interface ImportOptions {
  /** The spec's id, "SPC-003". */
  specId: string;
}

export interface ImportedFile {
  /** Relative to the spec directory. */
  path: string;
  text: string;
  /** The GSD file it came from, relative to `.planning/`; null for files harness wrote itself. */
  from: string | null;
}

export interface SkippedFile {
  /** Relative to `.planning/`. */
  path: string;
  reason: string;
}

export interface GsdImport {
  id: string;
  title: string;
  /** SPEC.md and ROADMAP.md first, then the rest by path. */
  files: ImportedFile[];
  skipped: SkippedFile[];
  problems: ImportProblem[];
}

interface Mapped {
  source: GsdFile;
  kind: GsdFileKind;
  target: string;
  phase?: GsdPhaseDir;
  plan?: string;
}

/**
 * Convert a GSD `.planning/` tree into the files of a harness spec directory
 * (docs/design.md "Spec directory", README "harness import" for the table). Every input file is
 * either written or listed in `skipped` with the reason; nothing is dropped silently.
 */
export function importGsd(input: readonly GsdFile[], options: ImportOptions): GsdImport {
  const problems: ImportProblem[] = [];
  const skipped: SkippedFile[] = [];
  if (!SPEC_ID.test(options.specId)) {
    problems.push(importProblem('.', 1, 'spec-id', `spec id "${options.specId}" must look like SPC-001 (capital letters, "-", digits)`));
  }

  const mapped: Mapped[] = [];
  const decimals = new Map<string, { files: string[]; dir: string }>();
  const dirs = new Map<string, GsdPhaseDir>();
  const sources = [...input].map((f) => ({ path: f.path, text: normalize(f.text) })).sort((a, b) => comparePaths(a.path, b.path));
  for (const source of sources) {
    const where = importPath(source.path);
    if (where.kind === 'skip') {
      skipped.push({ path: source.path, reason: where.reason });
    } else if (where.kind === 'decimal') {
      const entry = decimals.get(where.phase.id) ?? { files: [], dir: where.phase.source };
      entry.files.push(source.path);
      decimals.set(where.phase.id, entry);
      skipped.push({ path: source.path, reason: `in inserted phase ${where.phase.id}, which harness cannot number (see the problems)` });
    } else {
      const m: Mapped = { source, kind: where.kind, target: where.target };
      if (where.phase) {
        m.phase = where.phase;
        if (!dirs.has(where.phase.source)) dirs.set(where.phase.source, where.phase);
      }
      if (where.plan) m.plan = where.plan;
      mapped.push(m);
    }
  }

  const byKind = (kind: GsdFileKind) => mapped.find((m) => m.kind === kind);
  const project = byKind('project');
  const roadmapSource = byKind('roadmap');
  if (mapped.length === 0 && decimals.size === 0) {
    problems.push(
      importProblem('.', 1, 'not-gsd', 'no GSD files here (PROJECT.md, ROADMAP.md, phases/NN-name/NN-MM-PLAN.md): point at a GSD .planning directory'),
    );
    return { id: options.specId, title: options.specId, files: [], skipped, problems };
  }

  const files: ImportedFile[] = [];
  const roadmap = importRoadmap(roadmapSource?.source.text, [...dirs.values()]);
  problems.push(...roadmap.problems);
  reportDecimals(decimals, roadmap.decimals, problems);
  if (!roadmapSource) {
    problems.push(importProblem('ROADMAP.md', 1, 'file-missing', 'no ROADMAP.md; one was written with the phases found under phases/', 'warning'));
  }
  files.push({ path: 'ROADMAP.md', text: roadmap.text, from: roadmapSource?.source.path ?? null });

  for (const m of mapped) {
    if (m.kind === 'roadmap') continue;
    const text =
      m.kind === 'plan' ? importPlan(m.source.path, m.source.text, { phase: m.phase!.id, dir: m.phase!.source, plan: m.plan! }) : m.source.text;
    files.push({ path: m.target, text, from: m.source.path });
  }

  const title =
    (project && projectTitle(project.source.text)) ?? (roadmapSource && projectTitle(roadmapSource.source.text)) ?? options.specId;
  if (!project) {
    problems.push(importProblem('PROJECT.md', 1, 'file-missing', `no PROJECT.md; SPEC.md is titled "${title}" — edit it there`, 'warning'));
  }
  const spec: { id: string; title: string; has: Set<string>; coreValue?: string } = {
    id: options.specId,
    title,
    has: new Set(files.map((f) => f.path)),
  };
  const value = project && coreValue(project.source.text);
  if (value) spec.coreValue = value;
  files.unshift({ path: 'SPEC.md', text: specDocument(spec), from: null });

  const written = dedupe(files, skipped, problems);
  skipped.sort((a, b) => comparePaths(a.path, b.path));
  problems.sort((a, b) => comparePaths(a.file, b.file) || a.line - b.line);
  return { id: options.specId, title, files: written, skipped, problems };
}

/** One problem per inserted phase, naming every file left behind. */
function reportDecimals(
  dirs: Map<string, { files: string[]; dir: string }>,
  headings: readonly { id: string; title: string; line: number }[],
  problems: ImportProblem[],
): void {
  const ids = new Set([...dirs.keys(), ...headings.map((h) => h.id)]);
  for (const id of [...ids].sort((a, b) => Number(a) - Number(b))) {
    const dir = dirs.get(id);
    const heading = headings.find((h) => h.id === id);
    const name = heading ? ` "${heading.title}"` : '';
    const fix = 'harness phases are whole numbers, so renumber the GSD phases (make it a whole phase and shift the ones after it) and import again';
    if (dir) {
      problems.push(
        importProblem(
          `phases/${dir.dir}`,
          1,
          'decimal-phase',
          `inserted phase ${id}${name} was not imported (${dir.files.length} file${dir.files.length === 1 ? '' : 's'}: ${dir.files.join(', ')}); ${fix}`,
        ),
      );
    } else {
      problems.push(
        importProblem(
          'ROADMAP.md',
          heading!.line,
          'decimal-phase',
          `inserted phase ${id}${name} has no plans and was left out of the roadmap's phases; ${fix}`,
          'warning',
        ),
      );
    }
  }
}

/** Two GSD files that land on the same path: the first (by GSD path) is kept. */
function dedupe(files: ImportedFile[], skipped: SkippedFile[], problems: ImportProblem[]): ImportedFile[] {
  const seen = new Map<string, ImportedFile>();
  const out: ImportedFile[] = [];
  for (const file of files) {
    const first = seen.get(file.path);
    if (!first) {
      seen.set(file.path, file);
      out.push(file);
      continue;
    }
    const from = file.from ?? file.path;
    problems.push(
      importProblem(from, 1, 'target-conflict', `${from} and ${first.from ?? first.path} would both be written to ${file.path}; the first was kept`),
    );
    skipped.push({ path: from, reason: `${file.path} is already written from ${first.from ?? first.path}` });
  }
  const [spec, roadmap, ...rest] = out;
  return [spec!, roadmap!, ...rest.sort((a, b) => comparePaths(a.path, b.path))];
}

/** GSD files come from editors on every platform: drop a BOM, use "\n". */
function normalize(text: string): string {
  return (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n?/g, '\n');
}
