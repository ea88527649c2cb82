import type { Audit } from './skill-audit.js';
import type { Extraction } from './skill-extraction.js';

/** What `harness skills --stats` and `--prune` print, and `/harness audit` answers (in a code block). */

/** Each active skill's figures as a table: matches, uses, failures, success, last match, age. */
export function statsText(audit: Audit): string {
  if (audit.stats.length === 0) return 'No active skills.\n';
  const rows = audit.stats.map((s) => [
    s.name,
    String(s.matches),
    String(s.uses),
    String(s.failures),
    s.successRate === undefined ? '-' : `${Math.round(s.successRate * 100)}%`,
    s.lastMatch?.slice(0, 10) ?? 'never',
    s.ageDays === undefined ? '?' : `${s.ageDays}d`,
  ]);
  const head = ['skill', 'matches', 'uses', 'failures', 'success', 'last match', 'age'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return `${[head, ...rows]
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')}\n`;
}

/** The skills to archive and why; `written` says whether they were moved already. */
export function pruneText(audit: Audit, written: boolean, where: string): string {
  if (audit.prune.length === 0) return `Nothing to prune among ${audit.stats.length} active skill${audit.stats.length === 1 ? '' : 's'}.\n`;
  const lines = [
    `${audit.prune.length} skill${audit.prune.length === 1 ? '' : 's'} to archive:`,
    ...audit.prune.map((p) => `  ${p.name}  ${p.rule}: ${p.reason}`),
  ];
  lines.push(
    '',
    written
      ? `Moved to skills-archived/ in ${where} with the reasons; commit them as the archive PR.`
      : 'Nothing was moved; --write moves them to skills-archived/ for an archive PR.',
  );
  return `${lines.join('\n')}\n`;
}

/** Every candidate with each gate's verdict, extracted and skipped alike: the same text the App posts for /harness retrospective. */
export function retrospectiveText(extractions: readonly Extraction[], o: { store: string; dryRun: boolean; spec?: string }): string {
  const of = o.spec ? `${o.spec}'s run` : 'the store';
  if (extractions.length === 0)
    return `No candidate skills in ${of} (${o.store}): no plan was repaired, no agent reported a fix, no lesson has enough evidence.\n`;
  const count = (d: Extraction['decision']) => extractions.filter((x) => x.decision === d).length;
  const lines = [
    `${extractions.length} candidate skill${extractions.length === 1 ? '' : 's'} in ${of}: ${count('extracted')} ${o.dryRun ? 'would be extracted' : 'extracted'}, ${count('linked')} linked, ${count('skipped')} skipped.`,
    '',
  ];
  for (const x of extractions) {
    lines.push(
      `${x.decision.padEnd(9)} ${x.path ?? `skills/${x.name}`}  (${x.candidate.source} ${x.candidate.spec ?? ''}${x.candidate.plan ? `/${x.candidate.plan}` : ''})`.replace(
        / \)$/,
        ')',
      ),
    );
    lines.push(`          ${x.candidate.title}`);
    for (const v of x.verdicts) lines.push(`          ${v.pass ? 'PASS' : 'FAIL'} ${v.gate}: ${v.reason}`);
    if (x.decision === 'linked') lines.push(`          ${x.reason}`);
  }
  if (count('extracted') > 0)
    lines.push(
      '',
      o.dryRun ? 'Dry run: nothing was written.' : `Written into ${o.store}: review the skills, then commit them; a skill counts once it is merged.`,
    );
  return `${lines.join('\n')}\n`;
}
