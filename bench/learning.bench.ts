/**
 * The learning curve (`npm run bench -- learning`): does the knowledge loop make recurring
 * failures stop, without surfacing what does not apply, learning a fix that did not work,
 * keeping a fix that went stale, or making lessons of noise?
 *
 * Three projects of three ecosystems (bench/learning/go.ts, python.ts, node.ts), each a
 * sequence of six specs of 8–10 plans laid out from a seed (bench/learning/world.ts): which
 * folders, which plans meet which kind of failure, what shows it before the first attempt (the
 * modules the plan's files import, its check's command, its own words — never its folder), the
 * names in each error, the words of each fix, and whether a plan that meets a kind fails at all.
 * Each project has four recurring kinds — one cause in two wordings, one that only the check's
 * command reveals, one whose obvious repair fails, one whose fix goes stale from the fourth
 * spec on — and three one-offs.
 *
 * Each spec is run as a person runs it, through the CLI in-process: `harness run`, then
 * `harness run --retry` until it passes (at most 3), `git merge harness/<SPEC>/integration`,
 * `harness reflect`, and a commit of what it wrote (the person's review). The control runs and
 * merges the same specs with capture, reflection and surfacing off. The agent is a `command`
 * stand-in (bench/learning/agent.ts); the checks' test tools are stand-ins that pass.
 *
 *   npm run bench -- learning [--seed N | --seed ledger=N,tally=N,relay=N] [--project ledger,tally,relay] [--slots N] [--jobs N] [--keep]
 */
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatTable, option, type BenchModule, type Row, type Target } from './lib.js';
import { PROJECTS, type ArmResult } from './learning/arm.js';
import { grade, kindRows, specRows, targets } from './learning/report.js';
import { drawWorld, type PlanWorld, type ProjectDef, type ProjectWorld, type SpecWorld } from './learning/world.js';

const ARM = fileURLToPath(new URL('./learning/arm.ts', import.meta.url));

/** Run one arm in a process of its own (bench/learning/arm.ts), its progress lines passed on. */
async function armInChild(
  def: ProjectDef,
  seed: number,
  arm: 'control' | 'learning',
  slots: number,
  keep: boolean,
  log: (line: string) => void,
): Promise<ArmResult> {
  const dir = await mkdtemp(join(tmpdir(), 'harness-bench-learning-result-'));
  try {
    const out = join(dir, 'arm.json');
    const args = ['--import', import.meta.resolve('tsx'), ARM, def.key, String(seed), arm, String(slots), out, ...(keep ? ['--keep'] : [])];
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let rest = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop()!;
        for (const line of lines) log(line);
      });
      child.on('error', reject);
      child.on('close', (c) => {
        if (rest) log(rest);
        resolve(c);
      });
    });
    if (code !== 0) throw new Error(`${def.key} ${arm}: the arm's process exited ${code}`);
    return JSON.parse(await readFile(out, 'utf8')) as ArmResult;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Run tasks, at most `jobs` at a time, in order of their results. */
async function pool<T>(jobs: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array<T>(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, tasks.length)) }, worker));
  return results;
}

/** `--seed 7` for every project, or `--seed ledger=7,tally=8`; a project not named draws its own. */
function seedsFrom(arg: string | undefined, projects: ProjectDef[]): Map<string, number> {
  const seeds = new Map<string, number>();
  if (arg !== undefined && /^\d+$/.test(arg)) for (const p of projects) seeds.set(p.key, Number(arg));
  else if (arg !== undefined) {
    for (const part of arg.split(',')) {
      const [key, value] = part.split('=');
      if (!key || !value || !/^\d+$/.test(value)) throw new Error(`--seed ${arg}: give a number, or project=number pairs (ledger=7,tally=8)`);
      seeds.set(key, Number(value));
    }
  }
  for (const p of projects) if (!seeds.has(p.key)) seeds.set(p.key, randomInt(1, 2 ** 31 - 1));
  return seeds;
}

function layout(world: ProjectWorld): string {
  return `${world.def.key} (seed ${world.seed}): folders ${world.folders.map((f) => `${f.folder} [${f.kinds.join(', ')}]`).join('; ')}; one-offs in ${Object.entries(
    world.oneOffSpecs,
  )
    .map(([k, s]) => `${s} (${k})`)
    .join(', ')}`;
}

const bench: BenchModule = {
  name: 'learning',
  description:
    'the learning curve: do recurring failures stop, on three projects of three ecosystems laid out from a seed, with the knowledge loop and without',
  async run({ args, log }) {
    const only = option(args, 'project')?.split(',');
    const projects = only ? PROJECTS.filter((p) => only.includes(p.key)) : PROJECTS;
    if (projects.length === 0) throw new Error(`--project ${only!.join(',')}: the projects are ${PROJECTS.map((p) => p.key).join(', ')}`);
    const slots = Number(option(args, 'slots') ?? '2');
    const jobs = Number(option(args, 'jobs') ?? '2');
    const keep = args.includes('--keep');
    const seeds = seedsFrom(option(args, 'seed'), projects);
    const seedList = projects.map((p) => `${p.key}=${seeds.get(p.key)}`).join(',');
    const replay = `npm run bench -- learning --seed ${seedList}${only ? ` --project ${only.join(',')}` : ''}`;
    log(`seeds: ${seedList} (replay: ${replay})`);

    const worlds = projects.map((def) => drawWorld(def, seeds.get(def.key)!));
    const started = Date.now();
    const arms = await pool(
      jobs,
      worlds.flatMap((world) => (['control', 'learning'] as const).map((arm) => () => armInChild(world.def, world.seed, arm, slots, keep, log))),
    );
    const seconds = (Date.now() - started) / 1000;

    const notes = [
      `seeds: ${seedList} — replay with \`${replay}\``,
      '',
      'Each spec: `harness run`, `--retry` until it passes (at most 3), merge the integration branch; the learning arm then runs `harness reflect` and commits what it wrote. The control runs the same with capture, reflection and surfacing off.',
      'first fails: plans whose first attempt failed; on repeats: of those, plans whose kind had already failed a first attempt in an earlier spec of that arm. surfaced: (plan, item) pairs put into briefs on any attempt; off target: the item does not name the error the plan meets (or the plan meets none).',
      `${projects.length} projects × 2 arms, ${jobs} at a time, ${slots} slots a run: ${Math.round(seconds)} s.`,
      '',
    ];
    const rows: Row[] = [];
    const perKind: Row[] = [];
    const met: Target[] = [];
    const results: unknown[] = [];
    for (const [wi, world] of worlds.entries()) {
      const control = arms[2 * wi]!;
      const learning = arms[2 * wi + 1]!;
      const g = grade(world, control, learning);
      notes.push(layout(world));
      rows.push(...specRows(world, control, learning));
      perKind.push(...kindRows(world, g));
      met.push(...targets(world, g, learning.items.length));
      results.push({
        project: world.def.key,
        name: world.def.name,
        seed: world.seed,
        layout: {
          folders: world.folders,
          oneOffs: world.oneOffSpecs,
          specs: world.specs.map((s: SpecWorld) => ({
            spec: s.id,
            plans: s.plans.map((p: PlanWorld) => ({
              id: p.id,
              folder: p.subject.folder,
              kind: p.kind ?? null,
              wording: p.wording,
              fails: p.fails,
              cues: p.cues,
            })),
          })),
        },
        arms: { control, learning },
        kinds: g.kinds,
        laterHalf: { control: g.lateControl, learning: g.lateLearning },
        surfaced: g.surfaced.length,
        offTarget: g.offTarget.map((s) => `${s.plan} ${s.path}`),
      });
    }
    notes.push('', 'Per kind (what was surfaced and learned: the learning arm):', '', formatTable(perKind));
    return { notes, rows, targets: met, results: { seconds, jobs, slots, projects: results } };
  },
};

export default bench;
