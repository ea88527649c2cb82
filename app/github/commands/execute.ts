import { describeTarget, targetToken, type Command } from '../../engine/forge/command.js';
import type { PlanIssueView } from '../../engine/forge/plan-issue-view.js';
import { queuePlans } from '../../engine/forge/queue-plans.js';
import { scopePlans } from '../../engine/forge/scope-plans.js';
import { issueAsked } from '../schedule/issue-window.js';
import { scheduleRound } from '../schedule/round.js';
import { resolveSpec, roundBase, type Invocation } from './invocation.js';
import { issuesNow, planIssues, planIssuesOf, setStatuses } from './plan-issues.js';

function names(views: readonly PlanIssueView[]): string {
  return views.map((v) => `${v.plan} (#${v.number})`).join(', ');
}

/**
 * `/harness execute <all|PP|PP-NN>` (docs/github-flow.md, 2): every scoped plan without a
 * status is queued, `status:ready` when what it needs is verified, else `status:blocked`; then
 * a scheduling round starts what can run. Plans already queued, running, verified or failed
 * keep their status, so the command can be repeated safely. On a spec larger than its issue
 * window, the plans a phase or plan target names get their issues first, with every plan they
 * need (issueAsked); `all` queues the plans with issues, and the window queues the rest as it
 * brings them.
 */
export async function execute(inv: Invocation, command: Extract<Command, { name: 'execute' }>): Promise<string> {
  const choice = await resolveSpec(inv, command.spec, (spec) => `/harness execute ${spec}/${targetToken(command.target)}`);
  if (!choice.ok) return `I could not run that: ${choice.message}.`;
  const { spec } = choice;
  let issues = await planIssues(inv, spec);
  // A spec larger than its issue window: the plans named (a phase, a plan) get their issues now, with those they need.
  const { target } = command;
  const made =
    target.kind === 'all'
      ? undefined
      : await issueAsked(inv.context, spec, issues.records, await inv.config(), (p) =>
          target.kind === 'phase' ? p.phase === target.phase : p.id === target.plan,
        );
  if (made) issues = await planIssuesOf(inv, spec, made);
  const scoped = scopePlans(spec, issues.views, command.target);
  if (!scoped.ok) return `I could not run that: ${scoped.message}.`;

  const decision = queuePlans(issues.views, scoped.plans);
  await setStatuses(inv, [
    ...decision.ready.map((view) => ({ view, status: 'ready' as const })),
    ...decision.blocked.map((view) => ({ view, status: 'blocked' as const })),
  ]);
  const round = await scheduleRound(inv.context, spec, { config: await inv.config(), issues: issuesNow(issues), ...(await roundBase(inv)) });

  const what = `${spec}, ${describeTarget(command.target)}`;
  const queued = decision.ready.length + decision.blocked.length;
  const lines = [queued === 0 ? `Nothing new to queue in ${what}.` : `Queued ${queued} plan${queued === 1 ? '' : 's'} of ${what}:`];
  if (decision.ready.length > 0) lines.push(`- ready: ${names(decision.ready)}`);
  if (decision.blocked.length > 0) lines.push(`- blocked until what they need is verified: ${names(decision.blocked)}`);
  if (decision.untouched.length > 0) lines.push(`- left as they were: ${decision.untouched.map((u) => `${u.view.plan} (${u.why})`).join(', ')}`);
  if (decision.unqueued.length > 0) {
    lines.push(
      '',
      `They wait for ${decision.unqueued.join(', ')}, which ${decision.unqueued.length === 1 ? 'is' : 'are'} not queued: execute ${decision.unqueued.length === 1 ? 'it' : 'them'} too.`,
    );
  }
  lines.push(
    '',
    round.dispatched.length > 0
      ? `Started now: ${round.dispatched.join(', ')}. Each plan issue shows its status as it changes.`
      : 'Nothing can start yet: the scheduling round starts each plan when what it needs is verified and a slot is free.',
  );
  return lines.join('\n');
}
