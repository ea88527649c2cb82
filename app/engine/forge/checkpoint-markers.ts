/**
 * The markers that tie a checkpoint's question to its answer on a plan issue
 * (docs/github-flow.md, 4 and 7). The worker writes the question, the App the answer; each
 * marker counts only at the very start of a comment, so a marker quoted further down (in a
 * question, say) is neither a question nor an answer.
 */
/** The checkpoint a worker stops at when the model's rate or usage limit is hit; `continue` answers it. */
export const USAGE_LIMIT_CHECKPOINT = 'usage-limit';

const CHECKPOINT = /^\s*<!-- harness:checkpoint (\S+) (\S+) -->/;
const ANSWER = /^\s*<!-- harness:answer (\S+) (\S+) -->[ \t]*\n?/;

export function checkpointMarker(plan: string, checkpoint: string): string {
  return `<!-- harness:checkpoint ${plan} ${checkpoint} -->`;
}

export function answerMarker(plan: string, checkpoint: string): string {
  return `<!-- harness:answer ${plan} ${checkpoint} -->`;
}

/** The answer comment's whole body: the marker on its own line, then the answer as given. */
export function answerComment(plan: string, checkpoint: string, answer: string): string {
  return `${answerMarker(plan, checkpoint)}\n${answer}`;
}

/** The plan and checkpoint a comment asks about, if it is a checkpoint question. */
export function checkpointOf(body: string | null | undefined): { plan: string; checkpoint: string } | undefined {
  const m = CHECKPOINT.exec(body ?? '');
  return m ? { plan: m[1]!, checkpoint: m[2]! } : undefined;
}

/** The plan, checkpoint and answer of an answer comment (everything after its marker line). */
export function answerOf(body: string | null | undefined): { plan: string; checkpoint: string; answer: string } | undefined {
  const text = body ?? '';
  const m = ANSWER.exec(text);
  return m ? { plan: m[1]!, checkpoint: m[2]!, answer: text.slice(m.index + m[0].length).trim() } : undefined;
}
