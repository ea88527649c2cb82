import { LABEL_KNOWLEDGE } from './names.js';

/** The knowledge store inside the repository (docs/design.md, Knowledge). */
export const KNOWLEDGE_ROOT = '.harness/knowledge';

export type KnowledgeKind = 'signal' | 'spike' | 'lesson' | 'skill' | 'gene';

/** `harness/knowledge/<kind>/<slug>`: one branch per piece of knowledge, so that asking twice finds it. */
export function knowledgeBranch(kind: KnowledgeKind, slug: string): string {
  return `harness/knowledge/${kind}/${slug}`;
}

/** A project name as the knowledge layout's folder rule has it (`segment`): a repository name mostly is one already. */
export function projectName(repo: string): string {
  const cleaned = repo.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return (cleaned === '' ? 'project' : cleaned).slice(0, 100);
}

/** A knowledge PR as harness wants it: one branch, one commit of these files, one PR with these labels. */
export interface KnowledgeDraft {
  kind: KnowledgeKind;
  slug: string;
  branch: string;
  files: { path: string; content: string }[];
  /** Files the PR removes (a gene decayed out of the store). */
  deletions?: string[];
  commitMessage: string;
  title: string;
  body: string;
  labels: string[];
}

export function knowledgeLabels(kind: KnowledgeKind): string[] {
  return [LABEL_KNOWLEDGE, kind];
}
