import { problem, type Problem } from '../../core/spec/problem.js';
import { agentOverridePath } from '../../core/agents/overrides.js';

/**
 * The spike agent's instructions (templates/agents/spike.md, or a repository's own
 * .github/harness/agents/spike.md): Markdown that harness hands to the agent as the plan of each
 * stage of a spike. What comes before the first stage heading is said at every stage; then
 * `## Design` (hypothesis and experiment) and `## Run` (results and decision). `{{name}}`
 * placeholders are filled by harness; HTML comments are notes for the people editing the file
 * and are not given to the agent.
 */

/** Where the instructions come from: the shipped ones (under templates/), unless the repository has its own. */
export const SPIKE_INSTRUCTIONS = { shipped: 'agents/spike.md', override: agentOverridePath('spike') } as const;

export const SPIKE_STAGES = ['design', 'run'] as const;
export type SpikeStage = (typeof SPIKE_STAGES)[number];

const HEADING: Readonly<Record<SpikeStage, string>> = { design: 'Design', run: 'Run' };

/** Filled at every stage. */
export const SPIKE_PLACEHOLDERS = [
  'question',
  'slug',
  'project',
  'spec',
  'folder',
  'now',
  'max_minutes',
  'hypothesis_template',
  'experiment_template',
  'decision_template',
] as const;
/** Known only once the experiment is designed: filled in `## Run` alone. */
export const RUN_PLACEHOLDERS = ['criteria', 'time_box'] as const;

export type SpikeValues = Record<(typeof SPIKE_PLACEHOLDERS)[number], string>;
export type RunValues = Record<(typeof RUN_PLACEHOLDERS)[number], string>;

export interface SpikeInstructions {
  /** Where they were read from, for messages. */
  file: string;
  preamble: string;
  stages: Readonly<Record<SpikeStage, string>>;
}

export type ParsedInstructions = { ok: true; instructions: SpikeInstructions } | { ok: false; problems: Problem[] };

/** `{{name}}`; `${{ … }}` (an Actions expression in a quoted workflow) is left alone. */
const PLACEHOLDER = /(?<!\$)\{\{\s*([A-Za-z][A-Za-z0-9_.-]*)\s*\}\}/g;
const HEADING_LINE = /^##[ \t]+(.+?)[ \t]*#*[ \t]*$/;
const FENCE = /^[ \t]{0,3}(```+|~~~+)/;

/** Comments out, their lines kept as blank lines so that line numbers still point at the file. */
function withoutComments(text: string): string {
  return text.replace(/<!--[\s\S]*?-->/g, (comment) => '\n'.repeat(comment.split('\n').length - 1));
}

function stageOf(title: string): SpikeStage | undefined {
  const t = title
    .toLowerCase()
    .replace(/[:.]+$/, '')
    .trim();
  return SPIKE_STAGES.find((s) => HEADING[s].toLowerCase() === t);
}

/** Read and check the instructions: both stages there once each, every placeholder one harness fills where it is used. */
export function parseSpikeInstructions(file: string, input: string): ParsedInstructions {
  const { starts, parts, problems } = readSections(file, input);
  problems.push(...missingStages(file, starts));
  if (problems.length > 0) return { ok: false, problems: problems.sort((a, b) => a.line - b.line) };
  for (const stage of SPIKE_STAGES) {
    if (tidy(parts[stage]) === '')
      return {
        ok: false,
        problems: [problem(file, starts.get(stage)!, 'field-value', `the section "## ${HEADING[stage]}" is empty; say what the agent does in this stage`)],
      };
  }
  return { ok: true, instructions: { file, preamble: tidy(parts.preamble), stages: { design: tidy(parts.design), run: tidy(parts.run) } } };
}

/** The file cut at its stage headings (outside code fences): each part's lines, where each stage starts, and what is wrong on the way. */
interface Sections {
  starts: Map<SpikeStage, number>;
  parts: Record<SpikeStage | 'preamble', string[]>;
  problems: Problem[];
}

function readSections(file: string, input: string): Sections {
  const lines = withoutComments(input.replace(/\r\n?/g, '\n')).split('\n');
  const read: Sections = { starts: new Map(), parts: { preamble: [], design: [], run: [] }, problems: [] };
  const { starts, parts, problems } = read;
  let fence: string | undefined;
  let current: SpikeStage | 'preamble' = 'preamble';
  lines.forEach((text, index) => {
    const line = index + 1;
    const f = FENCE.exec(text);
    if (f) {
      if (fence === undefined) fence = f[1]!;
      else if (f[1]![0] === fence[0] && f[1]!.length >= fence.length) fence = undefined;
    }
    const heading = fence === undefined && !f ? HEADING_LINE.exec(text) : null;
    const stage = heading ? stageOf(heading[1]!) : undefined;
    if (stage) {
      if (starts.has(stage))
        problems.push(
          problem(file, line, 'field-value', `"## ${HEADING[stage]}" appears a second time (first on line ${starts.get(stage)}); keep one section per stage`),
        );
      else starts.set(stage, line);
      current = stage;
      return;
    }
    problems.push(...placeholderProblems(file, line, text, current));
    parts[current].push(text);
  });
  return read;
}

/** A line's placeholders that harness does not fill, or not in the section they are in. */
function placeholderProblems(file: string, line: number, text: string, section: SpikeStage | 'preamble'): Problem[] {
  const problems: Problem[] = [];
  for (const m of text.matchAll(PLACEHOLDER)) {
    const name = m[1]!;
    if ((RUN_PLACEHOLDERS as readonly string[]).includes(name)) {
      if (section !== 'run')
        problems.push(problem(file, line, 'field-value', `{{${name}}} is known only when the experiment has been designed: use it under "## Run"`));
    } else if (!(SPIKE_PLACEHOLDERS as readonly string[]).includes(name)) {
      const known = [...SPIKE_PLACEHOLDERS, ...RUN_PLACEHOLDERS].map((p) => `{{${p}}}`).join(', ');
      problems.push(problem(file, line, 'field-value', `{{${name}}} is not a placeholder harness fills; the known ones are ${known}`));
    }
  }
  return problems;
}

function missingStages(file: string, starts: ReadonlyMap<SpikeStage, number>): Problem[] {
  return SPIKE_STAGES.filter((stage) => !starts.has(stage)).map((stage) =>
    problem(
      file,
      1,
      'field-missing',
      `no "## ${HEADING[stage]}" section: it holds what the agent does in the ${stage} stage of a spike (see templates/agents/spike.md)`,
    ),
  );
}

/** A part's lines as one text: no run of blank lines, nothing around it. */
function tidy(part: string[]): string {
  return part
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * One stage's instructions, filled in: the preamble, then the stage under its heading. The
 * values are inserted as they are, so text in them that looks like a placeholder stays text.
 */
export function renderSpikeStage(instructions: SpikeInstructions, stage: SpikeStage, values: SpikeValues & Partial<RunValues>): string {
  const text = [instructions.preamble, `## ${HEADING[stage]}\n\n${instructions.stages[stage]}`].filter((p) => p !== '').join('\n\n');
  const all: Record<string, string | undefined> = values;
  return `${text.replace(PLACEHOLDER, (whole, name: string) => all[name] ?? whole)}\n`;
}
