import type { Context } from 'probot';
import type { HarnessConfig } from '../../engine/core/config/schema.js';
import { isRemoved, isSatisfied, planIssueView, type PlanIssueView } from '../../engine/forge/plan-issue-view.js';
import type { IssueRecord } from '../../gateway/issues.js';
import { configuredReflector } from '../../machine/reflector-agent.js';
import { appGateway } from '../app-gateway.js';
import { agentEnvironment, appSafety } from '../knowledge/app-safety.js';
import { knowledgeStore } from '../knowledge/knowledge-store.js';
import { reflectOnGitHub } from '../knowledge/reflection.js';
import { retrospectOnGitHub } from '../commands/retrospective.js';
import { KNOWLEDGE_ROOT, projectName } from '../../engine/forge/knowledge-draft.js';
import { defaultBranch } from './repository.js';
import { issueLike } from '../../gateway/issues.js';

/**
 * The spec is verified when the phase that just passed is its last and every plan of it is
 * done: phases are verified in order (a phase's verification waits for its plans, which wait
 * for the phases they need), so the last one passing with all plans done is the whole spec.
 */
export function specVerified(phase: string, issues: readonly IssueRecord[]): boolean {
  const views = issues.map((i) => planIssueView(issueLike(i))).filter((v): v is PlanIssueView => v !== undefined && !isRemoved(v));
  if (views.length === 0) return false;
  const last = views
    .map((v) => v.phase)
    .sort()
    .at(-1);
  return phase === last && views.every(isSatisfied);
}

/**
 * Reflection when the App sees a phase's verification pass (knowledge.reflect.on_phase), or the
 * spec's last one (on_spec): the same as `/harness reflect`, on the default branch, where the
 * signals of the spec's plans were merged. Its lesson PRs are its answer; the log says what
 * it did.
 */
export async function reflectAfterPhase(context: Context, phase: string, config: HarnessConfig, issues: readonly IssueRecord[]): Promise<void> {
  const { on_phase, on_spec } = config.knowledge.reflect;
  const why = on_phase
    ? `phase ${phase} passed its verification`
    : on_spec && specVerified(phase, issues)
      ? `the spec's last phase (${phase}) passed its verification`
      : undefined;
  if (why === undefined) return;
  const reflector = configuredReflector(config, { cwd: process.cwd(), env: agentEnvironment(process.env) });
  const store = await knowledgeStore(config, context.octokit.request, { github: appGateway(context), base: defaultBranch(context) });
  const result = await reflectOnGitHub({
    github: store.github,
    base: store.base,
    config,
    now: new Date(),
    log: context.log,
    safety: appSafety(process.env, process.cwd()),
    ...(reflector ? { reflector } : {}),
  });
  const prs = result.changes.map(({ change, pr }) => `${change.action} ${change.path}: ${pr ? `#${pr.number} (${pr.state})` : 'left for later'}`);
  context.log.info(
    `reflection (${why}) on ${store.name}@${store.base}: read ${result.read} of ${result.listed} signals; ${prs.length === 0 ? 'no lesson to propose' : prs.join('; ')}`,
  );
}

/**
 * Skill extraction when the App sees a phase's verification pass (knowledge.skills.extract:
 * `verification` says whether, `execution` whether the phase's plans' candidates count; both on
 * by default): the same as `/harness retrospective`, for that phase's plans (their signals on the
 * spec's signals branch). Its skill PRs are its answer; the log says what it did.
 */
export async function extractAfterPhase(context: Context, spec: string, phase: string, config: HarnessConfig, issues: readonly IssueRecord[]): Promise<void> {
  const extract = config.knowledge.skills.extract;
  if (!extract.verification || !extract.execution) return;
  const plans = issues
    .map((i) => planIssueView(issueLike(i)))
    .filter((v): v is PlanIssueView => v !== undefined && v.phase === phase)
    .map((v) => v.plan);
  if (plans.length === 0) return;
  const github = appGateway(context);
  const store = await knowledgeStore(config, context.octokit.request, { github, base: defaultBranch(context) });
  const result = await retrospectOnGitHub({
    store,
    root: store.github === github ? KNOWLEDGE_ROOT : '',
    project: projectName(github.repo.repo),
    spec,
    plans,
    config,
    now: new Date(),
    origin: `github:phase:${spec}/${phase}`,
  });
  const decided = result.extractions.map((x) => `${x.decision} ${x.name}${x.decision === 'skipped' ? ` (${x.reason})` : ''}`);
  context.log.info(
    `skills (phase ${phase} of ${spec} passed): ${decided.length === 0 ? 'no candidate' : decided.join('; ')}${result.opened.length > 0 ? `; PRs ${result.opened.map((o) => o.url).join(', ')}` : ''}`,
  );
}
