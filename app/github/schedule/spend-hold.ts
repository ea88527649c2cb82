import type { Context } from 'probot';
import type { HarnessConfig } from '../../engine/core/config/schema.js';
import { capsDecision, DAY_MS, type CapsDecision, type SpendRecord } from '../../engine/core/run/spend-caps.js';
import { parseMarker, withMarkerRecord } from '../../engine/forge/plan-issue.js';
import type { RoundIssue } from '../../engine/forge/round-plan.js';
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
    for (const r of runs.runs)
      if (r.usage.costUsd) out.push({ spec: marker.spec, plan: marker.plan, costUsd: r.usage.costUsd, at: new Date((r.start + r.seconds) * 1000) });
  }
  return out;
}

/** Whether a round may start plans of `spec` now; undefined when no cap is set. */
export async function spendHold(
  context: Context,
  spec: string,
  issues: readonly IssueRecord[],
  config: Pick<HarnessConfig, 'budget'>,
  now: Date,
): Promise<CapsDecision | undefined> {
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

/** The hidden line that opens the note on a plan issue held at a cap. */
export function heldNoteMarker(spec: string, plan: string): string {
  return `<!-- harness:held ${spec}/${plan} -->`;
}

/**
 * Each plan a round would have started but holds at the cap, told so once on its issue: its
 * marker line records the cap first (`held=`, outside the hash), then the note is posted, so a
 * later round of the same hold writes nothing (a crash between the two loses the note, never
 * doubles it; the spec PR's status comment says the same). Returns the issues as they are after.
 */
export async function noteHeldPlans(
  context: Context,
  issues: readonly RoundIssue[],
  caps: Extract<CapsDecision, { open: false }>,
): Promise<Map<number, IssueRecord>> {
  const github = appGateway(context);
  const written = new Map<number, IssueRecord>();
  for (const issue of issues) {
    const marker = parseMarker(issue.body);
    if (!marker || marker.held === caps.cap) continue;
    written.set(issue.number, await github.updateIssue(issue.number, { body: withMarkerRecord(issue.body ?? '', 'held', caps.cap) }));
    const when = caps.reopensAt
      ? ` It starts at the first scheduling round after the window frees at ${caps.reopensAt.toISOString()} (a worker finishing, a merge, any \`/harness execute\`), or as soon as`
      : ' It starts once';
    await github.comment(
      issue.number,
      `${heldNoteMarker(marker.spec, marker.plan)}\n⏸️ **${marker.plan} is ready and waits at the spend cap:** ${caps.message}.${when} a writer raises \`budget.${caps.cap}\` in \`.github/harness.yml\` on the default branch.`,
    );
  }
  return written;
}

/** The issue as a round starts its plan: the spend-cap record gone (the status write takes it along). */
export function withoutHeld<T extends { body: string | null }>(issue: T): T {
  return issue.body !== null && parseMarker(issue.body)?.held !== undefined ? { ...issue, body: withMarkerRecord(issue.body, 'held', undefined) } : issue;
}
