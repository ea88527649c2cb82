import type { Check, Plan, Spec } from '../core/spec/model.js';
import { LineMap } from '../core/spec/frontmatter.js';
import { renderStage, type AgentPrompt } from './agent-prompt.js';
import { planningWords, type PlanningCommand } from './planning-command.js';
import type { PlanningStage } from './planning-steps.js';

/** A planning stage's time limit: one agent session, as every plan is. */
export const PLANNING_STAGE_MINUTES = 30;

export interface PlanningBriefInput {
  command: PlanningCommand;
  stage: PlanningStage;
  prompt: AgentPrompt;
  /** The spec as it stands (undefined when even SPEC.md does not load). */
  spec: Spec | undefined;
  specId: string;
  /** The spec directory, repository-relative ("." for the root). */
  specDir: string;
  /** The problems of the first try, as `file:line: message`: this is the retry. */
  problems?: readonly string[];
  now: Date;
}

function join(dir: string, path: string): string {
  return dir === '.' || dir === '' ? path : `${dir.replace(/\/+$/, '')}/${path}`;
}

/** The placeholders a stage's instructions may use. */
export function planningValues(input: PlanningBriefInput): Record<string, string> {
  const { command, spec, specDir } = input;
  const phaseId = 'phase' in command ? command.phase : undefined;
  const phase = phaseId === undefined ? undefined : spec?.phases.find((p) => p.id === phaseId);
  const nextPhase = String((spec?.phases.reduce((n, p) => Math.max(n, p.number), 0) ?? 0) + 1).padStart(2, '0');
  return {
    spec: input.specId,
    spec_title: spec?.title ?? input.specId,
    spec_dir: specDir,
    command: planningWords(command),
    phase: phaseId ?? nextPhase,
    phase_title: phase?.title ?? '(not in the roadmap yet)',
    phase_goal: phase?.goal ?? '(none written)',
    phase_checks:
      phase && phase.mustPass.length > 0
        ? phase.mustPass.map((c) => `- \`${c.id}\` (${c.type})${c.description ? `: ${c.description}` : ''}`).join('\n')
        : '- (none yet)',
    goal: command.name === 'add-phase' ? command.goal : '',
    files: [...input.stage.writes, ...(input.stage.writesSome ? [input.stage.writesSome] : [])].map((f) => `- \`${join(specDir, f)}\``).join('\n'),
    now: input.now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

/**
 * One planning stage as the plan an agent is given: its brief is the instructions' preamble
 * and section, filled in, then what harness will check. Autonomous (nobody answers mid-stage:
 * a question belongs in the documents, for the person reviewing them), its files the documents
 * of the stage alone, its checks that they exist; the spec model judges them afterwards.
 */
export function planningStagePlan(input: PlanningBriefInput): Plan {
  const { stage, specDir } = input;
  const values = planningValues(input);
  const lines = [renderStage(input.prompt, stage.section, values).trim(), '', '## What harness checks before anything is committed', ''];
  lines.push(`Write ${stage.writes.length > 0 ? 'these files' : 'at least one file matching'} (paths from the repository root):`, values.files!);
  lines.push(
    '',
    `Anything you change outside ${stage.may.map((g) => `\`${join(specDir, g)}\``).join(', ')} is put back. ` +
      'When you finish, harness reads the whole spec with its own validator (the same as `harness validate`); ' +
      'a document it cannot read, or a plan or roadmap that does not validate, is not committed.',
  );
  if (input.problems && input.problems.length > 0) {
    lines.push(
      '',
      '## Your first try was refused',
      '',
      'What you wrote the first time was thrown away because of these problems. Write the documents again, and fix every one:',
      '',
      ...input.problems.map((p) => `- ${p}`),
    );
  }
  const mustPass: Check[] = stage.writes.map((path, i) => ({ id: `document-${i + 1}`, type: 'file_exists', path: join(specDir, path) }));
  return {
    id: input.problems && input.problems.length > 0 ? `${stage.id}-retry` : stage.id,
    title: `${input.specId}: ${stage.title}`,
    phase: '00',
    file: input.prompt.file,
    dependsOn: [],
    filesModified: stage.may.map((g) => join(specDir, g)),
    filesRead: [join(specDir, 'SPEC.md')],
    autonomous: true,
    checkpoints: [],
    timeoutMinutes: PLANNING_STAGE_MINUTES,
    mustPass,
    requirements: [],
    truths: [`the documents of \`${planningWords(input.command)}\` are written and pass harness's checks`],
    body: `${lines.join('\n')}\n`,
    bodyLine: 1,
    steps: [],
    format: 'harness',
    lines: new LineMap(1),
  };
}
