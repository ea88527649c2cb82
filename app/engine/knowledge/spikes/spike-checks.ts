import { findSection, sections } from '../../core/documents/sections.js';
import { problem, type Problem } from '../../core/spec/problem.js';
import { parseKnowledge, type KnowledgeTypes } from '../documents/parse.js';
import type { Decision, Experiment, Hypothesis } from '../documents/schema.js';
import { setFrontmatter } from '../documents/set-frontmatter.js';
import { SPIKE_FILES, spikeFile } from './spike-files.js';

/**
 * What makes a spike's records acceptable at the end of each stage (docs/design.md,
 * Knowledge). The agent writes them; harness owns the keys that say which spike it is and
 * when things happened, and sets them itself before checking the rest, so that an agent's slip
 * on a date is corrected rather than fatal, and what the agent decides is checked strictly.
 */

/** Who the spike is, as its question was recorded when it was opened (HYPOTHESIS.md). */
export interface SpikeIdentity {
  slug: string;
  project: string;
  spec?: string;
  question: string;
  /** When the question was asked. */
  created: string;
}

type SpikeKind = 'hypothesis' | 'experiment' | 'decision';

/** One record, with harness's keys set and its checks run. */
interface Checked<K extends SpikeKind> {
  path: string;
  /** The text to keep: the agent's, with harness's keys set; undefined when the file is missing. */
  text?: string;
  data?: KnowledgeTypes[K];
  body?: string;
  bodyLine?: number;
  problems: Problem[];
}

const PLACEHOLDER = /(?<!\$)\{\{\s*[A-Za-z][A-Za-z0-9_.-]*\s*\}\}/;

function checkRecord<K extends SpikeKind>(kind: K, path: string, text: string | undefined, values: Record<string, unknown>): Checked<K> {
  if (text === undefined)
    return {
      path,
      problems: [problem(path, 1, 'field-missing', `${path} is missing; write it (see templates/spike/${path.slice(path.lastIndexOf('/') + 1)})`)],
    };
  const edited = setFrontmatter(path, text, values);
  if (!edited.ok) return { path, text, problems: [edited.problem] };
  const parsed = parseKnowledge(kind, path, edited.text);
  const problems = parsed.problems.filter((p) => p.severity === 'error');
  if (parsed.body !== undefined) {
    const at = parsed.body.split('\n').findIndex((l) => PLACEHOLDER.test(l));
    if (at !== -1) {
      const found = PLACEHOLDER.exec(parsed.body.split('\n')[at]!)![0];
      problems.push(
        problem(
          path,
          (parsed.bodyLine ?? 1) + at,
          'field-value',
          `the template placeholder ${found} is still there; replace it with what belongs in that section`,
        ),
      );
    }
  }
  const out: Checked<K> = { path, text: edited.text, problems };
  if (parsed.data !== undefined && problems.length === 0) out.data = parsed.data;
  if (parsed.body !== undefined) out.body = parsed.body;
  if (parsed.bodyLine !== undefined) out.bodyLine = parsed.bodyLine;
  return out;
}

function lineOfKey(text: string | undefined, key: string): number {
  const index = (text ?? '').split('\n').findIndex((l) => l.startsWith(`${key}:`));
  return index === -1 ? 1 : index + 1;
}

/** The spike's identity and the keys every record of it carries. */
function identityKeys(identity: SpikeIdentity): Record<string, unknown> {
  return { spike: identity.slug, project: identity.project, spec: identity.spec };
}

/** The question's record (HYPOTHESIS.md as the spike was opened with it), read back into who the spike is. */
export function readSpikeIdentity(
  folder: string,
  text: string | undefined,
): { ok: true; identity: SpikeIdentity; status: Hypothesis['status'] } | { ok: false; problems: Problem[] } {
  const path = spikeFile(folder, SPIKE_FILES.hypothesis);
  if (text === undefined) {
    return {
      ok: false,
      problems: [
        problem(
          path,
          1,
          'field-missing',
          `${path} is missing: a spike starts from its question, recorded there when it is opened (harness spike "<question>", or /harness spike)`,
        ),
      ],
    };
  }
  const parsed = parseKnowledge('hypothesis', path, text);
  const errors = parsed.problems.filter((p) => p.severity === 'error');
  if (!parsed.data || errors.length > 0) return { ok: false, problems: errors };
  const { spike, project, spec, question, created, status } = parsed.data;
  return { ok: true, identity: { slug: spike, project, ...(spec === undefined ? {} : { spec }), question, created }, status };
}

export interface DesignInput {
  folder: string;
  identity: SpikeIdentity;
  hypothesis: string | undefined;
  experiment: string | undefined;
  /** When the design was accepted: the experiment's planned start. */
  now: string;
  /** The longest time box a spike may ask for. */
  maxMinutes: number;
}

export interface DesignResult {
  hypothesis: Checked<'hypothesis'>;
  experiment: Checked<'experiment'>;
  problems: Problem[];
}

/** The design stage's records: the hypothesis (now `running`) and the experiment that tests it. */
export function checkSpikeDesign(input: DesignInput): DesignResult {
  const { folder, identity } = input;
  const hypothesis = checkRecord('hypothesis', spikeFile(folder, SPIKE_FILES.hypothesis), input.hypothesis, {
    ...identityKeys(identity),
    question: identity.question,
    status: 'running',
    created: identity.created,
  });
  const experiment = checkRecord('experiment', spikeFile(folder, SPIKE_FILES.experiment), input.experiment, {
    ...identityKeys(identity),
    started: input.now,
    finished: undefined,
  });
  if (experiment.data && experiment.data.time_box_minutes > input.maxMinutes) {
    experiment.problems.push(
      problem(
        experiment.path,
        lineOfKey(experiment.text, 'time_box_minutes'),
        'field-value',
        `time_box_minutes is ${experiment.data.time_box_minutes}, more than a spike may run (${input.maxMinutes}); plan a smaller experiment that fits`,
      ),
    );
    delete experiment.data;
  }
  return { hypothesis, experiment, problems: [...hypothesis.problems, ...experiment.problems] };
}

export interface DecisionInput {
  folder: string;
  identity: SpikeIdentity;
  hypothesis: string | undefined;
  experiment: string | undefined;
  decision: string | undefined;
  /** Files under results/, as committed. */
  results: readonly string[];
  /** When the experiment started and ended. */
  started: string;
  now: string;
}

export interface DecisionResult {
  hypothesis: Checked<'hypothesis'>;
  experiment: Checked<'experiment'>;
  decision: Checked<'decision'>;
  problems: Problem[];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The run stage's records: the experiment with its results against every criterion, raw
 * output in results/, and the decision; the hypothesis is then `concluded`.
 */
export function checkSpikeDecision(input: DecisionInput): DecisionResult {
  const { folder, identity } = input;
  const hypothesis = checkRecord('hypothesis', spikeFile(folder, SPIKE_FILES.hypothesis), input.hypothesis, {
    ...identityKeys(identity),
    question: identity.question,
    status: 'concluded',
    created: identity.created,
  });
  const experiment = checkRecord('experiment', spikeFile(folder, SPIKE_FILES.experiment), input.experiment, {
    ...identityKeys(identity),
    started: input.started,
    finished: input.now,
  });
  const decision = checkRecord('decision', spikeFile(folder, SPIKE_FILES.decision), input.decision, { ...identityKeys(identity), decided: input.now });

  if (experiment.data && experiment.body !== undefined) {
    const results = findSection(sections(experiment.body, experiment.bodyLine ?? 1), 'Results');
    if (results) {
      for (const c of experiment.data.criteria) {
        if (!new RegExp(`(^|[^A-Za-z0-9_.-])${escape(c.id)}([^A-Za-z0-9_.-]|$)`).test(results.content)) {
          experiment.problems.push(
            problem(
              experiment.path,
              results.line,
              'field-value',
              `"## Results" does not report the criterion "${c.id}" (${c.measure}): give what was measured against its target, ${c.target}`,
            ),
          );
        }
      }
    }
  }
  const resultsDir = spikeFile(folder, SPIKE_FILES.results);
  if (input.results.length === 0) {
    decision.problems.push(
      problem(
        resultsDir,
        1,
        'field-missing',
        `${resultsDir}/ holds no file: save the experiment's raw output there (logs, measurements), which the evidence cites`,
      ),
    );
  }
  return { hypothesis, experiment, decision, problems: [...hypothesis.problems, ...experiment.problems, ...decision.problems] };
}

export type { Decision, Experiment, Hypothesis };
