import { parseWith, type ParsedDocument, type ParseOptions } from '../../core/documents/parse-with.js';
import { capsuleRules } from './capsule.js';
import { geneRules } from './gene.js';
import { lessonRules } from './lesson.js';
import type { Capsule, Decision, Experiment, Gene, Hypothesis, Lesson, Signal, Skill } from './schema.js';
import { signalRules } from './signal.js';
import { skillRules } from './skill.js';
import { decisionRules, experimentRules, hypothesisRules } from './spike.js';

/** What each knowledge document's frontmatter parses to. */
export interface KnowledgeTypes {
  signal: Signal;
  hypothesis: Hypothesis;
  experiment: Experiment;
  decision: Decision;
  lesson: Lesson;
  skill: Skill;
  gene: Gene;
  capsule: Capsule;
}
export type KnowledgeKind = keyof KnowledgeTypes;

type Parser<T> = (file: string, text: string, options?: ParseOptions) => ParsedDocument<T>;

const PARSERS: { [K in KnowledgeKind]: Parser<KnowledgeTypes[K]> } = {
  signal: (file, text, options) => parseWith(signalRules, file, text, options),
  hypothesis: (file, text, options) => parseWith(hypothesisRules, file, text, options),
  experiment: (file, text, options) => parseWith(experimentRules, file, text, options),
  decision: (file, text, options) => parseWith(decisionRules, file, text, options),
  lesson: (file, text, options) => parseWith(lessonRules, file, text, options),
  skill: (file, text, options) => parseWith(skillRules, file, text, options),
  gene: (file, text, options) => parseWith(geneRules, file, text, options),
  capsule: (file, text, options) => parseWith(capsuleRules, file, text, options),
};

export const KNOWLEDGE_KINDS = Object.keys(PARSERS) as KnowledgeKind[];

export function isKnowledgeKind(kind: string): kind is KnowledgeKind {
  return Object.hasOwn(PARSERS, kind);
}

/** Parse and check one knowledge document; `file` is its path in the knowledge store. */
export function parseKnowledge<K extends KnowledgeKind>(kind: K, file: string, text: string, options: ParseOptions = {}): ParsedDocument<KnowledgeTypes[K]> {
  return (PARSERS[kind] as Parser<KnowledgeTypes[K]>)(file, text, options);
}
