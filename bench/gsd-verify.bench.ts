/**
 * GSD's `<verify>` through `harness import`: of the plans whose source has a `<verify>`, how
 * many gain a command or content check, and how many of those checks could not fail (their
 * status an echo's, a display trim's, `|| true`). Run on GSD `.planning/` trees you have:
 *
 *   npm run bench -- gsd-verify <repository-with-.planning> […]
 *
 * With no tree given it says so and measures nothing (the trees are other people's projects,
 * not shipped here). Writes bench/results/gsd-verify.json.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { main } from '../app/cli/main.js';
import { plural } from '../app/engine/core/plural.js';

/**
 * What makes a command's status (or a part of it) say nothing, whatever the work did: a
 * fallback that always succeeds, a display trim at the end of a part of the chain, an echo last.
 */
const CANNOT_FAIL = /\|\|\s*(?:true|:|echo\b)|\|\s*(?:head|tail|wc)\b[^|&;]*(?:&&|;|$)|;\s*echo\b[^|&;]*$|&&\s*echo\b[^|&;]*$|^\s*(?:echo|true|:)\b[^|]*$/;

interface TreeResult {
  tree: string;
  exit: number;
  withVerify: number;
  gained: number;
  checks: number;
  cannotFail: string[];
}

async function measure(tree: string): Promise<TreeResult> {
  const work = await mkdtemp(join(tmpdir(), 'harness-gsd-verify-'));
  const out = join(work, 'SPC-900-measured');
  let stdout = '';
  const exit = await main(['import', join(tree, '.planning'), out, '--json'], {
    stdout: (t) => void (stdout += t),
    stderr: () => undefined,
    cwd: work,
    env: process.env,
    isTTY: false,
  });
  const report = JSON.parse(stdout) as { written: { path: string; from: string | null }[] };
  const result: TreeResult = { tree: basename(tree), exit, withVerify: 0, gained: 0, checks: 0, cannotFail: [] };
  for (const w of report.written) {
    if (!w.from || !w.path.endsWith('-PLAN.md') || !w.path.startsWith('planning/plans/')) continue;
    if (!/<verify>/.test(await readFile(join(tree, '.planning', w.from), 'utf8'))) continue;
    result.withVerify++;
    const text = await readFile(join(out, w.path), 'utf8');
    const data = parse(text.split('\n---\n')[0]!.replace(/^---\n/, '')) as { must_pass?: { id: string; command?: string }[] };
    const mine = (data.must_pass ?? []).filter((c) => c.id.startsWith('verify-'));
    if (mine.length > 0) result.gained++;
    result.checks += mine.length;
    for (const c of mine) if (c.command !== undefined && CANNOT_FAIL.test(c.command)) result.cannotFail.push(`${w.path}: ${c.command}`);
  }
  await rm(work, { recursive: true, force: true });
  return result;
}

export async function run(args: string[]): Promise<unknown> {
  if (args.length === 0) {
    process.stdout.write('gsd-verify: give the repositories (each with a .planning/ tree) to measure: npm run bench -- gsd-verify <dir> […]\n');
    return undefined;
  }
  const results: TreeResult[] = [];
  for (const tree of args) results.push(await measure(tree));
  const total = { withVerify: 0, gained: 0, checks: 0, cannotFail: 0 };
  for (const r of results) {
    process.stdout.write(
      `${r.tree}: ${r.gained}/${r.withVerify} plans with <verify> gained a check (${plural(r.checks, 'check')}, ${r.cannotFail.length} that cannot fail); import exit ${r.exit}\n`,
    );
    for (const c of r.cannotFail) process.stdout.write(`  cannot fail: ${c}\n`);
    total.withVerify += r.withVerify;
    total.gained += r.gained;
    total.checks += r.checks;
    total.cannotFail += r.cannotFail.length;
  }
  const share = total.withVerify === 0 ? 0 : Math.round((total.gained / total.withVerify) * 1000) / 10;
  process.stdout.write(`all: ${total.gained}/${total.withVerify} (${share}%) gained a check; ${total.checks} checks, ${total.cannotFail} that cannot fail\n`);
  const report = {
    at: new Date().toISOString(),
    trees: results.map(({ cannotFail, ...r }) => ({ ...r, cannotFail: cannotFail.length })),
    total: { ...total, share },
  };
  await writeFile(fileURLToPath(new URL('results/gsd-verify.json', import.meta.url)), `${JSON.stringify(report, null, 2)}\n`);
  return report;
}
