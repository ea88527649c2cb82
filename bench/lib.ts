/**
 * What every benchmark module shares: its shape (so `bench/run.ts` can find, run and
 * report it), statistics, a table printer, the machine description, and a way to
 * measure in a fresh child process.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** One row of a module's table: column name → printed value. */
export type Row = Record<string, string | number>;

export interface Target {
  /** "5,000 plans in under 1 s". */
  name: string;
  met: boolean;
  /** What was measured against it. */
  detail: string;
}

export interface BenchReport {
  /** What the table shows and how it was measured, printed above it. */
  notes: string[];
  rows: Row[];
  targets: Target[];
  /** Everything measured, written to bench/results/<name>.json. */
  results: unknown;
}

export interface BenchContext {
  /** Arguments after the module's name: `npm run bench -- spec --runs 9`. */
  args: string[];
  /** Progress lines (stderr), so that stdout holds only the report. */
  log(line: string): void;
}

/**
 * A benchmark: a file `bench/<name>.bench.ts` whose default export is one of these.
 * `bench/run.ts` runs every module, or those named on its command line.
 */
export interface BenchModule {
  name: string;
  description: string;
  run(ctx: BenchContext): Promise<BenchReport>;
}

/** mulberry32: a small seeded generator, the same on every machine, so generated inputs repeat exactly. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function formatTable(rows: readonly Row[]): string {
  if (rows.length === 0) return '(no rows)\n';
  const columns = Object.keys(rows[0]!);
  const cells = rows.map((row) => columns.map((c) => String(row[c] ?? '')));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const numeric = columns.map((c) => rows.every((r) => typeof r[c] === 'number' || /^[\d.,]+( \w+)?$/.test(String(r[c]))));
  const line = (values: string[]) => `| ${values.map((v, i) => (numeric[i] ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join(' | ')} |`;
  return (
    [line(columns), `|${widths.map((w, i) => (numeric[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`, ...cells.map(line)].join('\n') + '\n'
  );
}

export interface Machine {
  node: string;
  platform: string;
  arch: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  /** 1-minute load average when the run started: other work on the machine skews timings. */
  load: number;
}

export function machine(): Machine {
  const list = cpus();
  return {
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    load: Math.round(loadavg()[0]! * 100) / 100,
  };
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BUILD = join(ROOT, 'node_modules', '.cache', 'harness-bench');

/**
 * Compile `entry` and every file it imports, relatively, to plain JavaScript under
 * node_modules/.cache/harness-bench, and return the path of the compiled entry. A child
 * then runs on bare Node, as the shipped CLI does, instead of under tsx (whose loader
 * thread alone adds some 60 MB of RSS and would swamp the memory measured).
 */
export async function compileForNode(entry: string): Promise<string> {
  const seen = new Set<string>();
  const queue = [resolve(entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = await readFile(file, 'utf8');
    for (const { fileName } of ts.preProcessFile(source, true, true).importedFiles) {
      if (fileName.startsWith('.')) queue.push(resolve(dirname(file), fileName.replace(/\.js$/, '.ts')));
    }
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    const out = join(BUILD, relative(ROOT, file)).replace(/\.ts$/, '.js');
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, outputText);
  }
  // Under node_modules, Node looks no further up for the project's "type": "module".
  await writeFile(join(BUILD, 'package.json'), '{ "type": "module" }\n');
  return join(BUILD, relative(ROOT, resolve(entry))).replace(/\.ts$/, '.js');
}

/**
 * Run a JavaScript file (see compileForNode) in a fresh Node process and parse the JSON it
 * prints last on stdout. A fresh process per measurement means its peak memory is its
 * own, not that of earlier measurements.
 */
export function runChild<T>(file: string, args: string[], nodeFlags: string[] = []): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...nodeFlags, file, ...args], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`${file} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
        return;
      }
      const last = stdout.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`${file} printed no JSON result:\n${stdout}\n${stderr}`));
      }
    });
  });
}

/** `--name value` from a module's arguments. */
export function option(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  if (i === -1) return undefined;
  const value = args[i + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`);
  return value;
}
