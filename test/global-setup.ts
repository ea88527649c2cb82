/**
 * One temporary directory per test run, and a check at the end that the run left nothing alive.
 *
 * Every test file, and everything it starts, makes its temporary files under this run's own
 * directory: TMPDIR points there before the test workers start, so `os.tmpdir()`, `mktemp` and
 * git all put them there, and children inherit it. test/setup.ts gives each worker a
 * subdirectory and empties it after each file; this teardown then reports what was still
 * there (a file that crashed before its sweep) and every process still running that belongs
 * to the run (its working directory, command line or TMPDIR under the run's directory), kills
 * those and fails the run: a test must stop what it starts.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { buildReportServer } from './helpers/report-server.js';
import { buildStandIns } from './helpers/standin-bundles.js';
import { LEFTOVERS_LOG, RUN_DIR_ENV, SHARED_DIR } from './helpers/temp.js';

export default async function setup(): Promise<() => Promise<void> | void> {
  // Once per run, though each project (unit, e2e) calls it: the first made the run's directory.
  if (process.env[RUN_DIR_ENV]) return () => undefined;
  const outer = tmpdir();
  const run = mkdtempSync(join(outer, 'harness-tests-'));
  mkdirSync(join(run, SHARED_DIR));
  // The reporting MCP server the unit and integration projects' agents start, bundled once for the run (helpers/report-server.ts).
  await buildReportServer(join(run, SHARED_DIR));
  // The MCP-speaking stand-in agent CLIs, with the MCP SDK's client inlined (helpers/standin-bundles.ts).
  await buildStandIns(join(run, SHARED_DIR));
  // tsx keeps its transform cache and its IPC pipes in tmpdir()/tsx-<uid>: keep using the warm one.
  const tsx = `tsx-${userInfo().uid}`;
  mkdirSync(join(outer, tsx), { recursive: true });
  symlinkSync(join(outer, tsx), join(run, tsx));
  const saved = { TMPDIR: process.env.TMPDIR, run: process.env[RUN_DIR_ENV] };
  process.env.TMPDIR = run;
  process.env[RUN_DIR_ENV] = run;

  return async () => {
    restore('TMPDIR', saved.TMPDIR);
    restore(RUN_DIR_ENV, saved.run);
    const alive = await stillRunning(run);
    for (const p of alive) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
      }
    }
    const swept = readLeftovers(run);
    const left = readdirSync(run).filter((n) => n !== tsx && n !== SHARED_DIR && n !== LEFTOVERS_LOG && !/^w\d+$/.test(n));
    const workers = readdirSync(run)
      .filter((n) => /^w\d+$/.test(n))
      .flatMap((w) => readdirSync(join(run, w)).map((n) => `${w}/${n}`));
    rmSync(run, { recursive: true, force: true });
    if (swept.length > 0) {
      const files = new Set(swept.map((l) => l.split('\t')[0]));
      process.stderr.write(`[temp] ${swept.length} temporary entries from ${files.size} test files were removed after their file ended (test/setup.ts)\n`);
    }
    if (left.length + workers.length > 0) process.stderr.write(`[temp] left outside any test file's sweep, removed now: ${[...left, ...workers].join(', ')}\n`);
    if (alive.length > 0) {
      throw new Error(
        `${alive.length} processes started by the tests were still running after the run (killed now); a test must stop what it starts:\n` +
          alive.map((p) => `  ${p.pid}: ${p.command}`).join('\n'),
      );
    }
  };
}

/**
 * The run's processes that do not end by themselves. A helper whose parent was a test worker
 * (git's starter ends when its stdin closes) may still be on its way out as the workers end:
 * those get a few seconds, on a busy machine too; a server or a sleep left behind does not end.
 */
async function stillRunning(run: string): Promise<Proc[]> {
  let alive = processesOf(run);
  for (let waited = 0; alive.length > 0 && waited < 10_000; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    alive = processesOf(run);
  }
  return alive;
}

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

function readLeftovers(run: string): string[] {
  try {
    return readFileSync(join(run, LEFTOVERS_LOG), 'utf8').split('\n').filter(Boolean);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

interface Proc {
  pid: number;
  command: string;
}

/**
 * Live processes (not zombies) other than this one and its ancestors whose working directory,
 * command line or environment names the run's directory: what the tests started and left.
 */
export function processesOf(run: string): Proc[] {
  if (!existsSync('/proc/self/stat')) return [];
  const mine = new Set<number>();
  for (let pid = process.pid; pid > 1; pid = parentOf(pid)) mine.add(pid);
  const found: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || mine.has(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3))) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      // The test workers themselves are this process's children; they end with it.
      if (parentOf(pid) === process.pid) continue;
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      if (cwd.startsWith(run) || command.includes(run) || environ.some((v) => v.startsWith('TMPDIR=') && v.slice('TMPDIR='.length).startsWith(run)))
        found.push({ pid, command });
    } catch (e) {
      // Ended while we looked, or not ours to read.
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ESRCH' && code !== 'EACCES') throw e;
    }
  }
  return found;
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}
