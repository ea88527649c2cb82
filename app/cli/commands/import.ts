import { plural } from '../../engine/core/plural.js';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { importGsd, type GsdImport } from '../../engine/importers/gsd/import.js';
import { comparePaths } from '../../engine/importers/gsd/import-path.js';
import type { ImportProblem } from '../../engine/importers/gsd/import-problem.js';
import { specIdFromDir } from '../../engine/importers/gsd/spec-id.js';
import { loadSpec, type LoadedSpec } from '../../engine/core/spec/load.js';
import { countErrors, formatProblem } from '../../engine/core/spec/problem.js';
import { SPEC_ID } from '../../engine/core/spec/schema.js';
import { readTree, TreeError } from '../../machine/read-tree.js';
import { statIfExists } from '../../machine/files.js';
import { readSpecFiles } from '../../machine/spec-files.js';
import { directoryState, writeTree } from '../../machine/write-tree.js';
import { EXIT, UsageError, type CliIO } from '../io.js';
import { displayPath } from '../spec-input.js';
import { PLAN_READING } from '../../engine/importers/dialects.js';
import { oneLine } from '../../engine/core/spec/problem.js';

export const usage = `Usage: harness import <gsd-planning-dir> <spec-dir> [--id SPC-NNN] [--declared-only] [--force] [--json]

Convert a GSD .planning/ directory into a harness spec directory, then validate it.
<gsd-planning-dir> is the .planning directory, or the project that holds one.
The spec id comes from the spec directory's name (SPC-003-billing → SPC-003), or --id.

  PROJECT.md, REQUIREMENTS.md, STATE.md   → planning/
  ROADMAP.md                              → ROADMAP.md, phases in frontmatter
  phases/NN-name/NN-MM-PLAN.md            → planning/plans/NN-name/, harness frontmatter
    (also NN-MMA-PLAN.md, NN-slug-MM-PLAN.md and inserted phases NN.M-name/: ids renumbered)
  phases/NN-name/NN-MM-SUMMARY.md         → execution/phases/NN-name/
  phases/NN-name/NN-RESEARCH.md, -CONTEXT → planning/research/phase-NN-research.md, -context.md
  phases/NN-name/NN-VERIFICATION.md, -UAT → execution/phases/NN-name/VERIFICATION.md, UAT.md
  research/*.md                           → planning/research/project/
  MILESTONES.md, milestones/*.md          → planning/, planning/milestones/
  SPEC.md is written from PROJECT.md. Every other file is listed as skipped, with the reason;
  a file that looks like a plan and could not be imported is an error (exit 1).
  The documents' names of GSD files (.planning/…) are rewritten to where those were written;
  a plan's @-include of a file on its author's machine is made repository-relative, or dropped
  with a warning when it is outside the repository.

GSD runs phases in order, so by default each phase's first plans wait for the previous phase.
A plan whose SUMMARY.md reports it done is imported with completed: and harness run skips it.

Options:
  --id ID     the spec id, when the directory name does not carry one
  --declared-only
              keep only the dependencies the plans declare: later phases may then start
              beside earlier ones
  --force     write into a non-empty spec directory (files of the same name are replaced,
              others are left alone); without it a non-empty directory is refused (exit 2)
  --json      print a stable JSON report of written and skipped files and problems
  -h, --help  show this help

Exit: 0 imported and the spec validates, 1 import problems or validation errors,
2 usage error (including a non-empty spec directory without --force); nothing is written on 2.
`;

/** The stable `harness import --json` report. */
export interface ImportJson {
  /** The GSD directory read, as given (or its .planning). */
  source: string;
  /** The spec directory written, as given. */
  spec: string;
  id: string;
  /** Exit 0: no import errors and the written spec validates. */
  ok: boolean;
  /** Spec-relative paths written, with the GSD path each came from (null: written by harness). */
  written: { path: string; from: string | null }[];
  /** Source-relative paths not imported, with the reason. */
  skipped: { path: string; reason: string }[];
  /** Import problems; `file` is prefixed with `source`. */
  problems: JsonProblem[];
  /** `harness validate` of the written spec; `file` is prefixed with `spec`. */
  validation: { valid: boolean; errors: number; warnings: number; phases: number; plans: number; problems: JsonProblem[] };
  /** GSD's phase order kept (dependencies added) or only declared dependencies (--declared-only). */
  order: { phase_order: boolean; added: number };
  /** GSD ids harness numbered differently; `path` is prefixed with `source`. */
  renumbered: { from: string; to: string; path: string }[];
  /** Plan ids imported as done (a GSD SUMMARY.md reports them done). */
  completed: string[];
  /** Names of GSD files (`.planning/…`, relative links) in the imported documents rewritten to where those files were written. */
  references: number;
}

interface JsonProblem {
  file: string;
  line: number;
  severity: 'error' | 'warning';
  code: string;
  message: string;
}

export async function importCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { id: { type: 'string' }, force: { type: 'boolean' }, json: { type: 'boolean' }, 'declared-only': { type: 'boolean' } },
  });
  if (positionals.length < 2) throw new UsageError(positionals.length === 0 ? 'missing <gsd-planning-dir> and <spec-dir>' : 'missing <spec-dir>');
  if (positionals.length > 2) throw new UsageError(`unexpected argument "${positionals[2]}"`);
  const [sourceArg, specArg] = positionals as [string, string];

  // The source first: a mistyped source is the likelier slip, and its id question is moot without one.
  const { full: source, shown: sourceShown } = await planningDir(sourceArg, io);
  const specId = values.id ?? specIdFromDir(resolve(io.cwd, specArg));
  if (specId === undefined) {
    throw new UsageError(`cannot tell the spec id from "${displayPath(specArg)}": name the directory like SPC-003-billing, or pass --id SPC-003`);
  }
  if (!SPEC_ID.test(specId)) throw new UsageError(`--id "${specId}" must look like SPC-001 (capital letters, "-", digits)`);

  const target = resolve(io.cwd, specArg);
  const specShown = displayPath(specArg);
  const inside = relative(source, target);
  if (!inside || (!inside.startsWith('..') && !isAbsolute(inside))) {
    throw new UsageError(`${specShown} is inside ${sourceShown}; write the spec somewhere else`);
  }
  const state = await directoryState(target);
  if (state === 'not-a-directory') throw new UsageError(`${specShown} is a file, not a directory`);
  if (state === 'non-empty' && !values.force) {
    throw new UsageError(`${specShown} is not empty; pass --force to write into it (files of the same name are replaced, others are left alone)`);
  }

  let tree;
  try {
    tree = await readTree(source);
  } catch (e) {
    if (e instanceof TreeError) throw new UsageError(e.message.replace(source, sourceShown));
    throw e;
  }
  const specPath = await repositoryPath(target);
  const result = importGsd(tree.files, { specId, declaredOnly: values['declared-only'] === true, ...(specPath === undefined ? {} : { specPath }) });
  result.skipped.push(...tree.unread);
  result.skipped.sort((a, b) => comparePaths(a.path, b.path));

  let loaded: LoadedSpec | undefined;
  if (result.files.length > 0) {
    await writeTree(target, result.files);
    loaded = loadSpec(await readSpecFiles(target), PLAN_READING);
  }
  const importErrors = result.problems.filter((p) => p.severity === 'error').length;
  const ok = importErrors === 0 && loaded?.valid === true;

  if (values.json) io.stdout(`${JSON.stringify(report(result, loaded, sourceShown, specShown, ok), null, 2)}\n`);
  else printHuman(io, result, loaded, sourceShown, specShown);
  return ok ? EXIT.ok : EXIT.problems;
}

/** The spec directory as its repository names it (`docs/specs/SPC-003-billing`), or undefined outside a repository. */
async function repositoryPath(target: string): Promise<string | undefined> {
  for (let dir = target; ; dir = dirname(dir)) {
    if ((await statIfExists(join(dir, '.git'))) !== undefined) return relative(dir, target).split(sep).join('/') || '.';
    if (dirname(dir) === dir) return undefined;
  }
}

/** The `.planning` directory itself, or the project directory that holds one. */
async function planningDir(arg: string, io: CliIO): Promise<{ full: string; shown: string }> {
  const full = resolve(io.cwd, arg);
  const shown = displayPath(arg);
  const info = await statIfExists(full);
  if (!info) throw new UsageError(`${shown}: no such directory`);
  if (!info.isDirectory()) throw new UsageError(`${shown}: not a directory`);
  const nested = join(full, '.planning');
  const hasOwn = await Promise.all(['ROADMAP.md', 'PROJECT.md', 'phases'].map(async (n) => (await statIfExists(join(full, n))) !== undefined));
  if (!hasOwn.some(Boolean) && (await statIfExists(nested))?.isDirectory()) {
    return { full: nested, shown: `${shown === '.' ? '' : `${shown}/`}.planning` };
  }
  return { full, shown };
}

function report(result: GsdImport, loaded: LoadedSpec | undefined, source: string, spec: string, ok: boolean): ImportJson {
  const problems = loaded?.problems ?? [];
  const errors = countErrors(problems);
  return {
    source,
    spec,
    id: result.id,
    ok,
    written: result.files.map((f) => ({ path: f.path, from: f.from })),
    skipped: result.skipped.map((s) => ({ path: s.path, reason: s.reason })),
    problems: result.problems.map((p) => jsonProblem(p, source)),
    validation: {
      valid: loaded?.valid ?? false,
      errors,
      warnings: problems.length - errors,
      phases: loaded?.spec?.phases.length ?? 0,
      plans: loaded?.spec?.plans.length ?? 0,
      problems: problems.map((p) => jsonProblem(p, spec)),
    },
    order: { phase_order: result.order.phaseOrder, added: result.order.added },
    renumbered: result.renumbered.map((r) => ({ from: r.from, to: r.to, path: prefixed(source, r.path) })),
    completed: result.completed,
    references: result.references,
  };
}

function jsonProblem(p: ImportProblem | JsonProblem, prefix: string): JsonProblem {
  return { file: prefixed(prefix, p.file), line: p.line, severity: p.severity, code: p.code, message: p.message };
}

function prefixed(prefix: string, file: string): string {
  return file === '.' ? prefix : `${prefix.replace(/\/+$/, '')}/${file}`;
}

function printHuman(io: CliIO, result: GsdImport, loaded: LoadedSpec | undefined, source: string, spec: string): void {
  if (result.files.length > 0) {
    io.stdout(`${source} → ${spec} (${result.id}): wrote ${plural(result.files.length, 'file')}\n`);
    for (const f of result.files) io.stdout(`  ${oneLine(f.path)}${f.from ? `  ← ${oneLine(f.from)}` : ''}\n`);
  }
  if (result.skipped.length > 0) {
    io.stdout(`skipped ${plural(result.skipped.length, 'file')}:\n`);
    for (const s of result.skipped) io.stdout(`  ${oneLine(s.path)}: ${oneLine(s.reason)}\n`);
  }
  if (result.files.length > 0) for (const line of importNotes(result)) io.stdout(`${line}\n`);
  // Problems and the verdict on one stream, in order, as harness validate prints them: split over two, a pipe or a terminal interleaves them.
  for (const p of result.problems) io.stdout(`${prefixed(source, p.file)}:${p.line}: ${p.severity === 'warning' ? 'warning: ' : ''}${oneLine(p.message)}\n`);
  if (!loaded) {
    io.stdout(`harness import: nothing written to ${spec}\n`);
    return;
  }
  for (const p of loaded.problems) io.stdout(`${formatProblem(p, spec)}\n`);
  const errors = countErrors(loaded.problems);
  const warnings = loaded.problems.length - errors;
  const what = loaded.spec ? `${loaded.spec.id}: ${plural(loaded.spec.plans.length, 'plan')} in ${plural(loaded.spec.phases.length, 'phase')}` : spec;
  const verdict = errors === 0 ? 'valid' : plural(errors, 'error');
  io.stdout(`${what}: ${verdict}${warnings ? `, ${plural(warnings, 'warning')}` : ''}\n`);
}

/** What the import decided for the user, said once: order, ids, work already done, machine paths. */
export function importNotes(result: GsdImport): string[] {
  const lines: string[] = [];
  lines.push(
    result.order.phaseOrder
      ? `phase order: GSD runs phases one after another, so each phase's first plans wait for the previous phase (${plural(result.order.added, 'dependency', 'dependencies')} added, listed in each plan's metadata.gsd.phase_order); --declared-only keeps only the plans' own depends_on`
      : "phase order: only the plans' own depends_on were kept (--declared-only), so a later phase's plans may start beside an earlier phase's",
  );
  if (result.renumbered.length > 0) {
    lines.push(
      `renumbered ${plural(result.renumbered.length, 'id')} (harness numbers phases and plans with whole numbers; GSD's id is kept in metadata.gsd.id):`,
    );
    for (const r of result.renumbered) lines.push(`  ${oneLine(r.from)} → ${r.to}  (${oneLine(r.path)})`);
  }
  if (result.completed.length > 0) {
    lines.push(`done before harness (their GSD SUMMARY.md says so; imported with completed:, harness run will not run them): ${result.completed.join(', ')}`);
  }
  if (result.references > 0) {
    lines.push(
      `references: ${plural(result.references, 'name')} of GSD files in the imported documents (.planning/…, relative links) rewritten to where the files were written`,
    );
  }
  if (result.gsdIncludes.lines > 0) {
    lines.push(
      `@-includes: ${plural(result.gsdIncludes.lines, 'line')} naming GSD's own instructions on the author's machine (…/get-shit-done/…) dropped from ${plural(result.gsdIncludes.plans, 'plan')}: no other machine has them`,
    );
  }
  if (result.machineRoot) {
    const how = {
      files: "from the plans' files_modified",
      cd: 'the directory their commands cd into first',
      common: 'the directory every such path shares',
      only: 'the only machine directory named',
    }[result.machineRoot.how];
    lines.push(`<verify> commands: ${result.machineRoot.root} taken as the repository root (${how}) and cut from the commands`);
  }
  return lines;
}
