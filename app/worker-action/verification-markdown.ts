import type { LevelResult, VerificationReport } from '../engine/core/verify/levels.js';

const MARK: Record<LevelResult['status'], string> = { pass: '✅ pass', fail: '❌ fail', human: '⏸️ waits for a person' };
/** A table cell holds the first line of the evidence; failures show all of it below the table. */
const CELL_MAX = 200;
const DETAIL_MAX = 4_000;

function cell(text: string): string {
  const line = text.split('\n')[0] ?? '';
  const short = line.length > CELL_MAX ? `${line.slice(0, CELL_MAX - 1)}…` : line;
  return short.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/</g, '&lt;');
}

/** A fence longer than any run of backticks in the text. */
function fenced(text: string): string {
  const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${fence}\n${text}\n${fence}`;
}

function name(result: LevelResult): string {
  return result.plan === undefined ? result.id : `${result.plan}/${result.id}`;
}

/** A verification report as Markdown: one row per check, then the full evidence of what failed and any problem. */
export function verificationMarkdown(report: VerificationReport): string {
  const lines = ['| Check | Type | Result | Evidence |', '|---|---|---|---|'];
  for (const r of report.results) lines.push(`| \`${name(r)}\` | ${r.type} | ${MARK[r.status]} | ${cell(r.evidence)} |`);
  if (report.results.length === 0) lines.push('| – | – | – | no checks ran |');
  for (const r of report.results.filter((x) => x.status === 'fail' && x.evidence.includes('\n'))) {
    const evidence = r.evidence.length > DETAIL_MAX ? `${r.evidence.slice(0, DETAIL_MAX)}\n…(cut)` : r.evidence;
    lines.push('', `<details><summary><code>${name(r)}</code> evidence</summary>`, '', fenced(evidence), '', '</details>');
  }
  if (report.problems.length > 0) lines.push('', ...report.problems.map((p) => `- ⚠️ ${p}`));
  return lines.join('\n');
}
