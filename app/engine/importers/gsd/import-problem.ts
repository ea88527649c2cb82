import { problem, type Problem } from '../../core/spec/problem.js';

/** Stable codes: scripts reading `harness import --json` match on these. */
export type ImportProblemCode =
  /** Nothing in the directory looks like GSD's `.planning/`. */
  | 'not-gsd'
  /** A file that looks like a plan was not imported (its name, or where it is). */
  | 'plan-not-imported'
  /** A `depends_on` entry that names no plan of the tree. */
  | 'dependency-unresolved'
  /** A SUMMARY.md with no PLAN.md beside it: kept, but no plan is marked done by it. */
  | 'summary-without-plan'
  /** A SUMMARY.md that does not report its plan done: the plan will run. */
  | 'summary-not-done'
  /** A `<verify>` command with a path on its author's machine that is not in the repository. */
  | 'machine-path'
  /** A `<verify>` command whose status says nothing (an echo's, a display trim's): no check made. */
  | 'vacuous-verify'
  /** Words of a `<verify>` that are no command and no exact form: reported, never guessed into a check. */
  | 'unchecked-verify'
  /** A document in a phase folder that is not a plan: kept beside the phase's plans, not run. */
  | 'phase-document'
  /** A phase directory that ROADMAP.md does not list; added from its directory name. */
  | 'phase-not-in-roadmap'
  /** ROADMAP.md lists the same phase twice; the first is kept. */
  | 'duplicate-phase'
  /** PROJECT.md or ROADMAP.md is missing, so part of the spec was generated. */
  | 'file-missing'
  /** Two GSD files would be written to the same place; the first is kept. */
  | 'target-conflict'
  /** The spec id given is not of the form SPC-001. */
  | 'spec-id'
  /** A GSD document names a GSD file that was not imported: the name is left as it is. */
  | 'reference-not-imported'
  /** A plan's @-include of a file on its author's machine, outside the repository: the line is dropped. */
  | 'machine-include';

/** A problem found while importing; `file` is relative to the GSD `.planning/` directory. */
export type ImportProblem = Problem<ImportProblemCode>;

export const importProblem = problem<ImportProblemCode>;
