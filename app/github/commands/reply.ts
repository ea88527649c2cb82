import { createComment } from '../resources/comments.js';
import { ISSUE_BODY_LIMIT } from '../limits.js';
import type { Invocation } from './invocation.js';

const CUT = '\n\n_(cut: the answer is longer than a comment holds)_';

/** The answer to a command, as a comment on the issue or pull request (POST …/issues/{n}/comments, 201). */
export async function reply(inv: Invocation, issueNumber: number, text: string): Promise<void> {
  const body = text.length > ISSUE_BODY_LIMIT ? `${text.slice(0, ISSUE_BODY_LIMIT - CUT.length)}${CUT}` : text;
  await createComment(inv.octokit, inv.repo, issueNumber, body);
}
