import { matchPlanIssues } from '../engine/forge/match-issues.js';
import { LABEL_PLAN, specLabel } from '../engine/forge/names.js';
import { parseMarker } from '../engine/forge/plan-issue.js';
import { expectedStatus, isRemoved, planIssueView, type PlanIssueView } from '../engine/forge/plan-issue-view.js';
import { comparePlanIds } from '../engine/core/spec/model.js';
import type { Gateway } from '../gateway/gateway.js';
import type { IssueRecord } from '../gateway/issues.js';
import { McpToolError } from './tool-result.js';

/** A plan as its issue shows it on GitHub. */
export interface GitHubPlan {
  plan: string;
  title: string;
  issue: number;
  url: string;
  phase: string;
  /** The status label's value; `planned` while none (not queued), `removed` once the plan left the spec. */
  status: string;
  open: boolean;
}

/** A spec as GitHub shows it: its spec PR (the one whose status comment tracks it) and its plan issues. */
export interface GitHubSpec {
  spec: string;
  /** The spec PR, as its plan issues record it (`pr=`); null before the first sync recorded one. */
  pullRequest: { number: number; url: string } | null;
  plans: GitHubPlan[];
}

/** A plan as the App's records say (a queued plan's ready or blocked as its label shows), never as its labels alone. */
function planOf(issue: IssueRecord, view: PlanIssueView): GitHubPlan {
  const status = isRemoved(view) ? 'removed' : (expectedStatus(view, view.shown === 'blocked' ? 'blocked' : 'ready') ?? 'planned');
  return { plan: view.plan, title: view.title, issue: issue.number, url: issue.url, phase: view.phase, status, open: view.open };
}

/**
 * The specs of the repository from their plan issues (labels `harness:plan`, and `spec:<id>`
 * for one spec: one paginated list), each plan's own issue taken by the rule every part of
 * harness uses (matchPlanIssues), and the spec PR from the issues' markers.
 */
export async function githubSpecs(github: Gateway, only?: string): Promise<GitHubSpec[]> {
  // A person's token does not know the App's login (plan-issues.ts tells plan issues by it): a view decides nothing, so any bot's issue is shown.
  const issues = (await github.issuesWithLabels(only === undefined ? [LABEL_PLAN] : [LABEL_PLAN, specLabel(only)])).filter((i) => i.authorType === 'Bot');
  const bySpec = new Map<string, IssueRecord[]>();
  for (const issue of issues) {
    const marker = parseMarker(issue.body);
    if (!marker || (only !== undefined && marker.spec !== only)) continue;
    bySpec.set(marker.spec, [...(bySpec.get(marker.spec) ?? []), issue]);
  }
  const specs: GitHubSpec[] = [];
  for (const [spec, listed] of [...bySpec].sort(([a], [b]) => a.localeCompare(b))) {
    const { byPlan } = matchPlanIssues(spec, listed);
    const plans = [...byPlan.values()].flatMap((issue) => {
      const view = planIssueView(issue);
      return view ? [planOf(issue, view)] : [];
    });
    plans.sort((a, b) => comparePlanIds(a.plan, b.plan));
    const pr = [...byPlan.values()].map((i) => parseMarker(i.body)?.pr).find((n): n is number => n !== undefined);
    const url = pr === undefined ? undefined : `https://github.com/${github.repo.owner}/${github.repo.repo}/pull/${pr}`;
    specs.push({ spec, pullRequest: pr === undefined ? null : { number: pr, url: url! }, plans });
  }
  return specs;
}

/** One spec's picture on GitHub, or why there is none. */
export async function githubSpec(github: Gateway, spec: string): Promise<GitHubSpec> {
  const found = (await githubSpecs(github, spec))[0];
  if (!found || found.plans.length === 0) {
    throw new McpToolError(
      `${spec} has no plan issues on ${github.repo.owner}/${github.repo.repo}: the harness App opens them when a pull request adding the spec is opened and the spec is valid (the "harness / spec" check); open the spec PR, or check that the App is installed`,
    );
  }
  return found;
}

export function githubPlan(github: Gateway, spec: GitHubSpec, plan: string): GitHubPlan {
  const found = spec.plans.find((p) => p.plan === plan);
  if (!found)
    throw new McpToolError(
      `${spec.spec} has no plan issue for ${plan} on ${github.repo.owner}/${github.repo.repo}: its plans are ${spec.plans.map((p) => p.plan).join(', ')}`,
    );
  return found;
}
