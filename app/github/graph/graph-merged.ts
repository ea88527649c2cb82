import type { Context } from 'probot';
import { parseGraphBranch, settledComment, graphCommentMarker } from '../../engine/forge/graph-proposal.js';
import { dependsOnFromBody, parseMarker } from '../../engine/forge/plan-issue.js';
import { appGateway } from '../app-gateway.js';
import { readConfig } from '../config.js';
import { scheduleRound } from '../schedule/round.js';
import { syncPlanIssues } from '../spec-pr/sync-plan-issues.js';
import { upsertGraphComment } from './graph-comment.js';
import { noteUndoneLinks } from './undone-links.js';
import { readSpecAt, specFileText, specPathFromBody } from './spec-source.js';

/**
 * A spec's proposals PR (`harness/graph/<spec>`) merged: the spec changed on its branch, and
 * nothing else syncs a merged spec, so the plan issues are synced from it here as a spec PR's
 * are (labels `needs:`, the native links, the bodies), the comments that said a change was
 * pending say it is not any more, and a scheduling round acts on the spec as it is now. Closed
 * without merging, nothing changes: the spec was the truth all along, and the next sync puts
 * the links back as it says.
 */
export async function onGraphPrClosed(context: Context<'pull_request.closed'>): Promise<void> {
  const pr = context.payload.pull_request;
  const spec = parseGraphBranch(pr.head.ref);
  if (spec === undefined || !pr.merged || pr.head.repo?.full_name !== context.payload.repository.full_name) return;
  const github = appGateway(context);
  const listed = await github.planIssues(spec);
  const { config } = await readConfig(context);
  const specPath = [...listed.byPlan.values()].map((i) => specPathFromBody(i.body, config.specs_root)).find((p) => p !== undefined);
  if (specPath === undefined) return;
  const source = await readSpecAt(github, { kind: 'default', branch: pr.base.ref }, specPath, spec);
  if (!source) {
    context.log.warn(
      `${spec}: #${pr.number} merged, but the spec at ${specPath} on ${pr.base.ref} is not valid; its plan issues stay as they were until a spec PR fixes it`,
    );
    return;
  }
  // The edges the issues had before (the Depends on line the App wrote in each body, never the needs: labels, which the
  // triage role can change) against the merged spec's: what the merge changed.
  const changed: { plan: string; on: string; number: number; onNumber: number; inSpec: boolean }[] = [];
  for (const plan of source.spec.plans) {
    const issue = listed.byPlan.get(plan.id);
    if (!issue) continue;
    const before = dependsOnFromBody(issue.body) ?? [];
    for (const on of new Set([...before, ...plan.dependsOn])) {
      const inSpec = plan.dependsOn.includes(on);
      const onNumber = listed.byPlan.get(on)?.number;
      if (inSpec === before.includes(on) || onNumber === undefined) continue;
      changed.push({ plan: plan.id, on, number: issue.number, onNumber, inSpec });
    }
  }
  const synced = await syncPlanIssues({
    github,
    spec: source.spec,
    planTexts: new Map(source.spec.plans.map((p) => [p.file, specFileText(source, p.file) ?? ''])),
    specPath,
    blobBase: `${context.payload.repository.html_url}/blob/${pr.base.ref}`,
    pull: pr.number,
    issues: listed,
  });
  await noteUndoneLinks(github, { spec: source.spec, specPath, pull: pr.number }, synced.issues, synced.undone);
  for (const c of changed) {
    const edge = { spec, plan: c.plan, on: c.on };
    await upsertGraphComment(github, c.number, graphCommentMarker(edge), settledComment(edge, { plan: c.number, on: c.onNumber }, c.inSpec), true);
  }
  context.log.info(`${spec}: #${pr.number} merged; ${changed.length} dependency change(s) synced to the plan issues`);
  const issues = [...synced.issues.values()].filter((i) => parseMarker(i.body)?.spec === spec);
  await scheduleRound(context, spec, { issues, base: pr.base.ref });
}
