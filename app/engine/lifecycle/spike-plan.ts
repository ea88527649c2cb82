import type { Check, Plan } from '../core/spec/model.js';
import { LineMap } from '../core/spec/frontmatter.js';
import type { SpikeStage } from '../knowledge/spikes/spike-instructions.js';
import { SPIKE_FILES, spikeFile } from '../knowledge/spikes/spike-files.js';

export interface SpikePlanInput {
  stage: SpikeStage;
  /** The second try of a stage, to fix what the first left wrong. */
  fix: boolean;
  question: string;
  folder: string;
  /** Where the instructions came from (the plan's `file`). */
  file: string;
  /** The stage's instructions, filled in. */
  body: string;
  timeoutMinutes: number;
}

const TITLE: Readonly<Record<SpikeStage, string>> = { design: 'Hypothesis and experiment', run: 'Results and decision' };

/**
 * One stage of a spike as the plan an agent is given: the same brief, commits and time limit
 * as any plan, its files the spike's folder alone, autonomous (nobody answers questions in
 * the middle of an experiment), and checks naming the records the stage must leave.
 */
export function spikeStagePlan(input: SpikePlanInput): Plan {
  const records = input.stage === 'design' ? [SPIKE_FILES.hypothesis, SPIKE_FILES.experiment] : [SPIKE_FILES.experiment, SPIKE_FILES.decision];
  const mustPass: Check[] = records.map((name) => ({ id: name.replace(/\.md$/, '').toLowerCase(), type: 'file_exists', path: spikeFile(input.folder, name) }));
  const truths =
    input.stage === 'design'
      ? [`${records.join(' and ')} in ${input.folder}/ are valid harness spike records for the question "${input.question}"`]
      : [
          `${input.folder}/results/ holds the raw output of the experiment`,
          `the Results of ${SPIKE_FILES.experiment} report every criterion, and ${SPIKE_FILES.decision} decides with that evidence`,
        ];
  return {
    id: input.fix ? `${input.stage}-fix` : input.stage,
    title: `${TITLE[input.stage]} for “${input.question}”`,
    phase: '00',
    file: input.file,
    dependsOn: [],
    filesModified: [`${input.folder}/**`],
    filesRead: [],
    autonomous: true,
    checkpoints: [],
    timeoutMinutes: input.timeoutMinutes,
    mustPass,
    requirements: [],
    truths,
    body: input.body,
    bodyLine: 1,
    steps: [],
    format: 'harness',
    lines: new LineMap(1),
  };
}
