import type { Checkpoint, OrchestratorMessage } from '../protocol/messages.js';

/**
 * What a checkpoint's answer means to an agent. Every answer becomes one string, so that steps
 * read it the same way whatever the kind: the decision itself, "passed" for a verification a
 * person accepted, the person's note (or "done") for an action they completed.
 */

export type Answer = { ok: true; answer: string } | { ok: false; error: string; aborted: boolean };

export const VERIFICATION_PASSED = 'passed';
export const ACTION_DONE = 'done';

export function answerOf(checkpoint: Checkpoint, response: OrchestratorMessage): Answer {
  if (response.type === 'abort_task') return { ok: false, aborted: true, error: `aborted at checkpoint "${checkpoint.id}": ${response.reason}` };
  if (response.type === 'assign_task') {
    return { ok: false, aborted: false, error: `checkpoint "${checkpoint.id}" was answered with assign_task, which answers nothing` };
  }
  if (response.checkpoint !== checkpoint.id) {
    return { ok: false, aborted: false, error: `the answer is for checkpoint "${response.checkpoint}", but the worker waits at "${checkpoint.id}"` };
  }
  const expected = { decision: 'decision_made', verification: 'verification_result', action: 'action_completed' }[checkpoint.kind];
  if (response.type !== expected) {
    return { ok: false, aborted: false, error: `checkpoint "${checkpoint.id}" (${checkpoint.kind}) needs ${expected}, got ${response.type}` };
  }
  switch (response.type) {
    case 'decision_made':
      return { ok: true, answer: response.answer };
    case 'verification_result':
      return response.passed
        ? { ok: true, answer: VERIFICATION_PASSED }
        : { ok: false, aborted: false, error: `verification "${checkpoint.id}" did not pass${response.details ? `: ${response.details}` : ''}` };
    case 'action_completed':
      return { ok: true, answer: response.note?.trim() || ACTION_DONE };
  }
}

/** The response that gave `answer` to a checkpoint: how a recorded answer is replayed to an agent that asks again. */
export function responseFor(checkpoint: Checkpoint, answer: string, session: string, at: string): OrchestratorMessage {
  switch (checkpoint.kind) {
    case 'decision':
      return { session, at, type: 'decision_made', checkpoint: checkpoint.id, answer };
    case 'verification':
      return { session, at, type: 'verification_result', checkpoint: checkpoint.id, passed: answer === VERIFICATION_PASSED };
    case 'action':
      return { session, at, type: 'action_completed', checkpoint: checkpoint.id, note: answer };
  }
}

/** HARNESS_ANSWER_<ID>: the id upper-cased, anything but letters and digits as "_". */
export function answerEnvName(id: string): string {
  return `HARNESS_ANSWER_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

export function answersEnv(answers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(answers).map(([id, answer]) => [answerEnvName(id), answer]));
}
