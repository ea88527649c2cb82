import { parseArgs } from 'node:util';
import { plural } from '../../engine/core/plural.js';
import { loadSpec, planLocation } from '../../engine/core/spec/load.js';
import { countErrors, formatProblem, oneLine } from '../../engine/core/spec/problem.js';
import { EXIT, type CliIO } from '../io.js';
import { displayPath, readSpec, specDirArg, specDirOf } from '../spec-input.js';
import { PLAN_READING } from '../../engine/importers/dialects.js';
import { gsdImportHint } from '../gsd-hint.js';
import type { JsonError } from '../graph-input.js';
import { repoConfig } from '../repo-config.js';

export const usage = `Usage: harness validate <spec-dir> [--json]

Parse and check a spec: SPEC.md, ROADMAP.md and every planning/plans/*/*-PLAN.md,
and the repository's .github/harness.yml when there is one.
Every problem is printed as file:line: message, all at once, then the verdict.

Options:
  --json     print a stable JSON report (see docs/cli.md: JSON output)
  -h, --help show this help

Exit: 0 no errors (warnings allowed), 1 problems found, 2 usage error,
70 internal error (a bug in harness; the message says where the details are),
74 the machine failed (a full disk): one line says what to do.
`;

/** The stable `harness validate --json` report. */
export interface ValidateJson {
  spec: string;
  id: string | null;
  valid: boolean;
  errors: number;
  warnings: number;
  phases: number;
  plans: number;
  problems: { file: string; line: number; severity: 'error' | 'warning'; code: string; message: string }[];
}

export async function validateCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: 'boolean' } } });
  const dir = await specDirOf(specDirArg(positionals), io);
  const files = await readSpec(dir, io);
  const shown = displayPath(dir);
  const gsd = gsdImportHint(dir, io.cwd, shown);
  if (gsd !== undefined) {
    const report: JsonError = { error: { command: 'validate', message: gsd, spec: shown, problems: [] } };
    if (values.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    else io.stdout(`${gsd}\n`);
    return EXIT.problems;
  }
  const loaded = loadSpec(files, PLAN_READING);
  // Every plan file counts, the ones whose frontmatter has errors too: they are plans with problems, not fewer plans.
  const planFiles = files.filter((f) => f.link === undefined && planLocation(f.path) !== undefined && f.path.endsWith('PLAN.md'));
  const planCount = Math.max(planFiles.length, loaded.spec?.plans.length ?? 0);
  const phaseCount = Math.max(new Set(planFiles.map((f) => planLocation(f.path)![1])).size, loaded.spec?.phases.length ?? 0);
  // .github/harness.yml is checked with the spec: `harness run` refuses a run on its errors.
  const config = await repoConfig(dir, io.cwd);
  const specProblems = loaded.problems.map((p) => ({ ...p, file: `${shown}/${p.file}` }));
  const problems = [...specProblems, ...config.problems];
  const errors = countErrors(problems);
  const warnings = problems.length - errors;
  if (values.json) {
    const report: ValidateJson = {
      spec: shown,
      id: loaded.spec?.id ?? null,
      valid: errors === 0,
      errors,
      warnings,
      phases: phaseCount,
      plans: planCount,
      problems,
    };
    io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    // Problems and the verdict on one stream, in order: split over two, a pipe or a terminal interleaves them.
    for (const p of problems) io.stdout(`${formatProblem(p)}\n`);
    const what = loaded.spec ? `${loaded.spec.id}: ${plural(planCount, 'plan')} in ${plural(phaseCount, 'phase')}` : oneLine(shown);
    const verdict = errors === 0 ? 'valid' : plural(errors, 'error');
    const warned = warnings ? `, ${plural(warnings, 'warning')}` : '';
    const checked = config.shown ? ` (with ${oneLine(config.shown)})` : '';
    io.stdout(`${what}: ${verdict}${warned}${checked}\n`);
  }
  return errors === 0 ? EXIT.ok : EXIT.problems;
}
