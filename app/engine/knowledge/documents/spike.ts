import type { DocumentContext, DocumentRules } from '../../core/documents/parse-with.js';
import { problem, type Problem } from '../../core/spec/problem.js';
import { folderOf } from './folder.js';
import { SPIKE_HINTS } from './hints.js';
import { DecisionSchema, ExperimentSchema, HypothesisSchema } from './schema.js';

/** A spike's three records share its name, which is also its folder's. */
function checkFolder({ file, data, lines, options }: DocumentContext<{ spike: string }>): Problem[] {
  const folder = folderOf(file, options, 'spike');
  if (folder === undefined || folder === data.spike) return [];
  return [problem(file, lines.lineOf(['spike']), 'field-value', `spike is "${data.spike}" but the folder is "${folder}"; rename one so they match`)];
}

export const hypothesisRules: DocumentRules<typeof HypothesisSchema> = {
  schema: HypothesisSchema,
  template: 'templates/spike/HYPOTHESIS.md',
  hints: SPIKE_HINTS,
  sections: ['Hypothesis', 'Success criteria'],
  check: checkFolder,
};

export const experimentRules: DocumentRules<typeof ExperimentSchema> = {
  schema: ExperimentSchema,
  template: 'templates/spike/EXPERIMENT.md',
  hints: SPIKE_HINTS,
  sections: ['Setup', 'Procedure', 'Results'],
  check: (doc) => {
    const problems = checkFolder(doc);
    const { data, file, lines } = doc;
    if (data.finished !== undefined && Date.parse(data.finished) < Date.parse(data.started)) {
      problems.push(problem(file, lines.lineOf(['finished']), 'field-value', `finished (${data.finished}) is before started (${data.started})`));
    }
    const seen = new Set<string>();
    data.criteria.forEach((c, i) => {
      if (seen.has(c.id)) {
        problems.push(
          problem(file, lines.lineOf(['criteria', i, 'id']), 'field-value', `criteria[${i}]: id "${c.id}" is used twice; give each criterion its own id`),
        );
      }
      seen.add(c.id);
    });
    return problems;
  },
};

export const decisionRules: DocumentRules<typeof DecisionSchema> = {
  schema: DecisionSchema,
  template: 'templates/spike/DECISION.md',
  hints: SPIKE_HINTS,
  sections: ['Decision', 'Evidence', 'Consequences'],
  check: checkFolder,
};
