import type { Context } from 'probot';
import { helpText } from '../../engine/forge/help.js';
import { ParseError, parseCommand } from '../../engine/forge/parse-command.js';
import { planIssueView } from '../../engine/forge/plan-issue-view.js';
import { reactToComment, removeCommentReaction } from '../resources/reactions.js';
import { invocation, type Place } from './invocation.js';
import { refusal } from './refusal.js';
import { reply } from './reply.js';
import { runCommand } from './run-command.js';

/** The acknowledgement: seen, and being handled. */
const ACK = 'eyes';

/**
 * A `/harness` comment on an issue or a pull request.
 *
 * Exactly once, without state: the first request is the acknowledgement reaction, and GitHub
 * answers 201 only to the call that created it, 200 to any later one by the same App. A
 * webhook redelivered (same X-GitHub-Delivery) or delivered twice to two running copies of the
 * App therefore finds the reaction there and stops. If handling then fails, the reaction is
 * taken back, so that a redelivery or the same command written again can try once more.
 *
 * Then, in order: a bot is refused; a line that does not parse is answered with the help
 * text; a command that changes anything is checked for the commenter's role and, on a pull
 * request, for a fork; the command runs and its answer is posted as a reply.
 */
export async function onComment(context: Context<'issue_comment.created'>): Promise<void> {
  const { comment, issue, sender } = context.payload;
  const parsed = parseCommand(comment.body);
  if (parsed === undefined) return;

  const plan = issue.pull_request ? undefined : planIssueView(issue);
  const place: Place = issue.pull_request ? { kind: 'pull', number: issue.number } : { kind: 'issue', number: issue.number, ...(plan ? { plan } : {}) };
  const inv = invocation(context, sender.login, place);
  const ack = await reactToComment(inv.octokit, inv.repo, comment.id, ACK);
  if (!ack.created) {
    inv.log.info(`comment ${comment.id} was acknowledged before (delivery ${context.id}); not handling it twice`);
    return;
  }

  try {
    const refused = await refusal(inv, parsed, context.isBot);
    const askedIn = `Asked by @${sender.login} in [a comment](${comment.html_url}) on #${issue.number}.`;
    const text = refused ?? (parsed instanceof ParseError ? helpText(parsed.message) : await runCommand(inv, parsed, askedIn));
    await reply(inv, issue.number, text);
  } catch (e) {
    inv.log.error(e as Error, `/harness on comment ${comment.id} failed`);
    await removeCommentReaction(inv.octokit, inv.repo, comment.id, ack.id).catch(() => undefined);
    const name = parsed instanceof ParseError ? 'the command' : `\`${parsed.name}\``;
    await reply(inv, issue.number, `Something went wrong running ${name}: ${(e as Error).message}. Write the command again to retry.`).catch(() => undefined);
    throw e;
  }
}
