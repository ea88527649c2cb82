import type { VerificationReport } from '../engine/core/verify/levels.js';

/** Why a report did not pass, in one line for core.setFailed: each failed check with the first line of its evidence. */
export function verificationFailure(report: VerificationReport): string {
  const what = report.level === 'plan' ? `plan ${report.id}` : `phase ${report.id}`;
  const failed = report.results.filter((r) => r.status === 'fail');
  const reasons = failed.map((r) => `${r.plan === undefined ? r.id : `${r.plan}/${r.id}`} (${r.evidence.split('\n')[0]})`);
  const parts: string[] = [];
  if (failed.length > 0) parts.push(`${failed.length} check${failed.length === 1 ? '' : 's'} failed: ${reasons.join('; ')}`);
  parts.push(...report.problems);
  const waiting = report.results.filter((r) => r.status === 'human');
  if (parts.length === 0 && waiting.length > 0) parts.push(`${waiting.length} human check${waiting.length === 1 ? '' : 's'} not approved: ${waiting.map((r) => (r.plan === undefined ? r.id : `${r.plan}/${r.id}`)).join(', ')}`);
  return `${what} did not pass verification: ${parts.join('; ') || 'no reason given'}`;
}
