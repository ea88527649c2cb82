import type { Checkpoint } from '../protocol/messages.js';
import type { HumanCheck } from '../spec/model.js';

/**
 * A human check is not run: it becomes a verification checkpoint a person answers, with the
 * check's prompt. The checkpoint id is the check id so the answer finds its way back.
 */
export function humanCheckpoint(check: HumanCheck, plan?: string): Checkpoint {
  const what = check.kind === 'visual_quality' ? 'Visual quality' : 'UX flow';
  return {
    id: plan === undefined ? check.id : `${plan}/${check.id}`,
    kind: 'verification',
    prompt: `${what}: ${check.prompt}`,
    options: ['pass', 'fail'],
    source: check.id,
  };
}
