/**
 * One arm of the learning bench on one project (bench/learning.bench.ts), in a process of its
 * own: the project's world is drawn again from its seed, its specs are run in order in a fresh
 * repository through the CLI as a person runs them, and what each plan met, was given and did
 * is written as JSON for the parent to grade.
 *
 *   node --import tsx bench/learning/arm.ts <project> <seed> <control|learning> <slots> <out.json> [--keep]
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIO } from '../../app/cli/io.js';
import { main } from '../../app/cli/main.js';
import { AGENT_SCRIPT, writePlanWorld } from './agent.js';
import { itemOf, pathsInKnowledge, type Item } from './grade.js';
import { GO } from './go.js';
import { NODE } from './node.js';
import { PYTHON } from './python.js';
import { drawWorld, planText, type ProjectDef, type ProjectWorld } from './world.js';

export const PROJECTS: ProjectDef[] = [GO, PYTHON, NODE];
const MAX_RETRIES = 3;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Seconds spent in each harness command: run, retry, reflect, validate. */
const spent = new Map<string, number>();

async function harness(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; out: string }> {
  let out = '';
  const io: CliIO = { stdout: (t) => void (out += t), stderr: (t) => void (out += t), cwd, env, isTTY: false };
  const started = Date.now();
  const code = await main(args, io);
  const what = args.includes('--retry') ? 'retry' : args[0]!;
  spent.set(what, (spent.get(what) ?? 0) + (Date.now() - started) / 1000);
  return { code, out };
}

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

async function readOr(path: string, fallback: string): Promise<string> {
  return readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT' || e.code === 'ENOTDIR' || e.code === 'EISDIR') return fallback;
    throw e;
  });
}

/** One plan's outcome in one arm. */
export interface PlanResult {
  id: string;
  kind?: string;
  fails: boolean;
  /** Its first attempt failed. */
  firstFailed: boolean;
  /** Its kind had failed a first attempt in an earlier spec of this arm. */
  repeat: boolean;
  attempts: number;
  passed: boolean;
  /** What each attempt did, as the agent logged it: `1 failed first`, `2 ok found`. */
  log: string[];
  /** The items surfaced into its briefs (any attempt): the kinds whose error each names, and whether it gives the stale fix. */
  surfaced: { path: string; kinds: string[]; stale: boolean }[];
}

export interface SpecResult {
  spec: string;
  plans: PlanResult[];
  runs: number;
  passed: boolean;
}

export interface ArmResult {
  specs: SpecResult[];
  /** Every lesson and skill in the store after each spec's review: what it was about when last seen, and when it first was. */
  items: (Item & { firstSeen: string })[];
  /** The lessons and skills at the end. */
  final: Item[];
  seconds: number;
  /** Seconds in each harness command. */
  spent: Record<string, number>;
}

const KNOWLEDGE_OFF = [
  'knowledge:',
  '  capture: { enabled: false }',
  '  reflect: { on_spec: false, on_phase: false }',
  '  surface: { max_entries: 0 }',
  '',
].join('\n');

async function storeItems(def: ProjectDef, root: string): Promise<Item[]> {
  const store = join(root, '.harness/knowledge');
  const out: Item[] = [];
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const entry of await readdir(join(store, dir), { withFileTypes: true }).catch(() => [])) {
      const path = `${rel}${entry.name}`;
      if (entry.isDirectory()) await walk(join(dir, entry.name), `${path}/`);
      else if (path.endsWith('.lesson.md') || (path.startsWith('skills/') && entry.name === 'SKILL.md'))
        out.push(itemOf(def, path, await readFile(join(store, dir, entry.name), 'utf8')));
    }
  };
  await walk('lessons', 'lessons/');
  await walk('skills', 'skills/');
  return out;
}

export async function runArm(world: ProjectWorld, learning: boolean, slots: number, keep: boolean, log: (line: string) => void): Promise<ArmResult> {
  const started = Date.now();
  const def = world.def;
  const arm = learning ? 'learning' : 'control';
  const base = await mkdtemp(join(tmpdir(), `harness-bench-learning-${def.key}-`));
  try {
    const root = join(base, 'repo');
    const worldDir = join(base, 'world');
    const state = join(base, 'state');
    const bin = join(base, 'bin');
    for (const d of [root, worldDir, state, bin]) await mkdir(d);
    await writeFile(join(base, 'agent.sh'), AGENT_SCRIPT);
    for (const [name, script] of Object.entries(def.tools)) {
      await writeFile(join(bin, name), script);
      await chmod(join(bin, name), 0o755);
    }
    await writeTree(root, {
      ...def.base,
      '.github/harness.yml': [
        'agent: command',
        `slots: ${slots}`,
        'agents:',
        '  command:',
        `    command: sh ${join(base, 'agent.sh')}`,
        learning ? '' : KNOWLEDGE_OFF,
      ].join('\n'),
    });
    git(root, 'init', '--quiet', '--initial-branch=main');
    git(root, 'config', 'user.name', 'Bench Person');
    git(root, 'config', 'user.email', 'bench@example.com');
    git(root, 'add', '-A');
    git(root, 'commit', '--quiet', '-m', 'initial');
    for (const spec of world.specs) for (const p of spec.plans) await writePlanWorld(worldDir, def, p);
    const env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '', WORLD: worldDir, STATE: state };

    const failedKinds = new Set<string>();
    const specs: SpecResult[] = [];
    const items = new Map<string, Item & { firstSeen: string }>();
    for (const [si, spec] of world.specs.entries()) {
      if (si === def.upgrade.before) {
        await writeTree(root, def.upgrade.files);
        git(root, 'add', '-A');
        git(root, 'commit', '--quiet', '--allow-empty', '-m', def.upgrade.message);
      }
      const dir = `docs/specs/${spec.id}-${spec.slug}`;
      const files: Record<string, string> = { [`${dir}/SPEC.md`]: `---\nid: ${spec.id}\ntitle: ${spec.title}\n---\n# ${spec.title}\n` };
      for (const p of spec.plans) files[`${dir}/planning/plans/01-work/${p.id}-PLAN.md`] = planText(p);
      await writeTree(root, files);
      git(root, 'add', '-A');
      git(root, 'commit', '--quiet', '-m', spec.id);
      const valid = await harness(['validate', dir], root, env);
      if (valid.code !== 0) throw new Error(`${def.key} ${spec.id} does not validate:\n${valid.out}`);

      let run = await harness(['run', dir], root, env);
      let runs = 1;
      while (run.code !== 0 && runs <= MAX_RETRIES) {
        run = await harness(['run', dir, '--retry'], root, env);
        runs++;
      }
      if (run.code !== 0) log(`${def.key} ${arm} ${spec.id}: not passed after ${MAX_RETRIES} retries:\n${run.out.split('\n').slice(-15).join('\n')}`);

      // What each plan's agent met and was given, read against the store the run read (the checkout's).
      const itemCache = new Map<string, Item>();
      const plans: PlanResult[] = [];
      for (const p of spec.plans) {
        const planLog = (await readOr(join(state, spec.id, `${p.id}.log`), '')).trim().split('\n').filter(Boolean);
        const attempts = planLog.length;
        const surfaced: PlanResult['surfaced'] = [];
        for (let n = 1; n <= attempts; n++) {
          for (const { path } of pathsInKnowledge(await readOr(join(state, spec.id, `${p.id}.${n}.knowledge`), ''))) {
            if (surfaced.some((s) => s.path === path)) continue;
            let item = itemCache.get(path);
            if (!item) itemCache.set(path, (item = itemOf(def, path, await readOr(join(root, '.harness/knowledge', path), ''))));
            surfaced.push({ path, kinds: item.kinds, stale: item.stale });
          }
        }
        const recurring = p.kind !== undefined && def.kinds.some((k) => k.id === p.kind);
        plans.push({
          id: p.id,
          ...(p.kind ? { kind: p.kind } : {}),
          fails: p.fails,
          firstFailed: planLog[0]?.split(' ')[1] === 'failed',
          repeat: recurring && failedKinds.has(p.kind!),
          attempts,
          passed: planLog.at(-1)?.split(' ')[1] === 'ok',
          log: planLog,
          surfaced,
        });
      }
      for (const p of plans) if (p.firstFailed && p.kind) failedKinds.add(p.kind);

      git(root, 'merge', '--quiet', '--no-edit', `harness/${spec.id}/integration`);
      if (learning) {
        const reflected = await harness(['reflect'], root, env);
        if (reflected.code !== 0) log(`${def.key} ${spec.id}: harness reflect exited ${reflected.code}: ${reflected.out.slice(0, 2000)}`);
        git(root, 'add', '-A');
        if (git(root, 'status', '--porcelain').trim() !== '') git(root, 'commit', '--quiet', '-m', `Review: accept what harness learned from ${spec.id}`);
        for (const item of await storeItems(def, root)) items.set(item.path, { ...item, firstSeen: items.get(item.path)?.firstSeen ?? spec.id });
      }
      specs.push({ spec: spec.id, plans, runs, passed: run.code === 0 });
      const first = plans.filter((p) => p.firstFailed).length;
      const surfaced = plans.reduce((n, p) => n + p.surfaced.length, 0);
      const off = plans.reduce((n, p) => n + p.surfaced.filter((s) => p.kind === undefined || !s.kinds.includes(p.kind)).length, 0);
      log(
        `${def.key} ${arm} ${spec.id} [${[...spent].map(([k, v]) => `${k} ${v.toFixed(0)} s`).join(', ')}]: ${first} first attempts failed (${plans.filter((p) => p.firstFailed && p.repeat).length} on repeats), ${runs} runs, ${surfaced} surfaced (${off} off target)`,
      );
    }
    return {
      specs,
      items: [...items.values()],
      final: learning ? await storeItems(def, root) : [],
      seconds: (Date.now() - started) / 1000,
      spent: Object.fromEntries(spent),
    };
  } finally {
    if (keep) log(`${def.key} ${arm}: kept ${base} (repo/, world/, state/)`);
    else await rm(base, { recursive: true, force: true });
  }
}

/** As a child process: run the arm, write its result. */
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [key, seed, arm, slots, out] = process.argv.slice(2);
  const def = PROJECTS.find((p) => p.key === key);
  if (!def || !seed || (arm !== 'control' && arm !== 'learning') || !slots || !out) {
    process.stderr.write('usage: arm.ts <project> <seed> <control|learning> <slots> <out.json> [--keep]\n');
    process.exit(2);
  }
  const world = drawWorld(def, Number(seed));
  runArm(world, arm === 'learning', Number(slots), process.argv.includes('--keep'), (line) => process.stderr.write(`${line}\n`)).then(
    async (result) => writeFile(out, JSON.stringify(result)),
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
