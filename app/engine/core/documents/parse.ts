import { parseFrontmatter } from '../spec/frontmatter.js';
import type { Plan } from '../spec/model.js';
import { parsePlan } from '../spec/plan.js';
import { sortProblems } from '../spec/problem.js';
import { parseRoadmap, type RoadmapPhase } from '../spec/roadmap.js';
import { SpecFrontmatterSchema } from '../spec/schema.js';
import { COMMON_HINTS } from './fields.js';
import { parseWith, type ParsedDocument, type ParseOptions } from './parse-with.js';
import { schemaProblems } from './schema-problems.js';
import type { Status, Summary, Verification } from './schema.js';
import { statusRules } from './status.js';
import { summaryRules } from './summary.js';
import { verificationRules } from './verification.js';

export type { ParsedDocument, ParseOptions } from './parse-with.js';

/** What each kind of spec or run document parses to (knowledge documents: knowledge/documents/parse.ts). */
export interface DocumentTypes {
  spec: { id: string; title: string; [key: string]: unknown };
  plan: Plan;
  roadmap: { phases: RoadmapPhase[] };
  summary: Summary;
  verification: Verification;
  status: Status;
}
export type DocumentKind = keyof DocumentTypes;

type Parser<T> = (file: string, text: string, options: ParseOptions) => ParsedDocument<T>;

const PARSERS: { [K in DocumentKind]: Parser<DocumentTypes[K]> } = {
  spec: parseSpecDocument,
  plan: parsePlanDocument,
  roadmap: parseRoadmapDocument,
  summary: (file, text, options) => parseWith(summaryRules, file, text, options),
  verification: (file, text, options) => parseWith(verificationRules, file, text, options),
  status: (file, text, options) => parseWith(statusRules, file, text, options),
};

export const DOCUMENT_KINDS = Object.keys(PARSERS) as DocumentKind[];

export function isDocumentKind(kind: string): kind is DocumentKind {
  return Object.hasOwn(PARSERS, kind);
}

/**
 * Parse and check a spec document or a document a run generates (every kind of document,
 * knowledge included: knowledge/documents/any-document.ts). Problems read `file:line: message` with the line of the offending key;
 * `data` is present when the frontmatter matched its schema (check `problems` for errors
 * found across fields and in the body). Spec documents are checked one by one here;
 * loadSpec checks them together (dependencies, phases, cycles).
 */
export function parseDocument<K extends DocumentKind>(kind: K, file: string, text: string, options: ParseOptions = {}): ParsedDocument<DocumentTypes[K]> {
  const parser = PARSERS[kind] as Parser<DocumentTypes[K]> | undefined;
  if (!parser) throw new TypeError(`unknown document kind "${String(kind)}"`);
  return parser(file, normalize(text), options);
}

function normalize(text: string): string {
  return (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n?/g, '\n');
}

function parseSpecDocument(file: string, text: string): ParsedDocument<DocumentTypes['spec']> {
  const fm = parseFrontmatter(file, text);
  if (!fm.ok) return { problems: fm.problems };
  const { data, lines, body, bodyLine } = fm.frontmatter;
  const parsed = SpecFrontmatterSchema.safeParse(data);
  if (!parsed.success) {
    const hints = { ...COMMON_HINTS, id: 'a spec id such as SPC-001: capital letters, "-", digits' };
    return { body, bodyLine, problems: schemaProblems(file, SpecFrontmatterSchema, parsed.error, data, lines, hints) };
  }
  return { data: parsed.data, body, bodyLine, problems: [] };
}

const PLAN_FILE_PHASE = /(?:^|\/)(\d{2,})-\d{2,}-PLAN\.md$/;
const PLAN_ID_LINE = /^plan_id:\s*["']?(\d{2,})-\d{2,}/m;

function parsePlanDocument(file: string, text: string, options: ParseOptions): ParsedDocument<Plan> {
  const phase = options.phase ?? PLAN_FILE_PHASE.exec(file)?.[1] ?? PLAN_ID_LINE.exec(text)?.[1] ?? '01';
  const parsed = parsePlan(file, text, phase, options.reading);
  const result: ParsedDocument<Plan> = { problems: sortProblems(parsed.problems) };
  if (parsed.plan) Object.assign(result, { data: parsed.plan, body: parsed.plan.body, bodyLine: parsed.plan.bodyLine });
  return result;
}

function parseRoadmapDocument(file: string, text: string): ParsedDocument<DocumentTypes['roadmap']> {
  const parsed = parseRoadmap(file, text);
  const result: ParsedDocument<DocumentTypes['roadmap']> = { data: { phases: parsed.phases }, problems: sortProblems(parsed.problems) };
  const fm = parseFrontmatter(file, text, false);
  if (fm.ok) Object.assign(result, { body: fm.frontmatter.body, bodyLine: fm.frontmatter.bodyLine });
  return result;
}
