import type { z } from 'zod';
import type { PlanReading } from '../spec/plan.js';
import { parseFrontmatter, type LineMap } from '../spec/frontmatter.js';
import { problem, sortProblems, type Problem } from '../spec/problem.js';
import { COMMON_HINTS } from './fields.js';
import { schemaProblems } from './schema-problems.js';
import { requireSections } from './sections.js';

export interface ParsedDocument<T> {
  /** The frontmatter, checked and with defaults filled; present when it matched its schema. */
  data?: T;
  /** The Markdown after the frontmatter, and the file line it starts on. */
  body?: string;
  bodyLine?: number;
  /** Every problem as `file:line: message`; the document is usable when none is an error. */
  problems: Problem[];
}

export interface ParseOptions {
  /**
   * The folder the document lives in, for the kinds whose name must equal it (a skill's
   * folder, a spike's folder, a lesson's category). Without it, the folder is read from
   * `file` when the path follows the knowledge layout, and not checked otherwise.
   */
  folder?: string;
  /** A plan's phase ("03"); without it, taken from the file name or the plan id. */
  phase?: string;
  /** The plan forms read besides harness's own (importers/dialects.ts PLAN_READING). */
  reading?: PlanReading;
}

export interface DocumentContext<T> {
  file: string;
  data: T;
  lines: LineMap;
  body: string;
  bodyLine: number;
  options: ParseOptions;
}

/** What makes one kind of document valid: its schema, its body, its cross-field rules. */
export interface DocumentRules<S extends z.ZodType> {
  schema: S;
  /** The template a person copies from, named in messages. */
  template: string;
  hints?: Readonly<Record<string, string>>;
  /** "## " sections the body must have, each with something under it. */
  sections?: readonly string[];
  /** Checks across fields and against the body, run once the schema has passed. */
  check?: (doc: DocumentContext<z.output<S>>) => Problem[];
}

/** Parse one document against its rules: frontmatter, schema, body sections, cross-field checks. */
export function parseWith<S extends z.ZodType>(rules: DocumentRules<S>, file: string, input: string, options: ParseOptions = {}): ParsedDocument<z.output<S>> {
  const text = (input.charCodeAt(0) === 0xfeff ? input.slice(1) : input).replace(/\r\n?/g, '\n');
  if (text.trim() === '') {
    return { problems: [problem(file, 1, 'file-empty', `file is empty; fill it in from ${rules.template}`)] };
  }
  const fm = parseFrontmatter(file, text);
  if (!fm.ok) return { problems: fm.problems };
  const { data: raw, lines, body, bodyLine } = fm.frontmatter;
  const problems: Problem[] = [];
  if (rules.sections) problems.push(...requireSections(file, body, bodyLine, rules.sections, rules.template));
  const parsed = rules.schema.safeParse(raw);
  if (!parsed.success) {
    const hints = { ...COMMON_HINTS, ...rules.hints };
    return { body, bodyLine, problems: sortProblems([...schemaProblems(file, rules.schema, parsed.error, raw, lines, hints), ...problems]) };
  }
  const data = parsed.data as z.output<S>;
  if (rules.check) problems.push(...rules.check({ file, data, lines, body, bodyLine, options }));
  return { data, body, bodyLine, problems: sortProblems(problems) };
}
