import type { DocumentKind } from './parse.js';

/** Each kind's template, relative to the package's templates/ directory. */
export const TEMPLATE_FILES: Readonly<Record<DocumentKind, string>> = {
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

const BY_NAME: readonly [RegExp, DocumentKind][] = [
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
export function documentKindOf(path: string): DocumentKind | undefined {
  return BY_NAME.find(([pattern]) => pattern.test(path))?.[1];
}
