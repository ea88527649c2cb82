import { noteHeldPlans, spendHold, withoutHeld } from './spend-hold.js';
import type { Context } from 'probot';
import type { HarnessConfig } from '../../engine/core/config/schema.js';
import { LABEL_PHASE_FAILED, planBranch, type StatusValue } from '../../engine/forge/names.js';
import { isActive, isQueued, type IssueLike } from '../../engine/forge/plan-issue-view.js';
import { parseMarker } from '../../engine/forge/plan-issue.js';
import { phasesToVerify, planRound, type RoundIssue, type RoundPlan } from '../../engine/forge/round-plan.js';
import { roundOrder, roundOrderKey, type RoundOrder } from '../../engine/forge/round-order.js';
import { specFromIssues } from '../../engine/forge/spec-from-issues.js';
import { parseTargetBranch, targetInput, type WorkerTarget } from '../../engine/forge/worker-target.js';
import { issueLike, type IssueRecord } from '../../gateway/issues.js';
import type { StatusMove } from '../../gateway/plan-issues.js';
import type { Gateway } from '../../gateway/gateway.js';
import { appGateway, limitWaitFor } from '../app-gateway.js';
import { memoryOf } from '../app-memory.js';
import { loadConfig } from '../config.js';
import { refreshStatusComment } from '../spec-pr/status-comment.js';
import { dispatchTarget, type BaseHead } from './dispatch.js';
import { recoverPhaseClaims } from './stale-phase-claim.js';
import { resumePaused } from './resume-paused.js';
import { researchAhead } from './research-ahead.js';
import { defaultBranch } from './repository.js';
import { confirmVerified } from './verified-record.js';
import { adoptLegacyStatuses } from './legacy-status.js';
import { isWindowed, moveIssueWindow, phasesNotAllIssued, windowedSpec } from './issue-window.js';

export interface RoundOptions {
  /** .github/harness.yml as the caller read it in this delivery: saves the request. */
  config?: HarnessConfig;
  /**
   * Each plan's issue (the gateway's SpecIssues.byPlan) as the caller read and changed them in
   * this delivery: saves the request.
   */
  issues?: readonly IssueRecord[];
  /**
   * The spec's base, when the event names it (the branch a worker was dispatched on, a plan
   * PR's base). Else the repository's default branch: see defaultBranch.
   */
  base?: string;
  /** When the round runs: a paused plan whose usage limit resets before it is resumed. */
  now?: Date;
}

export interface RoundResult {
  spec: string;
  base: string;
  /** The decision, from the issues as read. */
  plan: RoundPlan;
  /** Targets this round claimed and dispatched: plan ids, and `phase-PP` for phases. */
  dispatched: string[];
  /** Targets another delivery claimed first (GitHub answered "Reference already exists"). */
  lost: string[];
  /** Status labels put back to what the App's records say (none: taken off). */
  relabelled: { plan: string; to: StatusValue | undefined }[];
  /** Plans paused at the model's usage limit that this round resumed (resume-paused.ts). */
  resumed: string[];
  /** Why this round started no plan: the spend cap it met (spend-hold.ts). */
  held?: string;
}

/** The phases whose verification was claimed: their branch `harness/<spec>/phase-PP` exists; phase → the commit it claimed. */
async function claimedPhases(context: Context, spec: string): Promise<Map<string, string>> {
  const branches = await appGateway(context).branchesWithPrefix(planBranch(spec, 'phase-'));
  const phases = new Map<string, string>();
  for (const [name, sha] of branches) {
    const target = parseTargetBranch(name);
    if (target?.kind === 'phase' && target.spec === spec) phases.set(target.phase, sha);
  }
  return phases;
}

/**
 * A scheduling round for one spec (docs/github-flow.md, 3): start what may run now, and
 * nothing twice. It reads .github/harness.yml, the spec's plan issues (one list call: labels
 * `harness:plan,spec:<id>`, state all, 100 a page) and, only when it has something to start,
 * the base branch's head; when some phase has all its plans satisfied, the spec's phase
 * branches (one matching-refs call). That is at most four reads whatever the number of plans,
 * up to 100 plans: a spec of more takes one more read per 100 (the list is paginated, not
 * cut). The decision is planRound's, from the App's records on the issues' marker lines
 * alone (never their labels or state); the writes are, per plan started, the claim, the
 * dispatch and the check run, then the round's status writes together: the record
 * `status=running` on each plan started (its body), then the labels, status:running
 * on each plan started, ready or blocked on each queued plan whose dependencies changed, and any
 * label someone changed put back to what the records say, each in the race-safe form (the new
 * label added, then the old one removed), all in one GraphQL request where GitHub's node ids are
 * known (gateway setStatuses), else three REST requests a plan. A delivery that dies before that
 * write leaves a claim with a worker behind it, which the next round records (stale-claim.ts). A round run twice on the same issues
 * makes the same decision and loses every claim the first one won, so a redelivered event
 * writes nothing new.
 */
export async function scheduleRound(context: Context, spec: string, options: RoundOptions = {}): Promise<RoundResult> {
  const github = appGateway(context);
  const config = options.config ?? (await loadConfig(context)).config;
  const listed = await roundIssues(context, spec, config, options);
  const base = options.base ?? defaultBranch(context);
  const baseHead = baseHeadOf(github, spec, base);
  // Resumed first, so that the decision counts them as running (they hold their slots).
  const paused = await resumePaused(context, spec, listed, base, baseHead, options.now ?? new Date());
  const likes = paused.issues.map(issueLike);
  const plan = planRound({ spec, issues: likes, slots: config.slots, ...(await orderFor(context, spec, likes, config.slots)) });
  const round: Round = {
    context,
    github,
    spec,
    options,
    config,
    plan,
    issues: paused.issues,
    baseHead,
    // The plans that may run at once from here (the spec's slots, or fewer left to run): each worker's live progress shares GitHub's limits with theirs.
    running: Math.max(1, Math.min(config.slots, plan.plans.filter((p) => isQueued(p) || isActive(p)).length)),
    statuses: [],
    result: { spec, base, plan, dispatched: [], lost: [], relabelled: [], resumed: paused.resumed },
  };
  const held = await holdAtSpendCap(round);
  await startPlans(round, held);
  relabel(round);
  await writeStatuses(round);
  await markPhases(round);
  if (plan.completePhases.length > 0) await verifyPhases(round, listed);
  // Slots no plan can use research the next phases (research-ahead.ts, researchesAhead).
  if (!held) await researchAhead(context, config, spec, plan, baseHead);
  logWaiting(round);

  await refreshStatus(context, spec, round.issues, held);
  return round.result;
}

/** One round as its steps share it: what it decided, the issues as its writes leave them, and the status writes it makes together. */
interface Round {
  context: Context;
  github: Gateway;
  spec: string;
  options: RoundOptions;
  config: HarnessConfig;
  plan: RoundPlan;
  /** The spec's issues as the round's writes leave them: the status comment is written from them. */
  issues: IssueRecord[];
  baseHead: () => Promise<BaseHead>;
  /** How many plans may run at once from here (dispatchTarget's `running`). */
  running: number;
  /** The plans started and the labels put back: their status writes made together, in as few requests as GitHub allows (gateway setStatuses). */
  statuses: StatusMove[];
  result: RoundResult;
}

/**
 * The spec's plan issues the round decides from: the caller's, or one list read; records corrected
 * and adopted where the labels say more than the records, and a large spec's window moved on.
 */
async function roundIssues(context: Context, spec: string, config: HarnessConfig, options: RoundOptions): Promise<IssueRecord[]> {
  // Each plan's issue as the gateway resolves them (one list read), unless the caller has them.
  // The mirror corrected where it claims a plan done without the App's record (verified-record.ts): no request otherwise.
  const read = options.issues ? undefined : await appGateway(context).planIssues(spec);
  const found = options.issues ?? [...read!.byPlan.values()];
  // Issues from before the App's status records: a status label the App applied itself becomes the record (legacy-status.ts).
  const confirmed = await adoptLegacyStatuses(context, spec, await confirmVerified(context, spec, found));
  // The list as read, for a window that moves on, unless a record was corrected meanwhile.
  const listing = read && confirmed.every((issue, i) => issue === found[i]) ? read : undefined;
  // A large spec's plan issues come a window at a time: plans finishing move it on (issue-window.ts); no request otherwise.
  return (await moveIssueWindow(context, spec, confirmed, config, listing)) ?? confirmed;
}

/** The base branch's head, read when first needed (a round that starts nothing never reads it), then kept. */
function baseHeadOf(github: Gateway, spec: string, base: string): () => Promise<BaseHead> {
  let head: BaseHead | undefined;
  return async (): Promise<BaseHead> => {
    if (head) return head;
    const sha = await github.branchSha(base);
    if (sha === undefined) throw new Error(`${spec}: the base branch ${base} does not exist, so no plan branch can start from it`);
    return (head = { branch: base, sha });
  };
}

/**
 * At a spend cap (budget in .github/harness.yml) no plan starts, and nothing researches ahead;
 * what runs goes on (spend-hold.ts). Returns why the round is held, when it is.
 */
async function holdAtSpendCap(round: Round): Promise<string | undefined> {
  const { context, spec, plan, options } = round;
  const caps = plan.dispatch.length > 0 ? await spendHold(context, spec, round.issues, round.config, options.now ?? new Date()) : undefined;
  const held = caps && !caps.open ? caps.message : undefined;
  if (held) {
    context.log.info(`${spec}: ${held}`);
    round.result.held = held;
    // Each plan that would have started is told so on its issue, once a hold.
    const noted = await noteHeldPlans(context, plan.dispatch, caps as Extract<typeof caps, { open: false }>);
    round.issues = round.issues.map((i) => noted.get(i.number) ?? i);
  }
  return held;
}

/** The plans the round decided to start, claimed and dispatched in turn; none when it is held. */
async function startPlans(round: Round, held: string | undefined): Promise<void> {
  try {
    for (const issue of held ? [] : round.plan.dispatch) await start(round, { kind: 'plan', spec: round.spec, plan: issue.plan }, withoutHeld(issue));
  } catch (e) {
    // A dispatch that failed after others went through: theirs are written before the failure goes up.
    await writeStatuses(round);
    throw e;
  }
}

/** One target claimed and dispatched from the base's head (dispatch.ts): won, or lost to another delivery. */
async function start(round: Round, target: WorkerTarget, issue?: RoundIssue): Promise<void> {
  const outcome = await dispatchTarget(
    round.context,
    target,
    await round.baseHead(),
    issue,
    round.options.now ?? new Date(),
    target.kind === 'plan' ? round.running : undefined,
    round.statuses,
  );
  (outcome === 'dispatched' ? round.result.dispatched : round.result.lost).push(targetInput(target));
}

/** The status writes waiting, made together; the round's issues as they left them. */
async function writeStatuses(round: Round): Promise<void> {
  const moves = round.statuses.splice(0);
  if (moves.length === 0) return;
  const written = await round.github.setStatuses(moves);
  const after = new Map(moves.map((m, i) => [m.issue.number, written[i]!]));
  round.issues = round.issues.map((i) => (after.has(i.number) ? { ...i, ...after.get(i.number)! } : i));
}

/**
 * Labels that disagree with the App's records are put back (a queued plan's ready or blocked as what it needs changed, or
 * a label someone else changed): only the label, the view, and no comment. The App hears no `issues` events, so its own
 * label writes start nothing: a label changed again is put back by the next round, never in a loop.
 */
function relabel(round: Round): void {
  for (const { issue, to } of round.plan.relabel) {
    round.statuses.push({ issue, status: to, labelOnly: true });
    round.result.relabelled.push({ plan: issue.plan, to });
  }
}

/** The `harness:phase-failed` label put on or taken off where it is not what the plan's record says. */
async function markPhases(round: Round): Promise<void> {
  for (const { issue, failed } of round.plan.phaseMarks) {
    if (failed) await round.github.addLabels(issue.number, [LABEL_PHASE_FAILED]);
    else await round.github.removeLabel(issue.number, LABEL_PHASE_FAILED);
    round.issues = round.issues.map((i) =>
      i.number === issue.number ? { ...i, labels: failed ? [...i.labels, LABEL_PHASE_FAILED] : i.labels.filter((l) => l !== LABEL_PHASE_FAILED) } : i,
    );
  }
}

/** The verification of each complete phase not claimed yet, claimed and dispatched; claims whose delivery died recovered first. */
async function verifyPhases(round: Round, listed: readonly IssueRecord[]): Promise<void> {
  const { context, spec, plan, options } = round;
  const claimed = await claimedPhases(context, spec);
  // A round that leaves the spec idle looks for a verification claim whose delivery died (stale-phase-claim.ts).
  if (plan.active === 0 && round.result.dispatched.length === 0) {
    for (const phase of await recoverPhaseClaims(context, spec, plan.completePhases, claimed, options.now ?? new Date())) claimed.delete(phase);
  }
  const claimedNow = new Set(claimed.keys());
  // A windowed spec's phase with plans still without issues is not complete (read only when some phase would be verified).
  const toVerify = phasesToVerify(plan, claimedNow).length > 0 ? phasesToVerify(plan, claimedNow, await phasesNotAllIssued(context, spec, listed)) : [];
  for (const phase of toVerify) await start(round, { kind: 'phase', spec, phase });
}

/** Why plans wait: blocked by a failure (debug), or needing a plan the spec has no issue for (a warning). */
function logWaiting({ context, spec, plan }: Round): void {
  for (const b of plan.blocked) {
    context.log.debug(`${spec}/${b.plan} cannot run: ${'plan' in b.because ? `${b.because.plan} failed` : `phase ${b.because.phase} failed its verification`}`);
  }
  for (const u of plan.unknownNeeds) context.log.warn(`${spec}/${u.plan} needs ${u.needs.join(', ')}, which the spec has no issue for: it waits`);
}

/**
 * The priorities the round starts plans by, as the local runner's (round-order.ts): searched
 * once for a spec's issues as they stand (a fifth of a second for 250 plans), then kept in the
 * App's memory under what they depend on, so a round reuses it until the window moves or a
 * plan's text or needs change. A spec larger than its issue window is ranked whole, from the
 * tree its tracking issue records (one read when the window moves): the plans that head long
 * chains into phases without issues yet go first, as the local runner would start them.
 */
async function orderFor(context: Context, spec: string, issues: readonly IssueLike[], slots: number): Promise<{ order?: RoundOrder }> {
  const memory = memoryOf(context);
  const key = roundOrderKey(spec, issues, slots);
  let kept = memory.roundOrders.get(key);
  if (!kept) {
    // A spec whose issues come a window at a time is ranked whole (round-order.ts, specOrder): searched once per tree it was synced from.
    const whole = isWindowed(issues)
      ? await windowedSpec(context, spec, slots).catch(
          (e: unknown) => void context.log.warn(`${spec}: ranking the window's plans alone, the whole spec could not be read: ${String(e)}`),
        )
      : undefined;
    const order = whole ? whole.order : roundOrder(spec, issues, slots);
    memory.roundOrders.set(key, (kept = order ? { order } : {}));
  }
  return kept;
}

/**
 * After a round, the spec PR's sticky status comment (`<!-- harness:status <spec> -->`) shows
 * the statuses as they are now (docs/github-flow.md, 3). The PR is the one the plan issues
 * record on their marker line (`pr=`); the spec is rebuilt from the issues' bodies, so this
 * costs one read (the PR's comments, unless the App remembers where it is) and a write only
 * when the comment's text changed. While plans run, a change within a minute of the last write
 * (5 s more per plan running past 12: 5 min 20 s for 64) waits for the next round
 * (refreshStatusComment, `coalesce`); once nothing runs, the comment always shows the end.
 */
async function refreshStatus(context: Context, specId: string, after: readonly IssueRecord[], held?: string): Promise<void> {
  const prs = after.map((i) => parseMarker(i.body)?.pr).filter((n): n is number => n !== undefined);
  if (prs.length === 0) return;
  const spec = specFromIssues(specId, after);
  if (!spec) return;
  // Issues synced from later spec PRs keep the first PR's record; the lowest number is that PR.
  const running = after.filter((i) => {
    const marker = parseMarker(i.body);
    return marker?.status === 'running' && marker.verified === undefined;
  }).length;
  const waiting = limitWaitFor(context);
  await refreshStatusComment(appGateway(context), memoryOf(context), Math.min(...prs), spec, after, {
    coalesce: running,
    ...(waiting ? { waiting } : {}),
    ...(held ? { held } : {}),
  });
}
