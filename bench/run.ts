/**
 * The benchmark runner: `npm run bench` runs every `bench/<name>.bench.ts`;
 * `npm run bench -- <name> [args…]` runs one, passing it the rest of the arguments.
 *
 * A module either default-exports a BenchModule (see lib.ts): the runner prints its
 * notes, table and targets, writes bench/results/<name>.json, and exits 1 when a target
 * is missed; or it exports `run()`, which reports and writes its results itself.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatTable, machine, type BenchModule } from './lib.js';

const here = dirname(fileURLToPath(import.meta.url));
const SUFFIX = '.bench.ts';

async function discover(): Promise<string[]> {
  return (await readdir(here))
    .filter((f) => f.endsWith(SUFFIX))
    .map((f) => f.slice(0, -SUFFIX.length))
    .sort();
}

type Loaded = { kind: 'module'; module: BenchModule } | { kind: 'self-reporting'; run: (args: string[]) => Promise<unknown> };

async function load(name: string): Promise<Loaded> {
  const mod = (await import(pathToFileURL(join(here, `${name}${SUFFIX}`)).href)) as { default?: BenchModule; run?: (args: string[]) => Promise<unknown> };
  if (mod.default && typeof mod.default.run === 'function') return { kind: 'module', module: mod.default };
  if (typeof mod.run === 'function') return { kind: 'self-reporting', run: mod.run };
  throw new Error(`bench/${name}${SUFFIX} exports neither a benchmark module (default) nor run()`);
}

async function main(argv: string[]): Promise<number> {
  const available = await discover();
  const [first, ...rest] = argv;
  if (first === '-h' || first === '--help') {
    process.stdout.write(`Usage: npm run bench [-- <name> [options]]\n\nBenchmarks: ${available.join(', ')}\n`);
    return 0;
  }
  const names = first === undefined || first.startsWith('--') ? available : [first];
  const args = first === undefined || first.startsWith('--') ? argv : rest;
  const unknown = names.filter((n) => !available.includes(n));
  if (unknown.length > 0) {
    process.stderr.write(`bench: no benchmark "${unknown.join('", "')}"; there are: ${available.join(', ')}\n`);
    return 2;
  }

  const resultsDir = join(here, 'results');
  await mkdir(resultsDir, { recursive: true });
  const host = machine();
  let missed = 0;
  process.stdout.write(
    `machine: ${host.cpu}, ${host.cores} cores, ${host.memoryGiB} GiB, Node ${host.node} (${host.platform}/${host.arch}), load average ${host.load}\n`,
  );
  for (const name of names) {
    const loaded = await load(name);
    if (loaded.kind === 'self-reporting') {
      process.stdout.write(`\n## ${name}\n\n`);
      await loaded.run(args);
      continue;
    }
    const mod = loaded.module;
    process.stdout.write(`\n## ${mod.name}: ${mod.description}\n\n`);
    const started = Date.now();
    const report = await mod.run({ args, log: (line) => process.stderr.write(`[${name}] ${line}\n`) });
    for (const note of report.notes) process.stdout.write(`${note}\n`);
    process.stdout.write(`\n${formatTable(report.rows)}\n`);
    for (const t of report.targets) {
      process.stdout.write(`${t.met ? 'met   ' : 'MISSED'}  ${t.name}: ${t.detail}\n`);
      if (!t.met) missed++;
    }
    const out = join(resultsDir, `${name}.json`);
    const record = {
      bench: name,
      date: new Date().toISOString(),
      seconds: (Date.now() - started) / 1000,
      machine: host,
      args,
      targets: report.targets,
      results: report.results,
    };
    await writeFile(out, `${JSON.stringify(record, null, 2)}\n`);
    process.stdout.write(`\nresults: ${out}\n`);
  }
  return missed > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 70;
  },
);
