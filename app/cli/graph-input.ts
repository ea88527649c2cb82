import type { LoadedSpec } from '../engine/core/spec/load.js';
import type { Spec } from '../engine/core/spec/model.js';
import { countErrors, formatProblem, type Problem, type ProblemCode } from '../engine/core/spec/problem.js';
import type { CliIO } from './io.js';
import { displayPath } from './spec-input.js';

/** Errors that change which plans there are or how they depend on each other: a graph drawn past them would be wrong. */
const GRAPH_CODES: ReadonlySet<ProblemCode> = new Set([
  'too-many-plans',
  'plan-location',
  'duplicate-plan',
  'duplicate-phase',
  'unknown-dependency',
  'self-dependency',
  'cycle',
  'later-phase-dependency',
]);

/**
 * The errors of a loaded spec that touch its graph: those above, and any error in a plan
 * file that did not become a plan (the plan would be missing from the graph). A wrong
 * check or an unknown key elsewhere leaves the graph as it is.
 */
export function graphProblems(loaded: LoadedSpec): Problem[] {
  const planFiles = new Set(loaded.spec?.plans.map((p) => p.file));
  return loaded.problems.filter(
    (p) =>
      p.severity === 'error' &&
      (!loaded.spec || GRAPH_CODES.has(p.code) || (p.file.startsWith('planning/plans/') && p.file.endsWith('PLAN.md') && !planFiles.has(p.file))),
  );
}

/** The stable JSON error `graph --json` and `simulate --json` print on stdout when there is nothing to show. */
export interface JsonError {
  error: {
    command: string;
    message: string;
    spec: string;
    problems: { file: string; line: number; severity: 'error' | 'warning'; code: string; message: string }[];
  };
}

/**
 * The spec `graph` and `simulate` work on, or undefined once the errors that keep them from
 * it are reported (on stdout as a JSON error with --json, so that a script reading stdout
 * always gets JSON). Other errors are noted on stderr and do not stop them.
 */
export function specForGraph(loaded: LoadedSpec, dir: string, command: string, io: CliIO, json: boolean): Spec | undefined {
  const shown = displayPath(dir);
  const blocking = graphProblems(loaded);
  if (blocking.length === 0 && loaded.spec) {
    const others = countErrors(loaded.problems);
    if (others > 0) {
      io.stderr(
        `harness ${command}: ${shown} has ${others === 1 ? '1 error that does' : `${others} errors that do`} not change its graph; shown anyway (harness validate ${shown} lists them)\n`,
      );
    }
    return loaded.spec;
  }
  const message = `${shown} has ${blocking.length === 1 ? '1 error that keeps' : `${blocking.length} errors that keep`} its graph from being read; fix ${blocking.length === 1 ? 'it' : 'them'} first (harness validate ${shown})`;
  reportError(
    io,
    command,
    json,
    shown,
    message,
    blocking.map((p) => ({ ...p, file: `${shown}/${p.file}` })),
  );
  return undefined;
}

/** An error that stops the command: its problems and message on stderr, and with --json the JSON error on stdout too. */
export function reportError(io: CliIO, command: string, json: boolean, spec: string, message: string, problems: Problem[]): void {
  if (json) {
    const report: JsonError = { error: { command, message, spec, problems } };
    io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    for (const p of problems) io.stderr(`${formatProblem(p)}\n`);
  }
  io.stderr(`harness ${command}: ${message}\n`);
}
