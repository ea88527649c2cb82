import { problem, type Problem } from '../../core/spec/problem.js';

/** Stable codes: scripts reading `harness import --json` match on these. */
export type ImportProblemCode =
  /** Nothing in the directory looks like GSD's `.planning/`. */
  | 'not-gsd'
  /** An inserted phase such as 02.1: harness phases are whole numbers. */
  | 'decimal-phase'
  /** A phase directory that ROADMAP.md does not list; added from its directory name. */
  | 'phase-not-in-roadmap'
  /** ROADMAP.md lists the same phase twice; the first is kept. */
  | 'duplicate-phase'
  /** PROJECT.md or ROADMAP.md is missing, so part of the spec was generated. */
  | 'file-missing'
  /** Two GSD files would be written to the same place; the first is kept. */
  | 'target-conflict'
  /** The spec id given is not of the form SPC-001. */
  | 'spec-id';

/** A problem found while importing; `file` is relative to the GSD `.planning/` directory. */
export type ImportProblem = Problem<ImportProblemCode>;

export const importProblem = problem<ImportProblemCode>;
