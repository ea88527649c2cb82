import { isDocumentKind, parseDocument, type DocumentKind, type DocumentTypes, type ParsedDocument, type ParseOptions } from '../../core/documents/parse.js';
import { isKnowledgeKind, parseKnowledge, type KnowledgeKind, type KnowledgeTypes } from './parse.js';

/** Every document harness reads or writes: the spec's, a run's, and knowledge. */
export type AnyDocumentKind = DocumentKind | KnowledgeKind;
export type AnyDocumentTypes = DocumentTypes & KnowledgeTypes;

/** Each kind's template, relative to the package's templates/ directory. */
export const TEMPLATE_FILES: Readonly<Record<AnyDocumentKind, string>> = {
  spec: 'SPEC.md',
  plan: 'PLAN.md',
  roadmap: 'ROADMAP.md',
  summary: 'SUMMARY.md',
  verification: 'VERIFICATION.md',
  status: 'STATUS.md',
  signal: 'signal.md',
  hypothesis: 'spike/HYPOTHESIS.md',
  experiment: 'spike/EXPERIMENT.md',
  decision: 'spike/DECISION.md',
  lesson: 'lesson.md',
  skill: 'skill/SKILL.md',
  gene: 'gene.md',
  capsule: 'capsule.md',
};

const BY_NAME: readonly [RegExp, AnyDocumentKind][] = [
  [/(?:^|\/)SPEC\.md$/, 'spec'],
  [/(?:^|\/)\d+-\d+-PLAN\.md$/, 'plan'],
  [/(?:^|\/)ROADMAP\.md$/, 'roadmap'],
  [/(?:^|\/)\d+-\d+-SUMMARY\.md$/, 'summary'],
  [/(?:^|\/)(?:FINAL-)?VERIFICATION\.md$/, 'verification'],
  [/(?:^|\/)STATUS\.md$/, 'status'],
  [/\.signal\.md$/, 'signal'],
  [/(?:^|\/)HYPOTHESIS\.md$/, 'hypothesis'],
  [/(?:^|\/)EXPERIMENT\.md$/, 'experiment'],
  [/(?:^|\/)DECISION\.md$/, 'decision'],
  [/\.lesson\.md$/, 'lesson'],
  [/(?:^|\/)SKILL\.md$/, 'skill'],
  [/\.gene\.md$/, 'gene'],
  [/\.capsule\.md$/, 'capsule'],
];

/** The kind of document a path names by the layout's conventions, or undefined. */
export function documentKindOf(path: string): AnyDocumentKind | undefined {
  return BY_NAME.find(([pattern]) => pattern.test(path))?.[1];
}

/**
 * Parse and check any harness document. Problems read `file:line: message` with the line of
 * the offending key; `data` is present when the frontmatter matched its schema. Spec
 * documents are checked one by one here; loadSpec checks them together (dependencies,
 * phases, cycles).
 */
export function parseAnyDocument<K extends AnyDocumentKind>(
  kind: K,
  file: string,
  text: string,
  options: ParseOptions = {},
): ParsedDocument<AnyDocumentTypes[K]> {
  if (isKnowledgeKind(kind)) return parseKnowledge(kind, file, text, options) as unknown as ParsedDocument<AnyDocumentTypes[K]>;
  if (isDocumentKind(kind)) return parseDocument(kind, file, text, options) as unknown as ParsedDocument<AnyDocumentTypes[K]>;
  throw new TypeError(`unknown document kind "${String(kind)}"`);
}
