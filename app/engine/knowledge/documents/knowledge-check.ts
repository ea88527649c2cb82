import { documentKindOf, parseAnyDocument } from './any-document.js';

/** The check run on every knowledge PR (docs/design.md, Names on GitHub). */
export const KNOWLEDGE_CHECK = 'harness / knowledge';

/** A file a knowledge PR changes, as the check reads it. */
export interface CheckedFile {
  /** Its path in the repository, for the annotation. */
  path: string;
  /** Its path in the store (`skills/x/SKILL.md`), for the layout's rules. */
  storePath: string;
  text: string;
  /** What the content-safety pass would take out: a secret, by rule and line. */
  redactions: readonly { rule: string; line: number }[];
}

export interface KnowledgeAnnotation {
  path: string;
  line: number;
  level: 'failure' | 'warning';
  title: string;
  message: string;
}

export interface KnowledgeCheckReport {
  conclusion: 'success' | 'failure';
  title: string;
  summary: string;
  annotations: KnowledgeAnnotation[];
}

const TRAJECTORY = /^trajectory\/\d{4}-\d{2}-\d{2}\.jsonl$/;
const INDEX = /^index\.md$/;

function trajectoryProblems(f: CheckedFile): KnowledgeAnnotation[] {
  const out: KnowledgeAnnotation[] = [];
  f.text.split('\n').forEach((line, i) => {
    if (!line.trim().startsWith('{')) return;
    try {
      const e = JSON.parse(line) as Record<string, unknown>;
      if (typeof e.type !== 'string' || typeof e.entry !== 'string' || typeof e.timestamp !== 'string') {
        out.push({
          path: f.path,
          line: i + 1,
          level: 'failure',
          title: 'trajectory line',
          message: 'a trajectory event needs "type", "entry" and "timestamp" (see app/engine/knowledge/trajectory.ts)',
        });
      }
    } catch {
      out.push({
        path: f.path,
        line: i + 1,
        level: 'failure',
        title: 'trajectory line',
        message: 'not valid JSON: a trajectory file holds one JSON object a line',
      });
    }
  });
  return out;
}

/**
 * The `harness / knowledge` check of a knowledge PR's changed files: each document against its
 * format and template (the frontmatter's schema, the required sections, a skill's folder), each
 * trajectory line as JSON, and each file against the content-safety pass (a secret a reviewer
 * would merge). Every problem is an annotation on its file and line, so that a person editing
 * the PR sees it where it is.
 */
export function knowledgeCheckReport(files: readonly CheckedFile[]): KnowledgeCheckReport {
  const annotations: KnowledgeAnnotation[] = [];
  let documents = 0;
  for (const f of files) {
    for (const r of f.redactions) {
      annotations.push({
        path: f.path,
        line: r.line,
        level: 'failure',
        title: 'secret',
        message: `a secret (${r.rule}) is on this line: remove it; knowledge is shared and kept in history`,
      });
    }
    if (TRAJECTORY.test(f.storePath)) {
      annotations.push(...trajectoryProblems(f));
      continue;
    }
    const kind = documentKindOf(f.storePath);
    if (kind === undefined) {
      if (!INDEX.test(f.storePath) && !/(?:^|\/)results\//.test(f.storePath)) {
        annotations.push({
          path: f.path,
          line: 1,
          level: 'warning',
          title: 'not a knowledge document',
          message: 'harness reads no file of this name here; see docs/design.md, Knowledge, for the layout',
        });
      }
      continue;
    }
    documents++;
    for (const p of parseAnyDocument(kind, f.storePath, f.text).problems) {
      annotations.push({ path: f.path, line: p.line, level: p.severity === 'error' ? 'failure' : 'warning', title: `${kind} format`, message: p.message });
    }
  }
  const failures = annotations.filter((a) => a.level === 'failure').length;
  const checked = `${files.length} file${files.length === 1 ? '' : 's'} (${documents} document${documents === 1 ? '' : 's'})`;
  return failures === 0
    ? {
        conclusion: 'success',
        title: `The knowledge is valid: ${checked}`,
        summary: `Every changed knowledge file follows its format and template, and holds no secret.${annotations.length > 0 ? ` ${annotations.length} warning${annotations.length === 1 ? '' : 's'} below.` : ''}`,
        annotations,
      }
    : {
        conclusion: 'failure',
        title: `${failures} problem${failures === 1 ? '' : 's'} in ${checked}`,
        summary: 'Fix each problem where it is annotated and push again; the check runs on every push.',
        annotations,
      };
}
