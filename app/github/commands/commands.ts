import type { Context, Probot } from 'probot';
import type { Command } from '../../engine/forge/command.js';
import { optionsOf } from '../../engine/forge/check-actions.js';
import { helpText } from '../../engine/forge/help.js';
import { ParseError, parseCommand } from '../../engine/forge/parse-command.js';
import { planIssueView } from '../../engine/forge/plan-issue-view.js';
import { parseTargetId } from '../../engine/forge/worker-target.js';
import { GitHubError } from '../../gateway/github-error.js';
import { ISSUE_BODY_LIMIT } from '../../gateway/limits.js';
import { invocation, type Invocation, type Place } from './invocation.js';
import { noteFrustration } from './frustration.js';
import { findPlan } from './plan-issues.js';
import { refusal } from './refusal.js';
import { finishedBefore, refusedBefore } from './handled.js';
import { refusedMarker, replyMarker, withMarkers } from '../../engine/forge/reply-markers.js';
import { runCommand } from './run-command.js';

/**
 * The `/harness` slash commands (docs/design.md, Slash commands; grammar in
 * engine/forge/parse-command.ts) and the buttons on plan check runs, which are the same
 * commands: each is authorised (refusal.ts), run (run-command.ts) and answered here.
 */
export function commands(app: Pick<Probot, 'on'>): void {
  app.on('issue_comment.created', onComment);
  app.on('check_run.requested_action', onCheckAction);
  app.on('check_run.rerequested', onCheckAction);
}

/** The acknowledgement: seen, and being handled. */
const ACK = 'eyes';

/**
 * A `/harness` comment on an issue or a pull request.
 *
 * Exactly once, without state: the acknowledgement reaction is the claim, and GitHub answers
 * 201 only to the call that created it, 200 (with the reaction as it was) to any later one by
 * the same App. The answer posted at the end carries the comment's reply marker
 * (engine/forge/reply-markers.ts), which is what says the command was handled to the end. A
 * delivery that finds the reaction there stops, unless the reaction is older than the claim
 * grace period and no answer of the App's says it finished: then the first delivery died
 * mid-way, and this one handles the command (each command's own checks and claims make
 * running it again safe). If handling fails, the reaction is taken back, so that a
 * redelivery or the same command written again can try once more.
 *
 * The App's own comments are never commands. Then, in order: a bot is refused; a line that
 * does not parse is answered with the help text; a command that changes anything is checked
 * for the commenter's role and, on a pull request, for a fork; the command runs and its answer
 * is posted as a reply. A refusal is posted once per thread and login.
 */
async function onComment(context: Context<'issue_comment.created'>): Promise<void> {
  const { comment, issue, sender } = context.payload;
  const parsed = parseCommand(comment.body);
  if (parsed === undefined) return;

  // A plan issue is one the App opened: the same labels and marker on a person's issue make it no plan's.
  const plan = issue.pull_request || issue.user?.type !== 'Bot' ? undefined : planIssueView(issue);
  const place: Place = issue.pull_request ? { kind: 'pull', number: issue.number } : { kind: 'issue', number: issue.number, ...(plan ? { plan } : {}) };
  const inv = invocation(context, sender.login, place);
  // Its own answers quote commands (help does): the App never answers itself.
  if (context.isBot && comment.user?.login === (await inv.github.selfLogin())) return;
  const ack = await inv.github.react(comment.id, ACK);
  if (!ack.created && !(await finishedBefore(inv, ack, { id: comment.id, issue: issue.number }))) {
    inv.log.warn(
      `comment ${comment.id} was acknowledged long ago and never answered (delivery ${context.id}): the delivery that took it died; handling it now`,
    );
  } else if (!ack.created) {
    inv.log.info(`comment ${comment.id} was acknowledged before (delivery ${context.id}); not handling it twice`);
    return;
  }

  try {
    const refused = await refusal(inv, parsed, context.isBot);
    if (refused !== undefined && (await refusedBefore(inv, issue.number, sender.login))) {
      inv.log.info(`@${sender.login} was refused in #${issue.number} before; not answering again`);
      return;
    }
    const askedIn = `Asked by @${sender.login} in [a comment](${comment.html_url}) on #${issue.number}.`;
    const text = refused ?? (parsed instanceof ParseError ? helpText(parsed.message) : await runCommand(inv, parsed, askedIn, comment.id));
    await reply(inv, issue.number, text, [...(refused !== undefined ? [refusedMarker(sender.login)] : []), replyMarker(comment.id)]);
    if (refused === undefined && !(parsed instanceof ParseError))
      await noteFrustration(inv, parsed, { id: comment.id, author: sender.login }, { number: issue.number, comments: issue.comments ?? 0 });
  } catch (e) {
    inv.log.error(e as Error, `/harness on comment ${comment.id} failed`);
    await inv.github.unreact(comment.id, ack.id).catch(unlessGitHubFails);
    const name = parsed instanceof ParseError ? 'the command' : `\`${parsed.name}\``;
    // A person reads this: GitHub's reason and what to do, not the route.
    const why = e instanceof GitHubError ? e.explanation : (e as Error).message;
    await reply(inv, issue.number, `Something went wrong running ${name}: ${why}. Write the command again to retry.`).catch(unlessGitHubFails);
    throw e;
  }
}

const PLAN_CHECK = /^harness \/ plan (\S+)$/;

/**
 * The buttons harness puts on plan check runs (identifiers at most 20 characters), as the
 * commands they stand for. A decision's options are `option-N`: the worker keeps the options in
 * the check run's text, which the click's payload carries back.
 */
function commandFor(identifier: string, spec: string, plan: string, text?: string | null): Command | undefined {
  const option = /^option-([1-3])$/.exec(identifier);
  if (option) {
    const answer = optionsOf(text)?.[Number(option[1]) - 1];
    return answer === undefined ? undefined : { name: 'respond', spec, plan, answer };
  }
  switch (identifier) {
    case 'retry':
      return { name: 'retry', spec, plan };
    case 'abort':
      return { name: 'abort', spec, plan };
    case 'approve':
      return { name: 'respond', spec, plan, answer: 'approve' };
    default:
      return undefined;
  }
}

/**
 * A button pressed on a `harness / plan <id>` check run (`check_run.requested_action`; the
 * check run's external_id is `<spec>/<plan>`). It runs the command it stands for, with the
 * same permission check on whoever pressed it, and the answer goes on the plan issue, since a
 * check run has no conversation. Buttons have no reaction to deduplicate a redelivery with;
 * the commands' own state checks do it instead (retry wants a failed plan, respond a plan at
 * a checkpoint, abort one not failed yet).
 */
async function onCheckAction(context: Context<'check_run.requested_action' | 'check_run.rerequested'>): Promise<void> {
  const { check_run: run, sender } = context.payload;
  // "Re-run" on a plan's check run is a retry of the plan: the same command, the same permission check.
  const identifier =
    context.payload.action === 'rerequested'
      ? 'retry'
      : ((context.payload as { requested_action?: { identifier?: string } }).requested_action?.identifier ?? '');
  const named = PLAN_CHECK.exec(run.name);
  const target = parseTargetId(run.external_id);
  if (!named || target?.kind !== 'plan' || target.plan !== named[1]) {
    context.log.debug(`check run "${run.name}" (${run.external_id}) is not a harness plan check; ignoring "${identifier}"`);
    return;
  }
  const { spec, plan } = target;
  const command = commandFor(identifier, spec, plan, (run.output as { text?: string | null } | undefined)?.text);
  if (!command) {
    context.log.warn(`unknown button "${identifier}" on ${run.name}`);
    return;
  }

  const found = await findPlan(invocation(context, sender.login, { kind: 'check', checkRunId: run.id, spec }), spec, plan);
  if (typeof found === 'string') {
    context.log.warn(`button "${identifier}" on ${run.name}: ${found}`);
    return;
  }
  const inv = invocation(context, sender.login, {
    kind: 'check',
    checkRunId: run.id,
    spec,
    plan: found.view,
    ...(found.issues ? { issues: found.issues } : {}),
    // The run the dispatch recorded there, which an abort cancels without searching for it.
    ...(run.details_url ? { detailsUrl: run.details_url } : {}),
  });
  const text = (await refusal(inv, command, context.isBot)) ?? (await runCommand(inv, command, ''));
  await reply(inv, found.view.number, text);
}

const CUT = '\n\n_(cut: the answer is longer than a comment holds)_';

/** Room the hidden markers after an answer take. */
const MARKER_ROOM = 200;

/** The answer to a command, as a comment on the issue or pull request (POST …/issues/{n}/comments, 201), its markers last. */
async function reply(inv: Invocation, issueNumber: number, text: string, markers: readonly string[] = []): Promise<void> {
  const limit = ISSUE_BODY_LIMIT - MARKER_ROOM;
  const body = text.length > limit ? `${text.slice(0, limit - CUT.length)}${CUT}` : text;
  await inv.github.comment(issueNumber, withMarkers(body, markers));
}

/** For the clean-up after a failure, whose own error is what is thrown: GitHub refusing it too is let be; anything else is rethrown. */
function unlessGitHubFails(e: unknown): void {
  if (!(e instanceof GitHubError)) throw e;
}
