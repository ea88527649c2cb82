import type { DocumentContext, DocumentRules } from '../../core/documents/parse-with.js';
import { problem, type Problem } from '../../core/spec/problem.js';
import { GENE_HINTS } from './hints.js';
import { GeneSchema, type Gene } from './schema.js';

/** A gene: a reusable pattern with its track record; filed as genes/<id>.gene.md. */
export const geneRules: DocumentRules<typeof GeneSchema> = {
  schema: GeneSchema,
  template: 'templates/gene.md',
  hints: GENE_HINTS,
  sections: ['Content'],
  check: checkGene,
};

/** Knowledge files named after their id (`<id>.gene.md`) must carry that id. */
export function checkFileId(file: string, id: string, suffix: string, line: number): Problem[] {
  const base = file.slice(file.lastIndexOf('/') + 1);
  if (!base.endsWith(suffix)) return [];
  const named = base.slice(0, -suffix.length);
  return named === id ? [] : [problem(file, line, 'field-value', `id is "${id}" but the file is named ${base}; name it ${id}${suffix}`)];
}

function checkGene({ file, data, lines }: DocumentContext<Gene>): Problem[] {
  const problems = checkFileId(file, data.id, '.gene.md', lines.lineOf(['id']));
  if (Date.parse(data.updated) < Date.parse(data.created)) {
    problems.push(problem(file, lines.lineOf(['updated']), 'field-value', `updated (${data.updated}) is before created (${data.created})`));
  }
  return problems;
}
