import type { Difference } from './stats.js';
import { intervalText, signed, type Comparison, type GroupFigures, type HoldoutReport } from './comparison.js';

/**
 * `harness retrospective`'s holdout report as text (and, on GitHub, in the command's answer): the
 * figures for the plans offered knowledge and the held-out ones, each difference with its 95%
 * interval, the verdict in a sentence, then per spec, per piece of knowledge and what is
 * proposed for retirement.
 */

function percent(n: number | undefined): string {
  return n === undefined ? '-' : `${Math.round(n * 100)}%`;
}

function usd(n: number | undefined): string {
  return n === undefined ? '-' : `$${n.toFixed(2)}`;
}

function group(label: string, g: GroupFigures): string {
  const cost = g.meanCostUsd === undefined ? '-' : `${usd(g.meanCostUsd)}${g.costed < g.plans ? ` (${g.costed} of them)` : ''}`;
  return `  ${label.padEnd(15)} ${String(g.plans).padStart(5)}  ${`${g.firstPass} (${percent(g.passRate)})`.padEnd(19)} ${(g.meanAttempts === undefined ? '-' : g.meanAttempts.toFixed(2)).padEnd(14)} ${cost}`;
}

/** `−$0.11`: a signed amount in dollars. */
function signedUsd(n: number): string {
  return signed(n).replace(/^([+−]?)/, '$1$$');
}

function difference(d: Difference | undefined, money = false): string {
  if (d === undefined) return '-';
  return money ? `${signedUsd(d.estimate)} (${signedUsd(d.low)} to ${signedUsd(d.high)})` : `${signed(d.estimate)} (${intervalText(d)})`;
}

function table(c: Comparison): string[] {
  return [
    `  ${''.padEnd(15)} ${'plans'.padStart(5)}  ${'first-attempt pass'.padEnd(19)} ${'mean attempts'.padEnd(14)} mean cost`,
    group('with knowledge', c.withKnowledge),
    group('held out', c.heldOut),
    `  ${'difference'.padEnd(15)} ${''.padStart(5)}  ${difference(c.passRate).padEnd(19)} ${difference(c.attempts).padEnd(14)} ${difference(c.costUsd, true)}`,
  ];
}

export function holdoutText(report: HoldoutReport, options: { fraction: number; seed: string }): string {
  const held = report.overall.heldOut.plans;
  const lines = [
    `The holdout (knowledge.holdout ${options.fraction}${options.fraction > 0 ? `, seed ${JSON.stringify(options.seed)}` : ', off'}): ${report.plans} plan${report.plans === 1 ? '' : 's'} on record, ${held} held out.`,
  ];
  if (report.plans === 0) {
    lines.push(
      options.fraction > 0
        ? '  No plan has been recorded since the holdout was turned on: run some, then ask again.'
        : '  Turn it on with knowledge.holdout in .github/harness.yml (docs/knowledge.md, The holdout).',
    );
    return `${lines.join('\n')}\n`;
  }
  lines.push('', ...table(report.overall), `  ${report.overall.says}.`);
  if (report.specs.length > 1 || (report.specs.length === 1 && report.specs[0]!.withKnowledge.plans + report.specs[0]!.heldOut.plans !== report.plans)) {
    const projects = new Set(report.specs.map((s) => s.project)).size;
    lines.push('', 'Per spec:');
    for (const s of report.specs) {
      const name = projects > 1 ? `${s.project}/${s.spec}` : s.spec;
      lines.push(
        `  ${name}: ${s.withKnowledge.plans} with knowledge (${percent(s.withKnowledge.passRate)} first time), ${s.heldOut.plans} held out (${percent(s.heldOut.passRate)}); ${s.says}`,
      );
    }
  }
  if (report.items.length > 0) {
    lines.push('', `Per piece of knowledge (the plans it was in the first brief of, against the ${held} held-out plan${held === 1 ? '' : 's'}):`);
    for (const i of report.items) {
      lines.push(
        `  ${i.kind} ${i.path}: ${i.withKnowledge.plans} plan${i.withKnowledge.plans === 1 ? '' : 's'}, ${i.withKnowledge.firstPass} passed first time (${percent(i.withKnowledge.passRate)}); ${i.says}`,
      );
    }
  }
  if (report.retire.length > 0) {
    lines.push('', `Proposed for retirement (in ${report.retireAfter} plans or more, and no better than the held-out ones):`);
    for (const r of report.retire) lines.push(`  ${r.kind} ${r.path}: ${r.reason}`);
  }
  return `${lines.join('\n')}\n`;
}
