import { CHECKPOINT_TYPES, type CheckpointType } from '../protocol/messages.js';

/**
 * The work a plan's body lays out, in order: shell blocks marked as steps
 * (```sh step <title>) and checkpoints (```checkpoint <kind> <title>) between them.
 *
 * A checkpoint's body is the question for a person; three optional lines are read out of it:
 *
 *     ```checkpoint decision Storage backend
 *     Which store should the service use by default?
 *     options: memory, file
 *     default: memory
 *     id: storage
 *     ```
 *
 * `default:` is what an autonomous plan takes without asking; `id:` names the answer for later
 * steps (HARNESS_ANSWER_STORAGE) and defaults to the title as a slug. Steps are found exactly as
 * parseSteps (spec/plan.ts) finds them, so `plan.steps` and the steps here always agree.
 */

export interface StepTask {
  kind: 'step';
  /** 1-based among the plan's steps: the k of `Task: k/n`. */
  index: number;
  title: string;
  lang: string;
  script: string;
  /** File line of the opening fence. */
  line: number;
}

export interface CheckpointTask {
  kind: 'checkpoint';
  /** Stable within the plan: names the answer (HARNESS_ANSWER_<ID>) and the record that it was given. */
  id: string;
  type: CheckpointType;
  title: string;
  prompt: string;
  options?: string[];
  default?: string;
  line: number;
}

export type PlanTask = StepTask | CheckpointTask;

export interface TaskProblem {
  line: number;
  message: string;
}

export interface PlanTasks {
  tasks: PlanTask[];
  steps: StepTask[];
  checkpoints: CheckpointTask[];
  problems: TaskProblem[];
}

const STEP_FENCE = /^(```+|~~~+)[ \t]*([A-Za-z0-9_+-]+)[ \t]+step\b[ \t]*(.*)$/;
const CHECKPOINT_FENCE = /^(```+|~~~+)[ \t]*checkpoint\b[ \t]*(.*)$/;
const FIELD = /^(options|default|id):[ \t]*(.*)$/i;
const CHECKPOINT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export function parsePlanTasks(body: string, bodyLine: number): PlanTasks {
  const tasks: PlanTask[] = [];
  const problems: TaskProblem[] = [];
  const usedIds = new Set<string>();
  const lines = body.split('\n');
  let stepCount = 0;
  let checkpointCount = 0;
  for (let i = 0; i < lines.length; i++) {
    const checkpoint = CHECKPOINT_FENCE.exec(lines[i]!);
    const step = checkpoint ? undefined : STEP_FENCE.exec(lines[i]!);
    const open = checkpoint ?? step;
    if (!open) continue;
    const fence = open[1]!;
    const closing = fence[0]!.repeat(fence.length);
    const content: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.startsWith(closing)) content.push(lines[j++]!);
    const line = bodyLine + i;
    if (j >= lines.length) problems.push({ line, message: `the block opened here is never closed with ${closing}` });
    if (step) {
      stepCount++;
      tasks.push({ kind: 'step', index: stepCount, title: step[3]!.trim() || `Step ${stepCount}`, lang: step[2]!, script: content.join('\n'), line });
    } else {
      checkpointCount++;
      const parsed = parseCheckpoint(checkpoint![2]!, content, line, checkpointCount, usedIds, problems);
      if (parsed) tasks.push(parsed);
    }
    i = j;
  }
  const steps = tasks.filter((t): t is StepTask => t.kind === 'step');
  const checkpoints = tasks.filter((t): t is CheckpointTask => t.kind === 'checkpoint');
  return { tasks, steps, checkpoints, problems };
}

function parseCheckpoint(info: string, content: string[], line: number, n: number, usedIds: Set<string>, problems: TaskProblem[]): CheckpointTask | undefined {
  const [kindWord = '', ...titleWords] = info.trim().split(/\s+/);
  if (!(CHECKPOINT_TYPES as readonly string[]).includes(kindWord)) {
    problems.push({
      line,
      message: `checkpoint kind "${kindWord}" is not one of ${CHECKPOINT_TYPES.join(', ')}: write \`\`\`checkpoint decision <title>`,
    });
    return undefined;
  }
  const title = titleWords.join(' ').trim() || `Checkpoint ${n}`;
  const fields: Record<string, string> = {};
  const prompt: string[] = [];
  for (const text of content) {
    const field = FIELD.exec(text.trim());
    if (field) fields[field[1]!.toLowerCase()] = field[2]!.trim();
    else prompt.push(text);
  }
  const options = fields.options
    ?.split(',')
    .map((o) => o.trim())
    .filter((o) => o.length > 0);
  let id = fields.id ?? (slug(title) || `checkpoint-${n}`);
  if (fields.id !== undefined && !CHECKPOINT_ID.test(fields.id)) {
    problems.push({ line, message: `checkpoint id "${fields.id}" may hold only letters, digits, "_", "." and "-"` });
  }
  if (usedIds.has(id)) {
    if (fields.id !== undefined) problems.push({ line, message: `checkpoint id "${id}" is already used by an earlier checkpoint` });
    // Titles may repeat; the answer of each must still have its own name.
    let k = 2;
    while (usedIds.has(`${id}-${k}`)) k++;
    id = `${id}-${k}`;
  }
  usedIds.add(id);
  const task: CheckpointTask = {
    kind: 'checkpoint',
    id,
    type: kindWord as CheckpointType,
    title,
    prompt: prompt.join('\n').trim() || title,
    line,
  };
  if (options && options.length > 0) task.options = options;
  if (fields.default !== undefined && fields.default !== '') {
    task.default = fields.default;
    if (task.options && !task.options.includes(task.default)) {
      problems.push({ line, message: `checkpoint "${id}": default "${task.default}" is not one of its options (${task.options.join(', ')})` });
    }
  }
  return task;
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
}
