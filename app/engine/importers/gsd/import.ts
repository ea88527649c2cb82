import { parseFrontmatter } from '../../core/spec/frontmatter.js';
import { SPEC_ID } from '../../core/spec/schema.js';
import { readDependencies, phaseKey, type DependencyLookup } from './gsd-dependencies.js';
import { comparePaths, importPath, phaseDocTarget, type GsdFileKind, type GsdPhaseDir, type GsdPlanKey } from './import-path.js';
import { importPlan } from './import-plan.js';
import { importProblem, type ImportProblem } from './import-problem.js';
import { importRoadmap, roadmapPhaseIds, type ImportedRoadmap } from './import-roadmap.js';
import { cdTargets, machinePaths, machineRoot, type MachineRoot } from './machine-paths.js';
import { phaseOrder } from './phase-order.js';
import { rewriteReferences } from './references.js';
import { phaseIds, planNumbers } from './plan-ids.js';
import { coreValue, projectTitle, specDocument } from './spec-document.js';
import { summaryStatus } from './summary-status.js';

/** One file of a GSD tree, as an adapter hands it over: path relative to `.planning/`. */
export interface GsdFile {
  path: string;
  text: string;
}

export interface ImportOptions {
  /** The spec's id, "SPC-003". */
  specId: string;
  /**
   * Keep only the dependencies GSD's plans declare. By default each phase's first plans also
   * wait for the previous phase, as GSD ran phases one after another.
   */
  declaredOnly?: boolean;
  /**
   * The spec directory as the repository names it (`docs/specs/SPC-003-billing`): the
   * `.planning/…` paths GSD's documents name are rewritten to where the import wrote those
   * files. Without it they are left as they are.
   */
  specPath?: string;
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

/** A plan or phase whose harness id differs from GSD's (an inserted phase, a split plan). */
export interface Renumbered {
  from: string;
  to: string;
  /** The GSD file, relative to `.planning/`. */
  path: string;
}

export interface GsdImport {
  id: string;
  title: string;
  /** SPEC.md and ROADMAP.md first, then the rest by path. */
  files: ImportedFile[];
  skipped: SkippedFile[];
  problems: ImportProblem[];
  /** GSD ids harness could not keep, GSD's → harness's, phases first. */
  renumbered: Renumbered[];
  /** How plans are ordered: GSD's phase order kept (the default) or only declared dependencies. */
  order: { phaseOrder: boolean; added: number };
  /** Plans a GSD SUMMARY.md reports done, imported with `completed`. */
  completed: string[];
  /** Where `<verify>` commands said the repository was on the author's machine. */
  machineRoot?: MachineRoot;
  /** Names of GSD files in the imported documents rewritten to where those files were written (references.ts). */
  references: number;
  /** @-include lines of GSD's own instructions on the author's machine dropped from the plans, and from how many plans. */
  gsdIncludes: { lines: number; plans: number };
}

interface Mapped {
  source: GsdFile;
  kind: GsdFileKind;
  target: string;
  phase?: GsdPhaseDir;
  key?: GsdPlanKey;
}

interface PlacedPlan {
  m: Mapped;
  id: string;
  gsdId: string;
  phase: string;
  data: Record<string, unknown>;
  dependsOn: string[];
}

/**
 * Convert a GSD `.planning/` tree into the files of a harness spec directory
 * (docs/design.md "Spec directory", docs/planning.md "Importing GSD" for the table). Every input file is
 * either written or listed in `skipped` with the reason, and every file that looks like a
 * plan and is not imported is an error: nothing is dropped silently.
 */
export function importGsd(input: readonly GsdFile[], options: ImportOptions): GsdImport {
  const run: GsdRun = { options, problems: [], skipped: [], files: [], renumbered: [] };
  const { problems, skipped, files } = run;
  if (!SPEC_ID.test(options.specId)) {
    problems.push(importProblem('.', 1, 'spec-id', `spec id "${options.specId}" must look like SPC-001 (capital letters, "-", digits)`));
  }

  const sources = [...input].map((f) => ({ path: f.path, text: normalize(f.text) })).sort((a, b) => comparePaths(a.path, b.path));
  const dirs = new Map<string, GsdPhaseDir>();
  const mapped: Mapped[] = [];
  for (const source of sources) {
    const m = mapSource(run, source, dirs);
    if (m) mapped.push(m);
  }
  const byKind = (kind: GsdFileKind) => mapped.find((m) => m.kind === kind);
  const project = byKind('project');
  const roadmapSource = byKind('roadmap');
  if (mapped.length === 0) return notGsd(run);

  const phases = placePhases(run, dirs, roadmapSource);
  const roadmap = writeRoadmap(run, roadmapSource, dirs, phases.phaseIdOf);
  const plans = placePlans(mapped, phases.phaseIdOf, run.renumbered);
  resolveDependencies(run, plans);
  const added = options.declaredOnly
    ? new Map<string, string[]>()
    : phaseOrder(
        plans.map((p) => ({ id: p.id, phase: p.phase, dependsOn: p.dependsOn })),
        [...new Set(phases.phaseIdOf.values())],
      );
  const summaries = placeSummaries(run, mapped, plans, phases.harnessDir);
  const root = repositoryRoot(plans);
  const imported = writePlans(run, plans, summaries, { added, root, requirements: roadmap.requirements });
  placeDocuments(run, mapped, phases);
  const title = writeSpecMd(run, project, roadmapSource);

  const { written, references } = rewriteNames(run, dedupe(files, skipped, problems), sources);
  skipped.sort((a, b) => comparePaths(a.path, b.path));
  problems.sort((a, b) => comparePaths(a.file, b.file) || a.line - b.line);
  const result: GsdImport = {
    id: options.specId,
    title,
    files: written,
    skipped,
    problems,
    renumbered: run.renumbered,
    order: { phaseOrder: !options.declaredOnly, added: [...added.values()].reduce((n, l) => n + l.length, 0) },
    completed: imported.completed.sort(),
    references,
    gsdIncludes: imported.gsdIncludes,
  };
  if (root) result.machineRoot = root;
  return result;
}

/** The import under way: its options, and what it has found and written so far. */
interface GsdRun {
  options: ImportOptions;
  problems: ImportProblem[];
  skipped: SkippedFile[];
  /** The files written, ROADMAP.md first, SPEC.md put before it last. */
  files: ImportedFile[];
  renumbered: Renumbered[];
}

/** Where the phases land: GSD's phase id → harness's, and GSD's phase directory → harness's. */
interface PlacedPhases {
  phaseIdOf: ReadonlyMap<string, string>;
  harnessDir: ReadonlyMap<string, string>;
}

/**
 * A source's place in the spec, or undefined when it is skipped (with the reason; one that looks
 * like a plan is an error). The phase directory it is in is recorded in `dirs`.
 */
function mapSource(run: GsdRun, source: GsdFile, dirs: Map<string, GsdPhaseDir>): Mapped | undefined {
  const { problems, skipped } = run;
  const where = importPath(source.path);
  if (where.kind === 'skip') {
    skipped.push({ path: source.path, reason: where.reason });
    if (where.plan) problems.push(importProblem(source.path, 1, 'plan-not-imported', `${source.path} looks like a plan but was not imported: ${where.reason}`));
    return undefined;
  }
  if (where.kind === 'phase-document') {
    // A plan GSD would run has frontmatter; a document that only has "PLAN" in its name is kept for people to read.
    if (/^---\r?\n/.test(source.text)) {
      const reason = `a plan name harness cannot read: name it ${where.phase!.id}-NN-PLAN.md (NN the plan number, optionally with a letter: ${where.phase!.id}-02A-PLAN.md)`;
      skipped.push({ path: source.path, reason });
      problems.push(importProblem(source.path, 1, 'plan-not-imported', `${source.path} looks like a plan but was not imported: ${reason}`));
      return undefined;
    }
    problems.push(
      importProblem(
        source.path,
        1,
        'phase-document',
        `${source.path} is named like a plan but is none (no frontmatter, not NN-MM-PLAN.md): kept as a document of its phase, ${where.target}, which no run executes; if it is a plan, give it GSD's frontmatter and name it ${where.phase!.id}-NN-PLAN.md`,
        'warning',
      ),
    );
  }
  const m: Mapped = { source, kind: where.kind, target: 'target' in where ? where.target : '' };
  if (where.phase) {
    m.phase = where.phase;
    if (!dirs.has(where.phase.source)) dirs.set(where.phase.source, where.phase);
  }
  if ('key' in where) m.key = where.key;
  return m;
}

/** The import of a tree with no GSD file in it: nothing written, and why. */
function notGsd(run: GsdRun): GsdImport {
  const { options, problems, skipped } = run;
  const empty = { renumbered: [], order: { phaseOrder: !options.declaredOnly, added: 0 }, completed: [], references: 0, gsdIncludes: { lines: 0, plans: 0 } };
  problems.push(
    importProblem('.', 1, 'not-gsd', 'no GSD files here (PROJECT.md, ROADMAP.md, phases/NN-name/NN-MM-PLAN.md): point at a GSD .planning directory'),
  );
  return { id: options.specId, title: options.specId, files: [], skipped, problems, ...empty };
}

/** Phase ids first: every plan id, dependency and target depends on them. Those harness cannot keep are renumbered. */
function placePhases(run: GsdRun, dirs: ReadonlyMap<string, GsdPhaseDir>, roadmapSource: Mapped | undefined): PlacedPhases {
  const gsdPhaseIds = [...[...dirs.values()].map((d) => d.id), ...roadmapPhaseIds(roadmapSource?.source.text)];
  const phaseIdOf = phaseIds(gsdPhaseIds);
  const harnessDir = new Map<string, string>();
  for (const dir of dirs.values()) {
    const id = phaseIdOf.get(dir.id)!;
    const slug = dir.dir.replace(/^[^-]*-?/, '');
    harnessDir.set(dir.source, slug ? `${id}-${slug}` : id);
    if (id !== dir.id) run.renumbered.push({ from: `phase ${dir.id}`, to: `phase ${id}`, path: `phases/${dir.source}` });
  }
  return { phaseIdOf, harnessDir };
}

/** ROADMAP.md in harness's form (written from the phase directories when GSD's is missing). */
function writeRoadmap(
  run: GsdRun,
  roadmapSource: Mapped | undefined,
  dirs: ReadonlyMap<string, GsdPhaseDir>,
  phaseIdOf: ReadonlyMap<string, string>,
): ImportedRoadmap {
  const roadmap = importRoadmap(roadmapSource?.source.text, [...dirs.values()], phaseIdOf);
  run.problems.push(...roadmap.problems);
  if (!roadmapSource) {
    run.problems.push(importProblem('ROADMAP.md', 1, 'file-missing', 'no ROADMAP.md; one was written with the phases found under phases/', 'warning'));
  }
  run.files.push({ path: 'ROADMAP.md', text: roadmap.text, from: roadmapSource?.source.path ?? null });
  return roadmap;
}

/** Each plan's depends_on read as harness ids; those that name no plan of the tree are left out, with an error. */
function resolveDependencies(run: GsdRun, plans: readonly PlacedPlan[]): void {
  const lookup = dependencyLookup(plans);
  for (const plan of plans) {
    const deps = readDependencies(plan.data.depends_on, plan.m.phase!.id, lookup);
    plan.dependsOn = deps.ids.filter((d) => d !== plan.id);
    for (const raw of deps.unresolved) {
      run.problems.push(
        importProblem(
          plan.m.source.path,
          1,
          'dependency-unresolved',
          `depends_on names "${raw}", which is no plan of this GSD tree; it was left out of ${plan.id}'s dependencies: fix it in the GSD plan (e.g. "${plan.gsdId}") and import again`,
        ),
      );
    }
  }
}

/** Summaries: each placed beside its plan (the first one of a plan is the plan's), or kept apart when it has no plan. */
function placeSummaries(run: GsdRun, mapped: readonly Mapped[], plans: readonly PlacedPlan[], harnessDir: ReadonlyMap<string, string>): Map<string, Mapped> {
  const summaries = new Map<string, Mapped>();
  for (const m of mapped.filter((x) => x.kind === 'summary')) {
    const plan = plans.find((p) => p.m.phase!.source === m.phase!.source && p.m.key!.text === m.key!.text);
    const dir = harnessDir.get(m.phase!.source)!;
    if (!plan) {
      // Prefixed: GSD's number may be another harness plan's id.
      m.target = `execution/phases/${dir}/gsd-${m.source.path.slice(m.source.path.lastIndexOf('/') + 1)}`;
      run.problems.push(
        importProblem(
          m.source.path,
          1,
          'summary-without-plan',
          `${m.source.path} has no PLAN.md beside it (no ${m.key!.text} plan in phases/${m.phase!.source}); it was kept as ${m.target}, but it marks no plan done`,
          'warning',
        ),
      );
      continue;
    }
    m.target = `execution/phases/${dir}/${plan.id}-SUMMARY.md`;
    if (!summaries.has(plan.id)) summaries.set(plan.id, m);
  }
  return summaries;
}

/** Where the repository was on the author's machine, as the plans' paths, files and `cd`s tell. */
function repositoryRoot(plans: readonly PlacedPlan[]): MachineRoot | undefined {
  return machineRoot(
    plans.flatMap((p) => machinePaths(p.m.source.text)),
    // `.planning` too: an @-include of /Users/d/app/.planning/PROJECT.md says where the repository was.
    new Set([
      '.planning',
      ...plans.flatMap((p) => [p.data.files_modified, p.data.files_read].flatMap((l) => (Array.isArray(l) ? l.map((f) => String(f).split('/')[0]!) : []))),
    ]),
    plans.flatMap((p) => cdTargets(p.m.source.text)),
  );
}

/** What every plan's placement shares: the phase order added, the machine root, the roadmap's requirements by phase. */
interface PlanContext {
  added: ReadonlyMap<string, string[]>;
  root: MachineRoot | undefined;
  requirements: ReadonlyMap<string, string[]>;
}

/** Each plan rewritten in harness's form (done, when its summary says so); the plans done and the GSD @-includes dropped. */
function writePlans(
  run: GsdRun,
  plans: readonly PlacedPlan[],
  summaries: ReadonlyMap<string, Mapped>,
  { added, root, requirements }: PlanContext,
): Pick<GsdImport, 'completed' | 'gsdIncludes'> {
  const completed: string[] = [];
  const gsdIncludes = { lines: 0, plans: 0 };
  for (const plan of plans) {
    const done = doneBySummary(run, plan, summaries.get(plan.id));
    if (done !== undefined) completed.push(plan.id);
    const placement = {
      id: plan.id,
      gsdId: plan.gsdId,
      dir: plan.m.phase!.source,
      plan: plan.m.key!.text,
      dependsOn: plan.dependsOn,
      phaseOrder: added.get(plan.id) ?? [],
      ...(done === undefined ? {} : { completed: done }),
      ...(root === undefined ? {} : { machineRoot: root.root }),
      ...(requirements.has(plan.id.split('-')[0]!) ? { roadmapRequirements: requirements.get(plan.id.split('-')[0]!)! } : {}),
    };
    const imported = importPlan(plan.m.source.path, plan.m.source.text, placement);
    run.problems.push(...imported.problems);
    if (imported.gsdIncludes > 0) {
      gsdIncludes.lines += imported.gsdIncludes;
      gsdIncludes.plans++;
    }
    run.files.push({ path: plan.m.target, text: imported.text, from: plan.m.source.path });
  }
  return { completed, gsdIncludes };
}

/** When the plan's summary reports it done, the date it gives; a summary that does not is a warning. */
function doneBySummary(run: GsdRun, plan: PlacedPlan, summary: Mapped | undefined): string | undefined {
  if (!summary) return undefined;
  const status = summaryStatus(summary.source.text);
  if (status.done) return status.completed;
  run.problems.push(
    importProblem(
      summary.source.path,
      1,
      'summary-not-done',
      `${summary.source.path} does not report plan ${plan.gsdId} done (${status.reason}); ${plan.id} was imported as not done and harness run will run it`,
      'warning',
    ),
  );
  return undefined;
}

/** Every other file at its place: phase documents under their phase's harness id and directory, the rest where it was mapped. */
function placeDocuments(run: GsdRun, mapped: readonly Mapped[], { phaseIdOf, harnessDir }: PlacedPhases): void {
  for (const m of mapped) {
    if (m.kind === 'roadmap' || m.kind === 'plan') continue;
    if (m.kind === 'research' || m.kind === 'context' || m.kind === 'verification' || m.kind === 'uat') {
      m.target = phaseDocTarget(m.kind, phaseIdOf.get(m.phase!.id)!, harnessDir.get(m.phase!.source)!);
    }
    if (m.kind === 'phase-document')
      m.target = `planning/phase-documents/${harnessDir.get(m.phase!.source)!}/${m.source.path.slice(m.source.path.lastIndexOf('/') + 1)}`;
    run.files.push({ path: m.target, text: m.source.text, from: m.source.path });
  }
}

/** SPEC.md, first, from PROJECT.md (its title and core value) or ROADMAP.md's title; its title. */
function writeSpecMd(run: GsdRun, project: Mapped | undefined, roadmapSource: Mapped | undefined): string {
  const title = (project && projectTitle(project.source.text)) ?? (roadmapSource && projectTitle(roadmapSource.source.text)) ?? run.options.specId;
  if (!project) {
    run.problems.push(importProblem('PROJECT.md', 1, 'file-missing', `no PROJECT.md; SPEC.md is titled "${title}" — edit it there`, 'warning'));
  }
  const spec: { id: string; title: string; has: Set<string>; coreValue?: string } = {
    id: run.options.specId,
    title,
    has: new Set(run.files.map((f) => f.path)),
  };
  const value = project && coreValue(project.source.text);
  if (value) spec.coreValue = value;
  run.files.unshift({ path: 'SPEC.md', text: specDocument(spec), from: null });
  return title;
}

/** Each document's names of other GSD files, once every file has its place; with how many were rewritten. */
function rewriteNames(run: GsdRun, deduped: readonly ImportedFile[], sources: readonly GsdFile[]): { written: ImportedFile[]; references: number } {
  const places = {
    written: new Map(deduped.filter((f) => f.from !== null).map((f) => [f.from!, f.path])),
    skipped: new Map(run.skipped.map((k) => [k.path, k.reason])),
    ...(run.options.specPath === undefined ? {} : { specPath: run.options.specPath }),
  };
  const sourceOf = new Map(sources.map((f) => [f.path, f.text]));
  let references = 0;
  const written = deduped.map((f) => {
    if (f.from === null) return f;
    const r = rewriteReferences(f.text, f.from, f.path, places, sourceOf.get(f.from));
    references += r.rewritten;
    run.problems.push(...r.problems);
    return { ...f, text: r.text };
  });
  return { written, references };
}

/** Plan ids for every plan file, phase by phase, in GSD's order. */
function placePlans(mapped: Mapped[], phaseIdOf: ReadonlyMap<string, string>, renumbered: Renumbered[]): PlacedPlan[] {
  const out: PlacedPlan[] = [];
  const byPhase = new Map<string, Mapped[]>();
  for (const m of mapped.filter((x) => x.kind === 'plan')) byPhase.set(m.phase!.source, [...(byPhase.get(m.phase!.source) ?? []), m]);
  for (const [, list] of byPhase) {
    const phaseDir = list[0]!.phase!;
    const phase = phaseIdOf.get(phaseDir.id)!;
    const numbers = planNumbers(list.map((m) => ({ path: m.source.path, key: m.key! })));
    for (const m of list) {
      const id = `${phase}-${numbers.get(m.source.path)!}`;
      const gsdId = `${phaseDir.id}-${m.key!.text}`;
      const fm = parseFrontmatter(m.source.path, m.source.text, false);
      const dir = phaseDir.dir.replace(/^[^-]*-?/, '');
      m.target = `planning/plans/${dir ? `${phase}-${dir}` : phase}/${id}-PLAN.md`;
      if (id !== gsdId) renumbered.push({ from: gsdId, to: id, path: m.source.path });
      out.push({ m, id, gsdId, phase, data: fm.ok ? fm.frontmatter.data : {}, dependsOn: [] });
    }
  }
  return out.sort((a, b) => comparePaths(a.id, b.id));
}

function dependencyLookup(plans: readonly PlacedPlan[]): DependencyLookup {
  const byKey = new Map<string, string>();
  const byPhase = new Map<string, string[]>();
  for (const p of plans) {
    const phase = phaseKey(p.m.phase!.id);
    const key = `${phase}/${p.m.key!.text}`;
    if (!byKey.has(key)) byKey.set(key, p.id);
    byPhase.set(phase, [...(byPhase.get(phase) ?? []), p.id]);
  }
  return { plan: (phase, key) => byKey.get(`${phase}/${key}`), phase: (phase) => byPhase.get(phase) };
}

/**
 * Two GSD files that land on the same path. A second phase document (a re-verification, say)
 * keeps its GSD name beside the first, with a warning; anything else keeps the first and
 * reports the one left out.
 */
function dedupe(files: ImportedFile[], skipped: SkippedFile[], problems: ImportProblem[]): ImportedFile[] {
  const seen = new Map<string, ImportedFile>();
  const out: ImportedFile[] = [];
  // Of two sources for one place, GSD's plain name (01-VERIFICATION.md) takes it before a variant (01-RE-VERIFICATION.md).
  const base = (f: ImportedFile) => (f.from ?? '').slice((f.from ?? '').lastIndexOf('/') + 1);
  const [specFile, roadmapFile, ...others] = files;
  const ordered = [
    specFile!,
    roadmapFile!,
    ...others.sort((a, b) => comparePaths(a.path, b.path) || base(a).length - base(b).length || comparePaths(base(a), base(b))),
  ];
  for (const file of ordered) {
    const first = seen.get(file.path);
    if (!first) {
      seen.set(file.path, file);
      out.push(file);
      continue;
    }
    const from = file.from ?? file.path;
    const kept = first.from ?? first.path;
    const beside = `${file.path.slice(0, file.path.lastIndexOf('/') + 1)}${from.slice(from.lastIndexOf('/') + 1)}`;
    if (file.from && /\/(?:VERIFICATION|UAT)\.md$|-SUMMARY\.md$|^planning\/research\//.test(file.path) && !seen.has(beside)) {
      const moved = { ...file, path: beside };
      seen.set(beside, moved);
      out.push(moved);
      problems.push(importProblem(from, 1, 'target-conflict', `${kept} is written to ${file.path}, so ${from} was written beside it as ${beside}`, 'warning'));
      continue;
    }
    problems.push(importProblem(from, 1, 'target-conflict', `${from} was not written: ${file.path} is written from ${kept}, which was kept`));
    skipped.push({ path: from, reason: `${file.path} is already written from ${kept}` });
  }
  const [spec, roadmap, ...rest] = out;
  return [spec!, roadmap!, ...rest.sort((a, b) => comparePaths(a.path, b.path))];
}

/** GSD files come from editors on every platform: drop a BOM, use "\n". */
function normalize(text: string): string {
  return (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n?/g, '\n');
}
