import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';
import { git, makeRepo, SPEC_DIR, specTree, type StepPlan } from './repo.js';
import { repoStateDir } from '../../app/runner/repo.js';

/**
 * The crash campaign: a local run of a small spec (two phases, a file two plans write, a
 * plan with a check server) SIGKILLed, with every process of its group, at seeded random
 * moments, started again each time, and then run to the end; compared with the same spec
 * run once without interruption. Shared by test/runner/crash-campaign.test.ts (a few kills)
 * and bench/crash.bench.ts (fifty).
 */
const BIN = join(ROOT, 'bin', 'harness.js');
const SERVER = [
  "const http = require('node:http');",
  "http.createServer((req, res) => setTimeout(() => res.end('ok'), 300)).listen(Number(process.env.PORT), '127.0.0.1');",
].join('\n');
const step = (id: string, extra = '') => `mkdir -p out && sleep 0.3 && echo ${id} > out/${id}.txt${extra}`;
export const CAMPAIGN_PLANS: StepPlan[] = [
  { id: '01-01', steps: [step('01-01'), 'sleep 0.2 && echo more >> out/01-01.txt'] },
  { id: '01-02', files: ['out/01-02.txt', 'out/shared.txt'], steps: [step('01-02', ' && echo 01-02 >> out/shared.txt')] },
  { id: '01-03', dependsOn: ['01-01'], files: ['out/01-03.txt', 'out/shared.txt'], steps: [step('01-03', ' && echo 01-03 >> out/shared.txt')] },
  {
    id: '01-04',
    steps: [step('01-04')],
    extra: 'serve:\n  command: node server.cjs\n  url: "http://127.0.0.1:{port}"',
    checks: ['  - { id: made, type: file_exists, path: out/01-04.txt }', '  - { id: up, type: api_response, request: "GET /", expect: { status: 200 } }'],
  },
  { id: '02-01', dependsOn: ['01-03'], steps: [step('02-01'), 'sleep 0.2 && echo more >> out/02-01.txt'] },
  { id: '02-02', dependsOn: ['01-02', '01-04'], steps: [step('02-02')] },
];

export interface CampaignReport {
  kills: number;
  /** Runs started in all, each round's final one included. */
  runs: number;
  /** Fresh repositories the kills were spread over (a spec killed until it finished on its own). */
  rounds: number;
  /** Files of the integration branch's tree that differ from the uninterrupted run's, after normalising. */
  differingFiles: string[];
  /** Commits (by subject and trailers) that occur more than once. */
  duplicateCommits: string[];
  /** Worktrees beyond the checkout and the integration worktree. */
  leakedWorktrees: number;
  /** Processes still running in the repository or from its check servers. */
  leakedProcesses: number[];
  complete: boolean;
  /** Final runs that did not end with every plan verified: the repository and the end of what the run printed. */
  failures: string[];
  seconds: number;
}

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One run of the CLI; killed with its whole process group after `killAfterMs`, if given and still running. */
function runOnce(root: string, killAfterMs?: number): Promise<{ killed: boolean; code: number | null; output: string }> {
  const child = spawn(process.execPath, [BIN, 'run', SPEC_DIR, '--agent', 'script', '--slots', '2'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
  child.stderr!.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
  let killed = false;
  const timer =
    killAfterMs === undefined
      ? undefined
      : setTimeout(() => {
          killed = true;
          try {
            process.kill(-child.pid!, 'SIGKILL');
          } catch {
            killed = false;
          }
        }, killAfterMs);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ killed, code, output });
    }),
  );
}

/**
 * What differs between two honest runs of one spec in two repositories: timestamps (also in
 * signal file names), durations, commit ids (quoted or not), the ports servers got, the
 * project's name (the temporary directory's), and a summary's note that an earlier attempt
 * committed some of the steps.
 */
export function normalise(text: string): string {
  return (
    text
      .replace(/harness-run-[A-Za-z0-9]+/g, '<project>')
      .replace(/\d{8}T\d{6}Z/g, '<stamp>')
      .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<time>')
      .replace(/"?\b[0-9a-f]{7,40}\b"?/g, '<sha>')
      // A resumed plan says how many of its steps an earlier attempt committed: how the run went, not what it made.
      .replace(/ \(\d+ by an earlier attempt\)/g, '')
      .replace(/<?\b\d+(\.\d+)?\s?(ms|s|min|minutes|seconds)\b/g, '<duration>')
      .replace(/^(\s*)(duration_minutes|duration_seconds|minutes|started|finished|at|updated|elapsed):.*$/gm, '$1$2: <time>')
  );
}

/**
 * The integration branch's files, normalised, as "path + content" entries sorted (two
 * signals of one second normalise to one path). STATUS.md's activity and the run log say
 * how the run went, not what it made.
 */
function tree(root: string): string[] {
  const ref = 'harness/SPC-007/integration';
  const files: string[] = [];
  for (const path of git(root, 'ls-tree', '-r', '--name-only', ref).split('\n').filter(Boolean)) {
    if (path.endsWith('/STATUS.md') || path.endsWith('/execution/commits.log')) continue;
    files.push(`${normalise(path)}\n${normalise(git(root, 'show', `${ref}:${path}`))}`);
  }
  return files.sort();
}

function duplicates(root: string): string[] {
  const seen = new Map<string, number>();
  const log = git(root, 'log', '--format=%s%x1f%(trailers:only,unfold,separator=%x1f)%x1e', 'harness/SPC-007/integration');
  for (const entry of log
    .split('\x1e')
    .map((e) => e.trim())
    .filter(Boolean))
    seen.set(entry, (seen.get(entry) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([e, n]) => `${e.replaceAll('\x1f', ' | ')} ×${n}`);
}

/** Processes whose working directory is inside the repository or the run's worktrees beside it (repoStateDir). */
function processesIn(root: string): number[] {
  const out: number[] = [];
  const dirs = [root, repoStateDir(join(root, '.git'))];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!)) continue;
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      if (dirs.some((dir) => cwd === dir || cwd.startsWith(`${dir}/`))) out.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return out;
}

export async function crashCampaign(options: { kills: number; seed: number; maxDelayMs?: number }): Promise<CampaignReport> {
  const started = Date.now();
  const files = { ...specTree(CAMPAIGN_PLANS), 'server.cjs': SERVER };
  const clean = await makeRepo(files);
  const cleanRun = await runOnce(clean);
  if (cleanRun.code !== 0) throw new Error(`the uninterrupted run failed (exit ${cleanRun.code}) in ${clean}`);

  const expected = tree(clean);
  const random = seeded(options.seed);
  const maxDelay = options.maxDelayMs ?? 6_000;
  const report: Omit<CampaignReport, 'seconds'> = {
    kills: 0,
    runs: 0,
    rounds: 0,
    differingFiles: [],
    duplicateCommits: [],
    leakedWorktrees: 0,
    leakedProcesses: [],
    complete: true,
    failures: [],
  };
  // Rounds: a spec killed until it finishes on its own (or the kills are all spent), then
  // run to the end and compared; the next round starts from a fresh repository, so every
  // kill lands in unfinished work.
  while (report.kills < options.kills) {
    report.rounds++;
    const root = await makeRepo(files);
    for (;;) {
      if (report.kills >= options.kills) break;
      report.runs++;
      // Mostly early moments, where a run does the most per second (start-up, worktrees, merges).
      const result = await runOnce(root, 150 + Math.floor(random() ** 1.5 * maxDelay));
      if (result.killed) report.kills++;
      else break;
    }
    report.runs++;
    const last = await runOnce(root);
    report.complete &&= last.code === 0;
    if (last.code !== 0) report.failures.push(`${root}: exit ${last.code}\n${last.output}`);
    const got = tree(root);
    const only = (x: string[], y: string[]) => x.filter((e) => !y.includes(e));
    const differing = [...only(expected, got), ...only(got, expected)].map((e) => e.slice(0, e.indexOf('\n')));
    if (process.env.CAMPAIGN_DEBUG) {
      for (const e of only(expected, got)) console.log(`<<< clean\n${e}`);
      for (const e of only(got, expected)) console.log(`>>> killed\n${e}`);
    }
    report.differingFiles = [...new Set([...report.differingFiles, ...differing])].sort();
    report.duplicateCommits.push(...duplicates(root));
    report.leakedWorktrees +=
      git(root, 'worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree ')).length - 2;
    report.leakedProcesses.push(...processesIn(root));
  }
  return {
    ...report,
    seconds: Math.round((Date.now() - started) / 100) / 10,
  };
}
