/**
 * The local runner's own overhead per plan: what harness spends scheduling, writing state
 * and rendering documents, apart from the agent's work and git, and the processes it
 * starts. Targets: under 20 ms of its own time per plan, and under 10 processes per plan
 * besides the agent's and the checks' (bench/process-census.ts says whose each is).
 *
 * A generated spec of small plans (one shell step writing one file, one file_exists check)
 * runs end to end in a fresh repository, in process. Two measures:
 *  - event-loop time: the main thread's active time (performance.eventLoopUtilization)
 *    over the whole run, per plan. Agents, git and checks run in child processes, so this
 *    is harness's own JavaScript (plus the small part of agent and git handling that runs
 *    on the main thread: it over-counts, never under-counts);
 *  - wall time minus time waiting on the agent, git and verification, with one slot so
 *    that nothing overlaps, per plan.
 */
import childProcess, { execFileSync } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median, mulberry32, type BenchModule, type Row, type Target } from './lib.js';
import { census, type Census, type Spawned } from './process-census.js';

const TARGET_MS = 20;
const TARGET_PROCESSES = 10;
const SPEC_DIR = 'docs/specs/SPC-900-bench';

function makeRepo(plans: number, phases: number, seed: number): string {
  const root = mkdtempSync(join(tmpdir(), 'harness-bench-run-'));
  const random = mulberry32(seed);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write(`${SPEC_DIR}/SPEC.md`, '---\nid: SPC-900\ntitle: Runner benchmark\n---\n# Runner benchmark\n');
  const ids: string[] = [];
  const perPhase = Math.ceil(plans / phases);
  for (let i = 0; i < plans; i++) {
    const phase = String(Math.floor(i / perPhase) + 1).padStart(2, '0');
    const id = `${phase}-${String((i % perPhase) + 1).padStart(2, '0')}`;
    const deps = ids.length === 0 ? [] : [...new Set(Array.from({ length: Math.floor(random() * 3) }, () => ids[Math.floor(random() * ids.length)]!))];
    ids.push(id);
    write(
      `${SPEC_DIR}/planning/plans/${phase}-p/${id}-PLAN.md`,
      [
        '---',
        `plan_id: "${id}"`,
        `title: Plan ${id}`,
        `depends_on: [${deps.map((d) => `"${d}"`).join(', ')}]`,
        `files_modified: ["out/${id}.txt"]`,
        'must_pass:',
        `  - { id: made, type: file_exists, path: out/${id}.txt }`,
        '---',
        `# ${id}`,
        '',
        '```sh step Write the file',
        `mkdir -p out && echo ${id} > out/${id}.txt`,
        '```',
        '',
      ].join('\n'),
    );
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'user.name', 'bench');
  git('config', 'user.email', 'bench@example.com');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'spec');
  return root;
}

/**
 * Starting a child process blocks the main thread (fork and exec happen inside spawn()),
 * and a run starts dozens per plan: git, the agent's shells, checks. That time belongs
 * to git and the agent, so it is measured here and taken out of the event-loop time.
 */
const spawnWatch = { ms: 0, count: 0, spawned: [] as Spawned[] };
const originalSpawn = childProcess.spawn;
childProcess.spawn = function timedSpawn(this: unknown, ...args: Parameters<typeof originalSpawn>) {
  const start = performance.now();
  let child: ReturnType<typeof originalSpawn> | undefined;
  try {
    child = (originalSpawn as (...a: unknown[]) => ReturnType<typeof originalSpawn>).apply(this, args);
    return child;
  } finally {
    spawnWatch.spawned.push({ command: String(args[0]), args: Array.isArray(args[1]) ? (args[1] as string[]) : [], pid: child?.pid });
    spawnWatch.ms += performance.now() - start;
    spawnWatch.count++;
  }
} as typeof originalSpawn;
syncBuiltinESMExports();
// Imported only now, so that their `spawn` is the timed one.
const { RecordingReporter } = await import('../app/runner/progress.js');
const { runSpec } = await import('../app/runner/runner.js');

interface Measure {
  plans: number;
  slots: number;
  wallMs: number;
  eventLoopMs: number;
  agentMs: number;
  gitMs: number;
  verifyMs: number;
  spawnMs: number;
  spawns: number;
  processes: Census;
}

async function measure(plans: number, slots: number, seed: number): Promise<Measure> {
  const root = makeRepo(plans, Math.max(1, Math.round(plans / 10)), seed);
  try {
    // Every git process writes where it started and who started it: see process-census.ts.
    const trace = join(root, '.git', 'bench-trace2.json');
    process.env.GIT_TRACE2_EVENT = trace;
    const before = performance.eventLoopUtilization();
    const spawnedBefore = { ...spawnWatch, spawned: spawnWatch.spawned.length };
    const reporter = new RecordingReporter();
    const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots, agent: 'script', reporter });
    const elu = performance.eventLoopUtilization(before);
    delete process.env.GIT_TRACE2_EVENT;
    if (!outcome.complete) {
      const said = reporter.events.filter((e) => e.kind === 'info' || e.kind === 'plan-failed').map((e) => JSON.stringify(e));
      throw new Error(`the benchmark spec did not complete:\n${said.join('\n')}`);
    }
    return {
      plans,
      slots,
      wallMs: outcome.timing.totalMs,
      eventLoopMs: elu.active,
      agentMs: outcome.timing.agentMs,
      gitMs: outcome.timing.gitMs,
      verifyMs: outcome.timing.verifyMs,
      spawnMs: spawnWatch.ms - spawnedBefore.ms,
      spawns: spawnWatch.count - spawnedBefore.count,
      processes: census(spawnWatch.spawned.slice(spawnedBefore.spawned), trace),
    };
  } finally {
    delete process.env.GIT_TRACE2_EVENT;
    rmSync(root, { recursive: true, force: true });
  }
}

const fixed = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const runner: BenchModule = {
  name: 'runner',
  description: "the local runner's own overhead per plan, apart from the agent and git",
  async run(ctx) {
    const runsArg = ctx.args.indexOf('--runs');
    const runs = runsArg >= 0 ? Number(ctx.args[runsArg + 1]) : 3;
    // --only 40x1: one configuration, for a quick look (the results of a full run are the ones to keep).
    const onlyArg = ctx.args.indexOf('--only');
    const only = onlyArg >= 0 ? ctx.args[onlyArg + 1] : undefined;
    const configs = [
      { plans: 40, slots: 1 },
      { plans: 40, slots: 4 },
      { plans: 120, slots: 4 },
    ].filter((c) => only === undefined || `${c.plans}x${c.slots}` === only);
    const rows: Row[] = [];
    const results: unknown[] = [];
    let worst = 0;
    let worstProcesses = 0;
    const breakdown: string[] = [];
    for (const { plans, slots } of configs) {
      const samples: Measure[] = [];
      for (let r = 0; r < runs; r++) {
        ctx.log(`[runner] ${plans} plans, ${slots} slots: run ${r + 1}/${runs}`);
        samples.push(await measure(plans, slots, 7 + r));
      }
      const perPlanLoop = median(samples.map((s) => (s.eventLoopMs - s.spawnMs) / s.plans));
      const perPlanRest = median(samples.map((s) => (s.wallMs - s.agentMs - s.gitMs - s.verifyMs) / s.plans));
      worst = Math.max(worst, perPlanLoop, slots === 1 ? perPlanRest : 0);
      const ownPerPlan = median(samples.map((s) => s.processes.ownTotal / s.plans));
      worstProcesses = Math.max(worstProcesses, ownPerPlan);
      const kinds = new Map<string, number[]>();
      for (const s of samples) for (const [kind, n] of Object.entries(s.processes.own)) kinds.set(kind, [...(kinds.get(kind) ?? []), n / s.plans]);
      breakdown.push(
        `  ${plans} plans, ${slots} slot${slots === 1 ? '' : 's'}: ${[...kinds]
          .map(([kind, n]) => [kind, median([...n, ...Array<number>(samples.length - n.length).fill(0)])] as const)
          .sort((a, b) => b[1] - a[1])
          .map(([kind, n]) => `${kind} ${fixed(n)}`)
          .join(', ')}`,
      );
      rows.push({
        plans,
        slots,
        'wall ms': fixed(median(samples.map((s) => s.wallMs)), 0),
        'agent ms': fixed(median(samples.map((s) => s.agentMs)), 0),
        'git ms': fixed(median(samples.map((s) => s.gitMs)), 0),
        'verify ms': fixed(median(samples.map((s) => s.verifyMs)), 0),
        'main-thread spawns/plan': fixed(median(samples.map((s) => s.spawns / s.plans)), 0),
        "harness's processes/plan": fixed(ownPerPlan),
        "agent's and checks' processes/plan": fixed(median(samples.map((s) => s.processes.workTotal / s.plans))),
        'spawning ms/plan': fixed(median(samples.map((s) => s.spawnMs / s.plans))),
        'event loop − spawning ms/plan': fixed(perPlanLoop),
        'wall − waits ms/plan': slots === 1 ? fixed(perPlanRest) : 'overlaps',
      });
      results.push({
        plans,
        slots,
        runs,
        samples,
        ownProcessesPerPlan: ownPerPlan,
        perPlanEventLoopMs: perPlanLoop,
        perPlanWallMinusWaitsMs: slots === 1 ? perPlanRest : null,
      });
    }
    const targets: Target[] = [
      { name: `harness's own time under ${TARGET_MS} ms per plan`, met: worst < TARGET_MS, detail: `worst median ${fixed(worst)} ms per plan` },
      {
        name: `harness's own processes under ${TARGET_PROCESSES} per plan (besides the agent's and the checks')`,
        met: worstProcesses < TARGET_PROCESSES,
        detail: `worst median ${fixed(worstProcesses)} per plan`,
      },
    ];
    return {
      notes: [
        `A generated spec (one shell step and one file_exists check per plan, 0–2 dependencies each) run end to end in a fresh git repository, in process, with the script agent; median of ${runs} runs per row.`,
        '"event loop − spawning ms/plan": main-thread active time over the run, less the time spent inside spawn() starting the agent\'s and checks\' processes on the main thread (fork and exec block the thread that starts them), / plans: harness\'s own JavaScript, plus the small part of handling agent output that runs on the main thread. "main-thread spawns/plan" counts every process started, harness\'s git commands included.',
        '"wall − waits ms/plan": with one slot, wall time minus time spent waiting on the agent, the orchestrator\'s git and verification, / plans.',
        '"agent ms" includes the agent\'s own git commits; "git ms" is the orchestrator\'s (worktrees, merges, document commits).',
        "\"harness's processes/plan\": the git commands harness starts and every process those start in turn (git's trace2 log), / plans; \"agent's and checks' processes/plan\": the shells of steps and checks and the git they run. Harness's, by kind, per plan:",
        ...breakdown,
      ],
      rows,
      targets,
      results,
    };
  },
};

export default runner;
