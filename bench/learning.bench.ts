/**
 * The learning curve (`npm run bench -- learning`): does the knowledge loop make the same
 * failures stop? A sequence of specs of one realistic project is run in order, through the CLI
 * as a person runs it, by a `command` agent that meets recurring failures of three kinds.
 *
 * The agent is the project's reality, scripted: each plan's work meets one kind of failure or
 * none (what a service's test suite typically meets: a port still held by the last test file,
 * an ESM import without its extension, a model tested before its migration). On a first attempt
 * it fails with that error (with the numbers, temporary paths and ports that vary from run to
 * run) unless its brief carries the fix; on a retry it finds the fix, and says so in a
 * HARNESS_INSIGHT line, as an agent reports what it learned.
 *
 * Two arms, each in its own repository:
 * - learning: the README's workflow between specs — `harness run`, `harness run --retry` for
 *   what failed, merge the integration branch, `harness reflect`, commit what it wrote;
 * - control: the same runs and merges with capture, reflection and surfacing off.
 *
 * Reported per spec: first attempts that failed, in each arm; what was surfaced, and how much of
 * it landed on plans that do not meet the failure it is about; and, at the end, the lessons:
 * which name both an error and its fix, and whether any mixes two kinds. A second project of a
 * different shape (a Python ETL tool), never looked at while building this, is run the same way.
 *
 *   npx tsx bench/run.ts learning [--project notes|etl|both]
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CliIO } from '../app/cli/io.js';
import { main } from '../app/cli/main.js';
import { option, type BenchModule, type Row, type Target } from './lib.js';

/** A kind of recurring failure: the error the work meets, and the fix that avoids it. */
interface Kind {
  id: string;
  /** What the failing test run prints last; `$N` is a number that varies, `$TMP` a temporary path. */
  error: string;
  /** Words that tell this error in a lesson's text. */
  errorWords: RegExp;
  /** The agent's own account of the fix, on the retry that finds it. */
  fix: string;
  /** What the agent must find in its brief's knowledge to apply the fix at once. */
  fixWords: RegExp;
}

interface PlanSpec {
  id: string;
  title: string;
  body: string;
  file: string;
  /** The failure this plan's work meets, if any. */
  kind?: string;
}

interface Project {
  name: string;
  kinds: Kind[];
  specs: { id: string; slug: string; title: string; plans: PlanSpec[] }[];
}

const NOTES: Project = {
  name: 'notes-service (TypeScript HTTP service)',
  kinds: [
    {
      id: 'port',
      error: 'Error: listen EADDRINUSE: address already in use 127.0.0.1:$N',
      errorWords: /EADDRINUSE/,
      fix: 'Listen on port 0 in the tests and close the server in afterAll: a fixed port is still held by the test file before',
      fixWords: /port 0 in the tests/i,
    },
    {
      id: 'esm',
      error: "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '$TMP/src/db/pool' imported from $TMP/src/store/index.js",
      errorWords: /ERR_MODULE_NOT_FOUND/,
      fix: 'Import local modules with their .js extension (./db/pool.js): Node ESM resolves no extensionless paths',
      fixWords: /with their \.js extension/i,
    },
    {
      id: 'migration',
      error: 'SqliteError: no such table: main.$W',
      errorWords: /no such table/,
      fix: 'Run the migrations in the test setup (beforeAll: migrate(db)) before the model is used',
      fixWords: /run the migrations in the test setup/i,
    },
  ],
  specs: [
    ['SPC-001', 'notes', 'Notes', ['http:notes-routes', 'esm:notes-store', 'migration:note-model', ':notes-docs']],
    ['SPC-002', 'tags', 'Tags', ['http:tags-routes', 'esm:tags-store', 'migration:tag-model']],
    ['SPC-003', 'users', 'Users and sessions', ['http:sessions-routes', 'esm:users-store', 'migration:user-model', ':users-docs']],
    ['SPC-004', 'comments', 'Comments', ['http:comments-routes', 'esm:comments-store', 'migration:comment-model']],
    ['SPC-005', 'search', 'Search', ['http:search-routes', 'esm:search-store', 'migration:search-index-model', ':search-docs']],
    ['SPC-006', 'exports', 'Exports', ['http:exports-routes', 'esm:exports-store', 'migration:export-job-model']],
  ].map(([id, slug, title, plans]) => ({
    id: id as string,
    slug: slug as string,
    title: title as string,
    plans: (plans as string[]).map((p, i) => {
      const [area, name] = p.split(':') as [string, string];
      const words = name.replace(/-/g, ' ');
      const shape: Record<string, { file: string; kind?: string; body: string }> = {
        http: { file: `src/http/${name}.ts`, kind: 'port', body: `Add the HTTP ${words} with request validation, and integration tests that start the server.` },
        esm: { file: `src/store/${name}.ts`, kind: 'esm', body: `Add the ${words} on the database pool, compiled to ESM, and unit tests for it.` },
        migration: { file: `src/models/${name}.ts`, kind: 'migration', body: `Add the ${words} with its migration and tests against a real SQLite database.` },
        '': { file: `docs/${name}.md`, body: `Document the ${words.replace(/ docs$/, '')} for people using the API.` },
      };
      const s = shape[area]!;
      return { id: `01-0${i + 1}`, title: `${title as string}: ${words}`, body: s.body, file: s.file, ...(s.kind ? { kind: s.kind } : {}) };
    }),
  })),
};

/** The held-out project: another language, another layout, other failures. */
const ETL: Project = {
  name: 'etl-tool (Python data pipeline, held out)',
  kinds: [
    {
      id: 'package',
      error: "ModuleNotFoundError: No module named 'etl.$W'",
      errorWords: /ModuleNotFoundError/,
      fix: 'Add an __init__.py to every new package folder under etl/: pytest imports it as a package',
      fixWords: /add an __init__\.py/i,
    },
    {
      id: 'encoding',
      error: "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x$H in position $N: invalid start byte",
      errorWords: /UnicodeDecodeError/,
      fix: "Open the input files with encoding='utf-8-sig' and errors='replace': the exports carry a BOM and Latin-1 bytes",
      fixWords: /encoding='utf-8-sig'/i,
    },
    {
      id: 'clock',
      error: 'AssertionError: snapshot mismatch at row $N: run_at $DATE != $DATE',
      errorWords: /snapshot mismatch/,
      fix: 'Freeze the clock in the snapshot tests (freezegun freeze_time) so run_at is the same on every run',
      fixWords: /freeze the clock/i,
    },
  ],
  specs: [
    ['ETL-01', 'ingest', 'Ingest', ['package:readers', 'encoding:csv-reader', 'clock:ingest-report']],
    ['ETL-02', 'clean', 'Cleaning', ['package:cleaners', 'encoding:excel-reader', 'clock:clean-report', ':clean-docs']],
    ['ETL-03', 'join', 'Joins', ['package:joiners', 'encoding:json-reader', 'clock:join-report']],
    ['ETL-04', 'load', 'Loading', ['package:loaders', 'encoding:xml-reader', 'clock:load-report', ':load-docs']],
    ['ETL-05', 'schedule', 'Scheduling', ['package:schedulers', 'encoding:fixed-width-reader', 'clock:schedule-report']],
  ].map(([id, slug, title, plans]) => ({
    id: id as string,
    slug: slug as string,
    title: title as string,
    plans: (plans as string[]).map((p, i) => {
      const [area, name] = p.split(':') as [string, string];
      const words = name.replace(/-/g, ' ');
      const mod = name.replace(/-/g, '_');
      const shape: Record<string, { file: string; kind?: string; body: string }> = {
        package: { file: `etl/${mod}/core.py`, kind: 'package', body: `Create the ${words} package with its first step and pytest tests.` },
        encoding: { file: `etl/io/${mod}.py`, kind: 'encoding', body: `Read the partner's ${words.replace(/ reader$/, '')} exports into rows, with tests on real samples.` },
        clock: { file: `etl/reports/${mod}.py`, kind: 'clock', body: `Write the ${words} with snapshot tests of its output.` },
        '': { file: `docs/${name}.md`, body: `Describe the ${words.replace(/ docs$/, '')} step for operators.` },
      };
      const s = shape[area]!;
      return { id: `01-0${i + 1}`, title: `${title as string}: ${words}`, body: s.body, file: s.file, ...(s.kind ? { kind: s.kind } : {}) };
    }),
  })),
};

/**
 * The agent: reads its brief; the world file says what the plan's work meets. The fix is
 * applied at once when the brief's knowledge section carries it, else found on a retry.
 */
function agentScript(project: Project): string {
  const cases = project.kinds
    .map((k) => {
      const error = k.error
        .replace(/\$TMP/g, '/tmp/build-$$$$')
        .replace(/\$N/g, '$(( ($$$$ % 9000) + 1000 ))')
        .replace(/\$W/g, '${name}')
        .replace(/\$H/g, '$(printf %x $(( ($$$$ % 100) + 128 )))')
        .replace(/\$DATE/g, '$(date -u +%Y-%m-%dT%H:%M:%S.%N)');
      const insight = JSON.stringify({ kind: 'pattern', summary: k.fix, tags: [k.id] });
      return [
        `  ${k.id})`,
        `    if printf '%s' "$knowledge" | grep -Eqi ${shellQuote(k.fixWords.source)}; then ok; echo "applied the fix from the brief"; exit 0; fi`,
        `    if [ -e "$marker" ]; then ok; echo ${shellQuote(`HARNESS_INSIGHT ${insight}`)}; exit 0; fi`,
        '    touch "$marker"',
        '    echo "running the tests"',
        `    echo "${error.replace(/"/g, '\\"')}" >&2`,
        '    exit 1 ;;',
      ].join('\n');
    })
    .join('\n');
  return [
    'set -u',
    'brief=$(cat)',
    'knowledge=$(printf "%s" "$brief" | sed -n "/^## What harness has learned that applies here/,/^## /p")',
    'read -r kind file < "$WORLD/$HARNESS_SPEC-$HARNESS_PLAN"',
    'name=$(basename "$file" | sed "s/\\..*//")',
    'marker="$STATE/$HARNESS_SPEC-$HARNESS_PLAN.failed"',
    'ok() { mkdir -p "$(dirname "$file")" && echo "// $HARNESS_PLAN" > "$file"; }',
    'case "$kind" in',
    cases,
    '  *) ok; exit 0 ;;',
    'esac',
    'ok',
  ].join('\n');
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

async function harness(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; out: string }> {
  let out = '';
  const io: CliIO = { stdout: (t) => void (out += t), stderr: (t) => void (out += t), cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, isTTY: false };
  const code = await main(args, io);
  return { code, out };
}

function planText(spec: Project['specs'][number], p: PlanSpec): string {
  return [
    '---',
    `plan_id: "${p.id}"`,
    `title: "${p.title}"`,
    'depends_on: []',
    `files_modified: ["${p.file}"]`,
    'must_pass:',
    `  - { id: written, type: file_exists, path: ${p.file} }`,
    '---',
    `# ${p.title}`,
    '',
    p.body,
    '',
  ].join('\n');
}

async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

interface SpecResult {
  spec: string;
  /** The kinds of the plans whose first attempt failed. */
  failedKinds: string[];
  plans: number;
  meeting: number;
  firstFailed: number;
  surfaced: number;
  offTarget: number;
  lines: string[];
}

interface Knowledge {
  path: string;
  text: string;
  errors: string[];
  fixes: string[];
}

interface ArmResult {
  specs: SpecResult[];
  lessons: Knowledge[];
  skills: Knowledge[];
}

/** The failure kind a knowledge file is about, by the errors its text names. */
function kindsIn(project: Project, text: string): { errors: string[]; fixes: string[] } {
  return { errors: project.kinds.filter((k) => k.errorWords.test(text)).map((k) => k.id), fixes: project.kinds.filter((k) => k.fixWords.test(text)).map((k) => k.id) };
}

async function runArm(project: Project, learning: boolean, log: (line: string) => void): Promise<ArmResult> {
  const base = await mkdtemp(join(tmpdir(), 'harness-bench-learning-'));
  try {
    const root = join(base, 'repo');
    const world = join(base, 'world');
    const state = join(base, 'state');
    await mkdir(root);
    await mkdir(world);
    await mkdir(state);
    await writeFile(join(base, 'agent.sh'), agentScript(project));
    const knowledge = learning ? '' : ['knowledge:', '  capture: { enabled: false }', '  reflect: { on_spec: false, on_phase: false }', '  surface: { max_entries: 0 }', ''].join('\n');
    await writeFiles(root, {
      '.github/harness.yml': ['agent: command', 'slots: 1', 'agents:', '  command:', `    command: sh ${join(base, 'agent.sh')}`, knowledge].join('\n'),
      'README.md': `# ${project.name}\n`,
    });
    git(root, 'init', '--quiet', '--initial-branch=main');
    git(root, 'config', 'user.name', 'Bench Person');
    git(root, 'config', 'user.email', 'bench@example.com');
    git(root, 'add', '-A');
    git(root, 'commit', '--quiet', '-m', 'initial');
    const env = { WORLD: world, STATE: state };
    const specs: SpecResult[] = [];
    for (const spec of project.specs) {
      const dir = `docs/specs/${spec.id}-${spec.slug}`;
      const files: Record<string, string> = { [`${dir}/SPEC.md`]: `---\nid: ${spec.id}\ntitle: ${spec.title}\n---\n# ${spec.title}\n` };
      for (const p of spec.plans) {
        files[`${dir}/planning/plans/01-work/${p.id}-PLAN.md`] = planText(spec, p);
        await writeFile(join(world, `${spec.id}-${p.id}`), `${p.kind ?? 'none'} ${p.file}\n`);
      }
      await writeFiles(root, files);
      git(root, 'add', '-A');
      git(root, 'commit', '--quiet', '-m', spec.id);
      const first = await harness(['run', dir], root, env);
      const failedPlans = (await readdir(state)).filter((f) => f.startsWith(`${spec.id}-`)).map((f) => f.slice(spec.id.length + 1, -'.failed'.length));
      const failedFirst = failedPlans.length;
      const failedKinds = failedPlans.map((id) => spec.plans.find((p) => p.id === id)?.kind ?? 'none');
      let out = first.out;
      if (first.code !== 0) {
        const retry = await harness(['run', dir, '--retry'], root, env);
        out += retry.out;
        if (retry.code !== 0) log(`${spec.id}: the retry did not pass:\n${retry.out}`);
      }
      git(root, 'merge', '--quiet', '--no-edit', `harness/${spec.id}/integration`);
      if (learning) {
        const reflected = await harness(['reflect'], root, env);
        if (reflected.code !== 0) log(`${spec.id}: harness reflect: ${reflected.out}`);
        git(root, 'add', '-A');
        if (git(root, 'status', '--porcelain').trim() !== '') git(root, 'commit', '--quiet', '-m', `Accept the lessons after ${spec.id}`);
      }
      // Each surfaced item, and whether the plan meets the failure it is about.
      const lines = out.split('\n').filter((l) => / surfaced (lesson|skill|gene) /.test(l));
      let offTarget = 0;
      const seen = new Set<string>();
      for (const line of lines) {
        const m = /(\d\d-\d\d) surfaced (\w+) (\S+) /.exec(line)!;
        const key = `${m[1]} ${m[3]}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const text = await readFile(join(root, '.harness/knowledge', m[3]!), 'utf8').catch((e: NodeJS.ErrnoException) => {
          if (e.code === 'ENOENT') return '';
          throw e;
        });
        const about = kindsIn(project, text).errors;
        const plan = spec.plans.find((p) => p.id === m[1]);
        if (!plan?.kind || !about.includes(plan.kind)) offTarget++;
      }
      specs.push({ spec: spec.id, failedKinds, plans: spec.plans.length, meeting: spec.plans.filter((p) => p.kind).length, firstFailed: failedFirst, surfaced: seen.size, offTarget, lines });
      log(`${project.name} ${learning ? 'learning' : 'control'} ${spec.id}: ${failedFirst} first attempts failed, ${seen.size} surfaced (${offTarget} off target)`);
    }
    const lessons: ArmResult['lessons'] = [];
    const lessonDir = join(root, '.harness/knowledge/lessons');
    for (const category of await readdir(lessonDir).catch(() => [] as string[])) {
      for (const f of await readdir(join(lessonDir, category))) {
        const text = await readFile(join(lessonDir, category, f), 'utf8');
        lessons.push({ path: `lessons/${category}/${f}`, text, ...kindsIn(project, text.slice(0, text.indexOf('## Evidence') === -1 ? undefined : text.indexOf('## Evidence'))) });
      }
    }
    const skills: ArmResult['skills'] = [];
    const skillDir = join(root, '.harness/knowledge/skills');
    for (const name of await readdir(skillDir).catch(() => [] as string[])) {
      const text = await readFile(join(skillDir, name, 'SKILL.md'), 'utf8').catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return undefined;
        throw e;
      });
      if (text !== undefined) skills.push({ path: `skills/${name}/SKILL.md`, text, ...kindsIn(project, text) });
    }
    return { specs, lessons, skills };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

function laterHalf<T>(list: readonly T[]): T[] {
  return list.slice(Math.floor(list.length / 2));
}

async function measure(project: Project, log: (line: string) => void) {
  const control = await runArm(project, false, log);
  const learning = await runArm(project, true, log);
  const sum = (specs: SpecResult[], f: (s: SpecResult) => number) => specs.reduce((n, s) => n + f(s), 0);
  const lateControl = sum(laterHalf(control.specs), (s) => s.firstFailed);
  const lateLearning = sum(laterHalf(learning.specs), (s) => s.firstFailed);
  const surfaced = sum(learning.specs, (s) => s.surfaced);
  const offTarget = sum(learning.specs, (s) => s.offTarget);
  // A kind that failed a first attempt twice or more in the learning arm: it had the chance to become a lesson.
  const failures = learning.specs.flatMap((s) => s.failedKinds);
  const recurring = project.kinds.filter((k) => failures.filter((f) => f === k.id).length >= 2).map((k) => k.id);
  const named = recurring.filter((k) => learning.lessons.some((l) => l.errors.includes(k) && l.fixes.includes(k)));
  // Every kind, by what the store holds about it at the end: a lesson or a skill naming its error and its fix.
  const known = project.kinds.map((k) => ({
    kind: k.id,
    failedFirst: failures.filter((f) => f === k.id).length,
    lessons: learning.lessons.filter((l) => l.errors.includes(k.id) && l.fixes.includes(k.id)).map((l) => l.path),
    skills: learning.skills.filter((l) => l.errors.includes(k.id) && l.fixes.includes(k.id)).map((l) => l.path),
  }));
  const mixed = learning.lessons.filter((l) => l.errors.length > 1);
  return { project, control, learning, lateControl, lateLearning, surfaced, offTarget, recurring, named, mixed, known };
}

const bench: BenchModule = {
  name: 'learning',
  description: 'the learning curve: first-attempt failures per spec with the knowledge loop and without, on a project and a held-out one',
  async run({ args, log }) {
    const which = option(args, '--project') ?? 'both';
    const projects = which === 'notes' ? [NOTES] : which === 'etl' ? [ETL] : [NOTES, ETL];
    const rows: Row[] = [];
    const targets: Target[] = [];
    const results = [];
    const notes = [
      'Each spec is run with `harness run`, then `--retry` for what failed; the integration branch is merged; the learning arm then runs `harness reflect` and commits what it wrote.',
      'A plan that meets a failure fails its first attempt unless its brief carries the fix; the retry finds the fix and reports it (HARNESS_INSIGHT).',
      'first fails: plans whose first attempt failed (of the plans meeting a failure); surfaced: items put into briefs; off target: surfaced onto a plan that does not meet the failure the item is about.',
    ];
    for (const project of projects) {
      const m = await measure(project, log);
      m.control.specs.forEach((c, i) => {
        const l = m.learning.specs[i]!;
        rows.push({
          project: project.name.split(' ')[0]!,
          spec: c.spec,
          'plans (meeting a failure)': `${c.plans} (${c.meeting})`,
          'control: first fails': c.firstFailed,
          'learning: first fails': l.firstFailed,
          'surfaced (off target)': `${l.surfaced} (${l.offTarget})`,
        });
      });
      const quarter = m.lateLearning * 4 <= m.lateControl;
      targets.push(
        { name: `${project.name}: later half, learning first-attempt failures ≤ ¼ of control's`, met: quarter && m.lateControl > 0, detail: `${m.lateLearning} vs ${m.lateControl}` },
        {
          name: `${project.name}: every kind that failed twice has a lesson naming its error and its fix`,
          met: m.named.length === m.recurring.length,
          detail: `${m.named.length} of ${m.recurring.length} (${m.known.map((k) => `${k.kind}: failed ${k.failedFirst}×, ${k.lessons.length} lesson${k.lessons.length === 1 ? '' : 's'} and ${k.skills.length} skill${k.skills.length === 1 ? '' : 's'} naming error and fix`).join('; ')})`,
        },
        { name: `${project.name}: no lesson mixes two kinds`, met: m.mixed.length === 0, detail: `${m.mixed.length} of ${m.learning.lessons.length} lessons mix kinds${m.mixed.length ? `: ${m.mixed.map((l) => l.path).join(', ')}` : ''}` },
        { name: `${project.name}: ≤ 10% of surfaced items off target`, met: m.surfaced === 0 ? false : m.offTarget * 10 <= m.surfaced, detail: `${m.offTarget} of ${m.surfaced}` },
      );
      results.push({
        project: project.name,
        specs: m.control.specs.map((c, i) => ({ spec: c.spec, plans: c.plans, meeting: c.meeting, control: c.firstFailed, learning: m.learning.specs[i]!.firstFailed, surfaced: m.learning.specs[i]!.surfaced, offTarget: m.learning.specs[i]!.offTarget, surfacedLines: m.learning.specs[i]!.lines })),
        laterHalf: { control: m.lateControl, learning: m.lateLearning },
        lessons: m.learning.lessons,
        skills: m.learning.skills,
        kinds: m.known,
      });
      for (const l of m.learning.lessons.slice(0, 2)) notes.push('', `${project.name}: ${l.path}`, ...l.text.split('\n').map((t) => `    ${t}`));
    }
    return { notes, rows, targets, results };
  },
};

export default bench;
