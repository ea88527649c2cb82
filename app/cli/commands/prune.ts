import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import type { GeneChange } from '../../engine/knowledge/genes/decay.js';
import { geneSettingsOf } from '../../engine/knowledge/genes/gene-settings.js';
import { makeSafe, secretValues, type SafetyOptions } from '../../machine/content-safety.js';
import { isDirectory } from '../../machine/files.js';
import { pruneLocally, type LocalPrune } from '../../machine/local-prune.js';
import { EXIT, UsageError, type CliIO } from '../io.js';
import { displayPath } from '../spec-input.js';
import { knowledgePlace, parseAt, readConfig } from './knowledge-place.js';
import { oneLine } from '../../engine/core/spec/problem.js';

export const usage = `Usage: harness prune [--knowledge DIR] [--at TIME] [--dry-run] [--json]

The life of genes, decided from the trajectory: repairs of the same failure in at least
knowledge.genes.solidify_after (2) plans become a candidate gene; a candidate that meets its
tier is promoted (tier 1: success rate >= 0.7 over >= 2 applications; tier 2 also a GDI score
>= 0.6 and an impact scope <= 5 files; tier 3 also its validation commands seen passing in a
worker, and a person's review); an active gene whose success rate fell below 0.5 goes back to
candidate; a gene not applied for 7 days is deprecated, and a deprecated one not applied for
14 days is removed. Thresholds: knowledge.genes in .github/harness.yml.

Options:
  --knowledge DIR  the knowledge store (default: .harness/knowledge in this repository)
  --at TIME        decide as of this ISO-8601 time (default: now), e.g. to see next week's decay
  --dry-run        decide and report, write nothing
  --json           print the stable JSON report (see docs/knowledge.md: Genes and capsules)
  -h, --help       show this help

The changes are written into the store (new and changed gene files, removed ones deleted, one
trajectory line each): review them and commit them. On GitHub the decay workflow makes each a PR.

Exit: 0 done (or nothing to do), 1 a gene, a capsule or the config has problems, 2 usage error.
`;

/** The stable `harness prune --json` report. */
export interface PruneJson {
  at: string;
  solidified: { path: string; signature: string; name: string; evidence: string[] }[];
  changes: { path: string; action: GeneChange['action']; from: string; to: string | null; reason: string; tier?: number; gdi?: number }[];
  kept: { path: string; status: string; why: string }[];
  waiting: { signature: string; repairs: number }[];
  problems: { path: string; line: number; message: string }[];
  written: string[];
  removed: string[];
}

export async function pruneCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { knowledge: { type: 'string' }, at: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"; the store is given with --knowledge DIR`);
  const at = parseAt(values.at);
  const place = await knowledgePlace(io, values.knowledge);
  const config = await readConfig(place.repoRoot, io, 'prune');
  if (!config) return EXIT.problems;
  const dryRun = values['dry-run'] === true;
  const where = displayPath(relative(io.cwd, place.store) || '.');
  if (!(await isDirectory(place.store))) {
    if (values.json) io.stdout(`${JSON.stringify(emptyReport(at), null, 2)}\n`);
    else io.stdout(`Nothing to prune: there is no knowledge store at ${where} yet.\n`);
    return EXIT.ok;
  }
  const safety: SafetyOptions = { roots: [...new Set([place.root, place.repoRoot, place.store, io.cwd])], secrets: secretValues(io.env) };
  const result = await pruneLocally({
    store: place.store,
    root: place.root,
    settings: geneSettingsOf(config.knowledge.genes),
    now: at,
    project: place.project,
    write: !dryRun,
    safety,
  });
  for (const p of result.problems) io.stderr(`${p.path}:${p.line}: ${p.message}\n`);
  const report = await jsonReport(result, at, safety);
  if (values.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout(human(report, where, dryRun));
  if (result.problems.length > 0) {
    io.stderr(
      `harness prune: ${result.problems.length} gene or capsule file${result.problems.length === 1 ? '' : 's'} could not be read (above); fix and prune again\n`,
    );
    return EXIT.problems;
  }
  return EXIT.ok;
}

function emptyReport(at: Date): PruneJson {
  return { at: at.toISOString(), solidified: [], changes: [], kept: [], waiting: [], problems: [], written: [], removed: [] };
}

async function jsonReport(result: LocalPrune, at: Date, safety: SafetyOptions): Promise<PruneJson> {
  // Names and reasons quote error messages from agents: what leaves the process is made safe.
  const safe = async (t: string) => (await makeSafe(t, safety)).text;
  return {
    at: at.toISOString(),
    solidified: await Promise.all(
      result.solidified.candidates.map(async (c) => ({ path: c.path, signature: await safe(c.signature), name: await safe(c.name), evidence: c.evidence })),
    ),
    changes: await Promise.all(
      result.decayed.changes.map(async (c) => ({
        path: c.path,
        action: c.action,
        from: c.from,
        to: c.to ?? null,
        reason: await safe(c.reason),
        ...(c.verdict ? { tier: c.verdict.tier, gdi: c.verdict.gdi } : {}),
      })),
    ),
    kept: await Promise.all(result.decayed.kept.map(async (k) => ({ path: k.path, status: k.status, why: await safe(k.why) }))),
    waiting: await Promise.all(result.solidified.waiting.map(async (w) => ({ signature: await safe(w.signature), repairs: w.repairs }))),
    problems: result.problems,
    written: result.written.map((w) => w.path),
    removed: result.removed,
  };
}

const VERB = { promote: 'promote ', deprecate: 'deprecate', demote: 'demote  ', remove: 'remove  ' } as const;

function human(r: PruneJson, where: string, dryRun: boolean): string {
  const lines: string[] = [];
  const n = r.solidified.length + r.changes.length;
  lines.push(
    n === 0 ? `Nothing to change in ${where} as of ${r.at}.` : `${dryRun ? 'Would make' : 'Made'} ${n} change${n === 1 ? '' : 's'} in ${where} as of ${r.at}:`,
  );
  for (const s of r.solidified) lines.push(`  new       ${oneLine(s.path)}`, `            candidate: ${oneLine(s.name)} (${s.evidence.length} repairs)`);
  for (const c of r.changes) lines.push(`  ${VERB[c.action]} ${oneLine(c.path)}`, `            ${c.from} → ${c.to ?? 'removed'}: ${oneLine(c.reason)}`);
  if (r.kept.length > 0) {
    lines.push('', `${r.kept.length} gene${r.kept.length === 1 ? '' : 's'} kept as ${r.kept.length === 1 ? 'it is' : 'they are'}:`);
    for (const k of r.kept) lines.push(`  ${k.status.padEnd(10)} ${oneLine(k.path)}: ${oneLine(k.why)}`);
  }
  if (r.waiting.length > 0) {
    lines.push('', 'Repaired too few times yet to be a gene:');
    for (const w of r.waiting) lines.push(`  ${w.repairs}×  ${oneLine(w.signature)}`);
  }
  if (n > 0)
    lines.push('', dryRun ? 'Dry run: nothing was written.' : `Written into ${where}: review the genes, then commit them; on GitHub each change is a PR.`);
  return `${lines.join('\n')}\n`;
}
