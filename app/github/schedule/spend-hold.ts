import type { Context } from 'probot';
import type { HarnessConfig } from '../../engine/core/config/schema.js';
import { capsDecision, DAY_MS, type CapsDecision, type SpendRecord } from '../../engine/core/run/spend-caps.js';
import { parseMarker } from '../../engine/forge/plan-issue.js';
import type { IssueRecord } from '../../gateway/issues.js';
import { appGateway } from '../app-gateway.js';

/**
 * The repository's spend caps on GitHub (`budget: { per_day_usd, per_spec_usd }` in
 * .github/harness.yml), decided before a scheduling round starts plans. What was spent is what
 * the workers recorded on their plan issues (each run's cost and when it ended: `runs=`,
 * forge/run-record.ts): the spec's own issues, which the round has read already, and for the
 * day's cap every plan issue of the repository updated in the last 24 hours (one listing,
 * `GET …/issues?labels=harness:plan&state=all&since=…`, only when per_day_usd is set). At a cap
 * the round starts nothing; what runs goes on (only its own budget stops it). The first round
 * after the window frees, or after a writer raises the cap, starts plans again.
 */

/** Each recorded run's cost, as spent when the run ended; runs folded out of the record count for the spec, not the day. */
export function spendRecords(issues: readonly Pick<IssueRecord, 'body'>[]): SpendRecord[] {
  const out: SpendRecord[] = [];
  for (const issue of issues) {
    const marker = parseMarker(issue.body);
    const runs = marker?.runs;
    if (!marker || !runs) continue;
    const earlier = runs.earlier?.usage.costUsd;
    if (earlier) out.push({ spec: marker.spec, plan: marker.plan, costUsd: earlier, at: new Date(0) });
    for (const r of runs.runs) if (r.usage.costUsd) out.push({ spec: marker.spec, plan: marker.plan, costUsd: r.usage.costUsd, at: new Date((r.start + r.seconds) * 1000) });
  }
  return out;
}

/** Whether a round may start plans of `spec` now; undefined when no cap is set. */
export async function spendHold(context: Context, spec: string, issues: readonly IssueRecord[], config: Pick<HarnessConfig, 'budget'>, now: Date): Promise<CapsDecision | undefined> {
  const caps = config.budget;
  if (caps?.per_day_usd === undefined && caps?.per_spec_usd === undefined) return undefined;
  const own = issues.filter((i) => parseMarker(i.body)?.spec === spec);
  let others: IssueRecord[] = [];
  if (caps.per_day_usd !== undefined) {
    const since = new Date(now.getTime() - DAY_MS).toISOString();
    const mine = new Set(own.map((i) => i.number));
    others = (await appGateway(context).planIssuesUpdatedSince(since)).filter((i) => !mine.has(i.number));
  }
  return capsDecision(caps, spendRecords([...own, ...others]), spec, now);
}
