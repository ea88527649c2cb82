/**
 * The markers that tie a checkpoint's question to its answer on a plan issue
 * (docs/github-flow.md, 4 and 7). The worker writes the question, the App the answer; the
 * worker reads everything after the answer's marker as the answer.
 */
const CHECKPOINT = /<!-- harness:checkpoint (\S+) (\S+) -->/;

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
