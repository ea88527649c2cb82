/**
 * A problem found in a spec: where it is, how bad it is, and what to do about it.
 * Messages are written for the person who has to fix the file.
 */
export type Severity = 'error' | 'warning';

/** Stable codes: scripts reading `harness validate --json` match on these. */
export type ProblemCode =
  | 'spec-missing'
  | 'not-a-spec'
  | 'file-empty'
  | 'file-too-large'
  | 'not-utf8'
  | 'frontmatter-missing'
  | 'frontmatter-unclosed'
  | 'frontmatter-language'
  | 'too-deep'
  | 'symlink'
  | 'control-character'
  | 'yaml'
  | 'field-missing'
  | 'field-type'
  | 'field-value'
  | 'field-unknown'
  | 'field-ignored'
  | 'plan-location'
  | 'duplicate-plan'
  | 'duplicate-check'
  | 'duplicate-phase'
  | 'unknown-dependency'
  | 'self-dependency'
  | 'cycle'
  | 'later-phase-dependency'
  | 'path-outside-repo'
  | 'unknown-check-type'
  | 'vacuous-plan'
  | 'needs-server'
  | 'phase-unknown'
  | 'phase-empty'
  | 'too-many-plans'
  /** A skill's fix about an error whose lesson says that fix went stale since (knowledge, surfacing). */
  | 'superseded-fix';

/** `C`: the stable codes of whoever reports it (validation's ProblemCode by default; import has its own). */
export interface Problem<C extends string = ProblemCode> {
  /** Path relative to the spec directory, with forward slashes. */
  file: string;
  /** 1-based line; the line of the offending key where there is one. */
  line: number;
  severity: Severity;
  code: C;
  message: string;
}

export function problem<C extends string = ProblemCode>(file: string, line: number, code: C, message: string, severity: Severity = 'error'): Problem<C> {
  return { file, line, code, message, severity };
}

/** `path:line: message`, the form editors and CI logs turn into links. */
export function formatProblem(p: Problem, prefix = ''): string {
  const file = prefix ? `${prefix.replace(/\/+$/, '')}/${p.file}` : p.file;
  const tag = p.severity === 'warning' ? 'warning: ' : '';
  return `${oneLine(file)}:${p.line}: ${tag}${oneLine(p.message)}`;
}

// eslint-disable-next-line no-control-regex
const LINE_BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * Text that must stay on its line (a path, a message, an id in a verdict) with every control
 * character, line breaks and tabs included, shown as `\u000a`: a directory named with a
 * newline would otherwise print a line of its own, such as a forged verdict, before the real one.
 */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAKING, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function sortProblems(problems: Problem[]): Problem[] {
  return [...problems].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.message.localeCompare(b.message));
}

export function countErrors(problems: readonly Problem[]): number {
  return problems.filter((p) => p.severity === 'error').length;
}
