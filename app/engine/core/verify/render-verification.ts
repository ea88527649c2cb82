import { plural } from '../plural.js';
import { renderTemplate } from '../documents/render-template.js';
import type { CHECK_RESULTS, Verification } from '../documents/schema.js';
import { planPhase } from '../spec/model.js';
import type { CheckStatus } from './check-result.js';
import type { LevelResult, VerificationReport } from './levels.js';

/**
 * VERIFICATION.md from a report: frontmatter in the form documents/schema.ts reads back
 * (VerificationSchema), and a body a person scans, following templates/VERIFICATION.md.
 */

/** The shape of templates/VERIFICATION.md, used when the caller passes no template text. */
const BUILT_IN = '---\n---\n\n# Verification: {{title}}\n\n## Result\n\n{{result}}\n\n## Checks\n\n{{checks}}\n\n## Follow-up\n\n{{follow_up}}\n';

export interface RenderVerificationOptions {
  /** The text of templates/VERIFICATION.md; the built-in layout (the same headings) otherwise. */
  template?: string;
  /** Heading, e.g. the phase or plan title. */
  title?: string;
  /** The commit whose tree was checked. */
  commit?: string;
  attempt?: number;
}

const STATUS: Record<CheckStatus, Verification['status']> = { pass: 'verified', fail: 'failed', human: 'needs-human' };
const RESULT: Record<CheckStatus, (typeof CHECK_RESULTS)[number]> = { pass: 'pass', fail: 'fail', human: 'skipped-for-human' };
const MARK: Record<CheckStatus, string> = { pass: '✅ pass', fail: '❌ fail', human: '👤 needs a person' };

/** Markdown table cells hold one line: pipes escaped, newlines as <br>. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

function frontmatter(report: VerificationReport, options: RenderVerificationOptions): Record<string, unknown> {
  const plan = report.level === 'plan' ? report.id : undefined;
  return {
    level: report.level,
    spec: report.spec,
    phase: report.level === 'phase' ? report.id : planPhase(report.id),
    plan,
    status: STATUS[report.status],
    verified_at: report.finishedAt,
    commit: options.commit,
    attempt: options.attempt ?? 1,
    checks: report.results.map((r) => ({
      id: r.id,
      type: r.type,
      plan: r.plan,
      result: RESULT[r.status],
      evidence: r.evidence,
      duration_seconds: seconds(r.durationMs),
    })),
  };
}

function summary(report: VerificationReport): string {
  const count = (s: CheckStatus) => report.results.filter((r) => r.status === s).length;
  const what = report.level === 'plan' ? `Plan ${report.id}` : `Phase ${report.id}`;
  const tally = `${count('pass')} passed, ${count('fail')} failed, ${count('human')} waiting for a person, of ${plural(report.results.length, 'check')}`;
  const verdict =
    report.status === 'pass'
      ? `**Verified.** ${what}: every check passed.`
      : report.status === 'human'
        ? `**Needs a person.** ${what}: the machine checks passed; the checks marked 👤 wait for an answer.`
        : `**Failed.** ${what}: see the failing checks below.`;
  return `${verdict}\n\n${tally}. Checked from ${report.startedAt} to ${report.finishedAt}.`;
}

function table(results: readonly LevelResult[]): string {
  if (results.length === 0) return '_No checks ran._';
  const byPlan = results.some((r) => r.plan !== undefined);
  const head = byPlan ? '| plan | check | type | result | evidence |\n|---|---|---|---|---|' : '| check | type | result | evidence |\n|---|---|---|---|';
  const rows = results.map((r) => {
    const cells = [r.id, r.type, MARK[r.status], cell(r.evidence)];
    if (byPlan) cells.unshift(r.plan ?? 'phase');
    return `| ${cells.join(' | ')} |`;
  });
  return [head, ...rows].join('\n');
}

function followUp(report: VerificationReport): string {
  const items = [
    ...report.problems.map((p) => `- ${p}`),
    ...report.results
      .filter((r) => r.status !== 'pass')
      .map((r) => `- ${r.plan ? `${r.plan}/` : ''}${r.id} (${r.status === 'fail' ? 'fix' : 'answer'}): ${r.evidence.split('\n')[0]}`),
  ];
  return items.length > 0 ? items.join('\n') : 'None.';
}

/** The whole VERIFICATION.md. Pure: the caller reads the template and writes the file. */
export function renderVerification(report: VerificationReport, options: RenderVerificationOptions = {}): string {
  const title = options.title ?? (report.level === 'plan' ? `plan ${report.id}` : `phase ${report.id}`);
  return renderTemplate(options.template ?? BUILT_IN, frontmatter(report, options), {
    title,
    result: summary(report),
    checks: table(report.results),
    follow_up: followUp(report),
  });
}
