import type { Context, Probot } from 'probot';
import {
  graphBranch,
  graphCommentMarker,
  parentComment,
  parentCommentMarker,
  proposalComment,
  refusedComment,
  revertComment,
  settledComment,
  type GraphActor,
  type GraphEdge,
  type GraphIssues,
} from '../../engine/forge/graph-proposal.js';
import { permits } from '../../engine/forge/permits.js';
import { parseMarker, type ParsedMarker } from '../../engine/forge/plan-issue.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { IssueRecord } from '../../gateway/issues.js';
import { appGateway } from '../app-gateway.js';
import { upsertGraphComment } from './graph-comment.js';
import { onGraphPrClosed } from './graph-merged.js';
import { changeProblems, proposeEdge } from './proposal.js';
import { readSpecAt, readSpecSource, type SpecSource } from './spec-source.js';

/**
 * The issue graph read both ways (docs/github-flow.md, 12): the App mirrors the spec's
 * `depends_on` into GitHub's issue dependencies and sub-issues; this reads back what people
 * change there. A writer's change becomes a proposal to the spec (proposal.ts); anyone else's
 * is put back as the spec has it, with a comment saying why and how to propose it. The App's
 * own writes (its mirror, moving a plan between the spec's issues) come back as events too, and
 * are passed over by their sender.
 */
export function issueGraph(app: Pick<Probot, 'on'>): void {
  app.on(
    [
      'issue_dependencies.blocked_by_added',
      'issue_dependencies.blocked_by_removed',
      'issue_dependencies.blocking_added',
      'issue_dependencies.blocking_removed',
    ],
    onDependencyChanged,
  );
  app.on(['sub_issues.sub_issue_added', 'sub_issues.sub_issue_removed', 'sub_issues.parent_issue_added', 'sub_issues.parent_issue_removed'], onSubIssueChanged);
  app.on('pull_request.closed', onGraphPrClosed);
}

/** An issue as these events carry it (GitHub's `issue` schema: the fields read here). */
interface EventIssue {
  id: number;
  number: number;
  body?: string | null;
  pull_request?: unknown;
}

interface GraphPayload {
  action: string;
  repository?: { full_name: string; default_branch: string };
  sender?: { login: string; type: string };
}

/** `issue_dependencies` (docs: blocked_by_added / blocked_by_removed on the blocked issue, blocking_added / blocking_removed on the blocking one). */
interface DependencyPayload extends GraphPayload {
  blocked_issue: EventIssue;
  blocking_issue: EventIssue;
  blocked_issue_repo?: { full_name: string };
  blocking_issue_repo?: { full_name: string };
}

/** `sub_issues` (docs: sub_issue_added / sub_issue_removed on the parent, parent_issue_added / parent_issue_removed on the sub-issue). */
interface SubIssuePayload extends GraphPayload {
  sub_issue: EventIssue;
  parent_issue: EventIssue;
  sub_issue_repo?: { full_name: string };
  parent_issue_repo?: { full_name: string };
}

/** Who made the change, unless it is the App itself (its own mirror): nobody to answer then. */
async function actorOf(github: Gateway, sender: GraphPayload['sender']): Promise<GraphActor | undefined> {
  if (!sender) return undefined;
  const bot = sender.type === 'Bot';
  // Only a bot can be the App: a person's change costs no request to tell.
  if (bot && sender.login === (await github.selfLogin())) return undefined;
  return { login: sender.login, bot };
}

/** Write access: a person with the write, maintain or admin role. A bot other than the App never has it here. */
async function canWrite(github: Gateway, actor: GraphActor): Promise<boolean> {
  return !actor.bot && permits(await github.role(actor.login), 'write');
}

/** A plan's own issue (matchPlanIssues, one list read): a marker alone is text anyone can type into an issue of theirs. */
async function ownPlanIssues(github: Gateway, spec: string, ...issues: EventIssue[]): Promise<Map<number, IssueRecord> | undefined> {
  const { byPlan } = await github.planIssues(spec);
  const own = new Map([...byPlan.values()].map((i) => [i.number, i]));
  return issues.every((i) => own.get(i.number)?.id === i.id) ? own : undefined;
}

function sameRepository(payload: GraphPayload, ...others: ({ full_name: string } | undefined)[]): boolean {
  return others.every((o) => o === undefined || o.full_name === payload.repository?.full_name);
}

/**
 * `issue_dependencies`: one plan issue marked blocked by another of the same spec, or unmarked.
 * GitHub sends one change as two events (blocked_by_… for one issue, blocking_… for the other),
 * and may deliver either twice: what is done is decided from GitHub's links as they are now and
 * the spec, so any number of deliveries end in the same state.
 */
export async function onDependencyChanged(context: Context<'issue_dependencies'>): Promise<void> {
  const payload = context.payload as unknown as DependencyPayload;
  const added = payload.action.endsWith('_added');
  const blocked = parseMarker(payload.blocked_issue.body);
  const blocking = parseMarker(payload.blocking_issue.body);
  if (!blocked || !blocking || blocked.spec !== blocking.spec || blocked.plan === blocking.plan) return;
  if (!sameRepository(payload, payload.blocked_issue_repo, payload.blocking_issue_repo) || !payload.repository) return;
  const github = appGateway(context);
  const actor = await actorOf(github, payload.sender);
  if (!actor) return;
  const own = await ownPlanIssues(github, blocked.spec, payload.blocked_issue, payload.blocking_issue);
  if (!own) return;
  // A delivery that comes late (the link changed again since): GitHub's links now decide.
  const now = await github.blockedByIds(payload.blocked_issue.number);
  if (now === 'unavailable' || now.includes(payload.blocking_issue.id) !== added) return;
  const edge: GraphEdge = { spec: blocked.spec, plan: blocked.plan, on: blocking.plan };
  const issues: GraphIssues = { plan: payload.blocked_issue.number, on: payload.blocking_issue.number };
  await settleEdge(context, github, {
    edge,
    issues,
    blockingId: payload.blocking_issue.id,
    added,
    actor,
    marker: blocked,
    body: own.get(issues.plan)!.body,
    restoreLink: true,
  });
}

interface EdgeChange {
  edge: GraphEdge;
  issues: GraphIssues;
  /** The database id of the issue of the plan depended on. */
  blockingId: number;
  added: boolean;
  actor: GraphActor;
  /** The dependent plan issue's marker and body (where its spec is). */
  marker: ParsedMarker;
  body: string | null;
  /** Put GitHub's blocked-by link back when the change is not taken (false: the change was a move in the tree, put back elsewhere). */
  restoreLink: boolean;
}

/**
 * What a change to one dependency comes to: proposed, refused, put back, or nothing (the spec
 * says so already). Whether the actor may write, when that was asked (undefined: the spec could
 * not be read, and nothing was done).
 */
async function settleEdge(context: Context, github: Gateway, change: EdgeChange): Promise<boolean | undefined> {
  const { edge, issues, added, actor } = change;
  const source = await readSpecSource(context, github, change.marker, change.body, (context.payload as GraphPayload).repository!.default_branch);
  if (!source) {
    context.log.warn(`${edge.spec}/${edge.plan}: the dependency on ${edge.on} changed on GitHub, but harness could not read the spec this issue came from`);
    return undefined;
  }
  const plan = source.spec.planById.get(edge.plan);
  if (!plan) return undefined;
  const file = `${source.specPath}/${plan.file}`;
  const inSpec = plan.dependsOn.includes(edge.on);
  const marker = graphCommentMarker(edge);
  const putBack = async () => {
    if (!change.restoreLink) return;
    if (added) await github.removeBlockedBy(issues.plan, change.blockingId);
    else await github.addBlockedBy(issues.plan, change.blockingId);
  };

  if (!(await canWrite(github, actor))) {
    if (inSpec === added) return false;
    await putBack();
    await upsertGraphComment(github, issues.plan, marker, revertComment(edge, issues, added, actor, file, !change.restoreLink));
    context.log.info(`${edge.spec}/${edge.plan}: @${actor.login}'s change to its dependency on ${edge.on} put back (no write access)`);
    return false;
  }
  if (inSpec !== added) {
    const problems = changeProblems(await withPending(github, source), edge, added);
    if (problems.length > 0) {
      await putBack();
      await upsertGraphComment(github, issues.plan, marker, refusedComment(edge, issues, added, actor, file, problems));
      return true;
    }
  }
  if (inSpec === added) {
    // On an open spec PR, its branch is where proposals go: what it says is proposed already.
    if (source.place.kind === 'spec-pr') return true;
    // On a merged spec, a proposal to the contrary still open in the proposals PR is withdrawn.
    await proposeEdge(github, source, edge, added, actor.login);
    await upsertGraphComment(github, issues.plan, marker, settledComment(edge, issues, inSpec), true);
    return true;
  }
  const place = await proposeEdge(github, source, edge, added, actor.login);
  if (!place) return true;
  await upsertGraphComment(github, issues.plan, marker, proposalComment(edge, issues, added, actor, file, place));
  context.log.info(`${edge.spec}/${edge.plan}: @${actor.login}'s change to its dependency on ${edge.on} proposed to the spec`);
  return true;
}

/**
 * The merged spec as its open proposals PR would make it, when there is one: a change is
 * checked against every proposal pending with it, so that two proposals that are each fine
 * cannot close a cycle together. The spec as it is when no PR is open (or the branch's is not
 * a valid spec: then the change is checked against the truth alone).
 */
async function withPending(github: Gateway, source: SpecSource): Promise<SpecSource> {
  if (source.place.kind !== 'default') return source;
  const branch = graphBranch(source.spec.id);
  if ((await github.pullRequests({ head: branch, state: 'open' })).length === 0) return source;
  return (await readSpecAt(github, { kind: 'default', branch }, source.specPath, source.spec.id)) ?? source;
}

/**
 * `sub_issues`: a plan issue put under another parent, or taken out of its own. Put under
 * another plan issue of the same spec, it reads as that plan needing this one (the parent is
 * done when its sub-issues are): a dependency change like any other, proposed for a writer,
 * refused otherwise. Any other move has no place in the spec: someone without write access has
 * it put back at once; a writer is told the next sync puts it back.
 */
export async function onSubIssueChanged(context: Context<'sub_issues'>): Promise<void> {
  const payload = context.payload as unknown as SubIssuePayload;
  const added = payload.action.endsWith('_added');
  const sub = parseMarker(payload.sub_issue.body);
  if (!sub || !payload.repository || !sameRepository(payload, payload.sub_issue_repo, payload.parent_issue_repo)) return;
  const recorded = sub.parent;
  const parentNumber = payload.parent_issue.number;
  // Where the spec puts it (the App's own record), or a relation that is none of the spec's business.
  if ((added && parentNumber === recorded) || (!added && parentNumber !== recorded)) return;
  const github = appGateway(context);
  const actor = await actorOf(github, payload.sender);
  if (!actor) return;
  const own = await ownPlanIssues(github, sub.spec, payload.sub_issue);
  if (!own) return;
  // A late delivery: GitHub's tree now decides.
  const subs = await github.subIssueIds(parentNumber);
  if (subs === 'unavailable' || subs.includes(payload.sub_issue.id) !== added) return;
  const parent = parseMarker(payload.parent_issue.body);
  const parentOwn = own.get(parentNumber);
  if (added && parent?.spec === sub.spec && parentOwn?.id === payload.parent_issue.id && parent.plan !== sub.plan) {
    // The parent's plan needs this one: the tree is put back by the next sync, the dependency settled here.
    const edge: GraphEdge = { spec: sub.spec, plan: parent.plan, on: sub.plan };
    const writer = await settleEdge(context, github, {
      edge,
      issues: { plan: parentNumber, on: payload.sub_issue.number },
      blockingId: payload.sub_issue.id,
      added: true,
      actor,
      marker: parent,
      body: parentOwn.body,
      restoreLink: false,
    });
    if (writer === false && recorded !== undefined) await github.addSubIssue(recorded, payload.sub_issue.id, true);
    return;
  }
  if (recorded === undefined) return;
  const writer = await canWrite(github, actor);
  if (!writer) await github.addSubIssue(recorded, payload.sub_issue.id, added);
  await upsertGraphComment(
    github,
    payload.sub_issue.number,
    parentCommentMarker(sub.spec, sub.plan),
    parentComment(sub.spec, sub.plan, actor, recorded, !writer),
  );
}
