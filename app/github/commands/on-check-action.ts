import type { Context } from 'probot';
import type { Command } from '../../engine/forge/command.js';
import { parseTargetId } from '../../engine/forge/worker-target.js';
import { invocation } from './invocation.js';
import { findPlan } from './plan-issues.js';
import { refusal } from './refusal.js';
import { reply } from './reply.js';
import { runCommand } from './run-command.js';

const PLAN_CHECK = /^harness \/ plan (\S+)$/;

/** The buttons harness puts on plan check runs (identifiers at most 20 characters), as the commands they stand for. */
function commandFor(identifier: string, spec: string, plan: string): Command | undefined {
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
export async function onCheckAction(context: Context<'check_run.requested_action'>): Promise<void> {
  const { check_run: run, sender } = context.payload;
  const identifier = context.payload.requested_action?.identifier ?? '';
  const named = PLAN_CHECK.exec(run.name);
  const target = parseTargetId(run.external_id);
  if (!named || target?.kind !== 'plan' || target.plan !== named[1]) {
    context.log.debug(`check run "${run.name}" (${run.external_id}) is not a harness plan check; ignoring "${identifier}"`);
    return;
  }
  const { spec, plan } = target;
  const command = commandFor(identifier, spec, plan);
  if (!command) {
    context.log.warn(`unknown button "${identifier}" on ${run.name}`);
    return;
  }

  const found = await findPlan(invocation(context, sender.login, { kind: 'check', checkRunId: run.id, spec }), spec, plan);
  if (typeof found === 'string') {
    context.log.warn(`button "${identifier}" on ${run.name}: ${found}`);
    return;
  }
  const inv = invocation(context, sender.login, { kind: 'check', checkRunId: run.id, spec, plan: found.view, ...(found.issues ? { issues: found.issues } : {}) });
  const text = (await refusal(inv, command, context.isBot)) ?? (await runCommand(inv, command, ''));
  await reply(inv, found.view.number, text);
}
