import type { Plan } from '../../core/spec/model.js';
import { dirnameOf, normalizePath } from '../../core/verify/module-paths.js';
import { words } from './words.js';

/**
 * What a plan shows, before its first attempt, of the causes it may meet: the commands its
 * checks run, the modules its files import, and the words it says of itself. A careful engineer
 * reviewing a plan asks "will this plan hit that?" from exactly these: a lesson about Postgres
 * migrations applies to a plan whose files import a Postgres driver, or that says it persists
 * to the database; a lesson about `go test -race` to a plan whose checks run it. A folder is not
 * among them: plans of one folder meet different causes, and one cause meets many folders.
 *
 * Capture records the profile of every plan that failed (its failure signals) and of every plan
 * of a verified phase (its completion signal), so that reflection can tell what the plans that
 * met a failure had in common that the others had not (conditions.ts).
 */
export interface PlanProfile {
  /** Command features: `go test`, `go test -race`, `pytest -m integration`, `npm run test:db`. */
  commands: string[];
  /** Modules imported, each with its parents: `github.com/jackc/pgx`, `github.com/jackc/pgx/v5`. */
  imports: string[];
  /** The plan's own words, stemmed (documents/words.ts): title, body, truths, requirements. */
  words: string[];
}

/** What a profile holds at most of each, so that a signal stays small. */
export const PROFILE_MAX = { commands: 24, imports: 40, words: 60 } as const;

/** The plan as a profile reads it: what the engine's Plan has, and no more. */
export interface ProfiledPlan {
  title: string;
  body: string;
  truths?: readonly string[];
  requirements?: readonly string[];
  /** The shell commands its checks (and its server) run. */
  commands: readonly string[];
  /** The files it reads (files_read): each is a module of the project it works with, as much as an import is. */
  reads?: readonly string[];
}

/** Programs that only run another: the feature is what they run. */
const WRAPPERS = new Set(['sudo', 'env', 'npx', 'pnpx', 'bunx', 'exec', 'time', 'nice', 'timeout', 'xargs', 'command', 'nohup', 'stdbuf']);
/** Runners whose subcommand runs another program: `poetry run pytest`, `npm exec vitest`, `bundle exec rspec`. */
const RUNS_ANOTHER: Readonly<Record<string, readonly string[]>> = {
  poetry: ['run'],
  uv: ['run'],
  pipenv: ['run'],
  pdm: ['run'],
  hatch: ['run'],
  bundle: ['exec'],
  npm: ['exec', 'x'],
  pnpm: ['exec', 'dlx'],
  yarn: ['exec', 'dlx'],
  bun: ['x'],
};
/** Programs whose first word is a subcommand, part of what the command is. */
const SUBCOMMANDS = new Set([
  'go',
  'cargo',
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'deno',
  'dotnet',
  'mvn',
  'mvnw',
  'gradle',
  'gradlew',
  'docker',
  'docker-compose',
  'podman',
  'kubectl',
  'helm',
  'make',
  'just',
  'rake',
  'mix',
  'swift',
  'flutter',
  'dart',
  'composer',
  'pip',
  'pip3',
  'uv',
  'tox',
  'nox',
  'vitest',
  'turbo',
  'nx',
  'git',
  'terraform',
  'alembic',
  'django-admin',
  'manage.py',
  'rails',
  'sbt',
  'lein',
  'zig',
  'cmake',
  'ctest',
  'bazel',
]);
/** `npm run <script>`: the script is the command. */
const SCRIPT_RUNNERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
/** Shell plumbing that says nothing about the work. */
const PLUMBING = new Set([
  'cd',
  'echo',
  'printf',
  'cat',
  'test',
  'true',
  'false',
  'set',
  'export',
  'mkdir',
  'rm',
  'cp',
  'mv',
  'ls',
  'grep',
  'sed',
  'awk',
  'head',
  'tail',
  'sleep',
  'touch',
  'wc',
  'sort',
  'tee',
  'diff',
  'chmod',
  '[',
  '[[',
  'if',
  'then',
  'fi',
  'for',
  'do',
  'done',
  'exit',
  'source',
  '.',
]);
/** Interpreters that run a module or a script: `python -m pytest` is pytest. */
const PYTHONS = /^python(?:\d+(?:\.\d+)?)?$/;
/** Flags whose value is part of what is run (`-m integration`, `-tags integration`, `-p 1`, `--pool threads`), not a path. */
const VALUE = /^[A-Za-z0-9][\w:=,+-]{0,40}$/;
/** A word that names a subcommand or a script: not a path, not a pattern. */
const WORD = /^[A-Za-z][\w:+-]{0,40}$/;

function tokens(simple: string): string[] {
  const out: string[] = [];
  for (const m of simple.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

function basename(word: string): string {
  return word.replace(/^.*\//, '');
}

/**
 * The features of one shell command line: for each command in it, its program (through
 * wrappers and runners: `npx vitest`, `poetry run pytest`, `python -m pytest`), with its
 * subcommand or script (`go test`, `npm run test:db`), and that with each flag it is given
 * (`go test -race`, `pytest -m integration`, `vitest run --pool=threads`). Paths, patterns and
 * quoted data are left out: `go test -race ./internal/orders/...` and `go test -race ./...`
 * are the same command to a cause.
 */
export function commandFeatures(line: string): string[] {
  const out: string[] = [];
  for (const part of line.slice(0, 4000).split(/&&|\|\||[;|\n()`]/)) out.push(...oneCommandFeatures(tokens(part.trim())));
  return [...new Set(out)];
}

/** One command's features: its head, that with each variable it sets, and that with each flag. */
function oneCommandFeatures(words: readonly string[]): string[] {
  const { env, at } = leadingWords(words);
  const command = commandHead(words, at);
  if (command === undefined) return [];
  const { head, rest } = command;
  return [head, ...env.map((e) => `${head} ${e}`), ...flagFeatures(head, rest)];
}

/** Where the program starts, past the variables set for it (`CI=1`, kept as `CI=`) and the wrappers it runs under (with their flags). */
function leadingWords(words: readonly string[]): { env: string[]; at: number } {
  let i = 0;
  const env: string[] = [];
  for (;;) {
    const w = words[i];
    if (w === undefined) break;
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(w);
    if (assignment) env.push(`${assignment[1]}=`);
    else if (!WRAPPERS.has(basename(w)) && !(w.startsWith('-') && i > 0 && WRAPPERS.has(basename(words[i - 1]!)))) break;
    i++;
  }
  return { env, at: i };
}

/**
 * The command's head: the program (through runners: `npx vitest`, `python -m pytest`), with its
 * subcommand or script (`go test`, `npm run test:db`); and the words after it. None for plumbing
 * or what is no program's name.
 */
function commandHead(words: readonly string[], at: number): { head: string; rest: string[] } | undefined {
  let program = words[at] === undefined ? undefined : basename(words[at]!);
  if (program === undefined || PLUMBING.has(program) || !/^[A-Za-z][\w.+-]*$/.test(program)) return undefined;
  let rest = words.slice(at + 1);
  const runs = RUNS_ANOTHER[program];
  if (runs && rest[0] !== undefined && runs.includes(rest[0]) && rest[1] !== undefined && WORD.test(basename(rest[1]))) {
    program = basename(rest[1]);
    rest = rest.slice(2);
  }
  if (PYTHONS.test(program) && rest[0] === '-m' && rest[1] !== undefined && WORD.test(rest[1])) {
    program = rest[1];
    rest = rest.slice(2);
  }
  program = program.replace(/\.(?:sh|py|js|cmd|bat)$/, '');
  let head = program;
  if ((SUBCOMMANDS.has(program) || SCRIPT_RUNNERS.has(program)) && rest[0] !== undefined && !rest[0].startsWith('-') && WORD.test(rest[0])) {
    head = `${program} ${rest[0]}`;
    rest = rest.slice(1);
    if (SCRIPT_RUNNERS.has(program) && (head.endsWith(' run') || head.endsWith(' run-script')) && rest[0] !== undefined && WORD.test(rest[0])) {
      head = `${head} ${rest[0]}`;
      rest = rest.slice(1);
    }
  }
  return { head, rest };
}

/** The head with each flag it is given (and the flag's value, when that is no path), up to `--`. */
function flagFeatures(head: string, rest: readonly string[]): string[] {
  const out: string[] = [];
  for (let k = 0; k < rest.length; k++) {
    const w = rest[k]!;
    if (w === '--') break;
    if (!w.startsWith('-') || w.length < 2) continue;
    // `--flag=value` keeps its value when the value is not a path.
    const eq = w.indexOf('=');
    const flag = eq > 0 && !VALUE.test(w.slice(eq + 1)) ? w.slice(0, eq) : w;
    const next = rest[k + 1];
    if (
      eq < 0 &&
      next !== undefined &&
      !next.startsWith('-') &&
      VALUE.test(next) &&
      /^-{1,2}[A-Za-z][\w-]*$/.test(w) &&
      !/^\.|\//.test(next) &&
      takesValue(w, next)
    ) {
      out.push(`${head} ${flag} ${next}`);
      k++;
    } else out.push(`${head} ${flag}`);
  }
  return out;
}

/**
 * Whether a flag's next word is its value: a short flag followed by a word that cannot be a
 * path or a package pattern (`-m integration`, `-p 1`, `-n 4`), or a long flag followed by one
 * (`--pool threads`). A bare word after a boolean flag (`-v tests`) is an argument, but a
 * command line does not say which flags are boolean: a word with no dot or slash is taken as
 * the value, which keeps `-tags integration` and `-m slow` whole.
 */
function takesValue(flag: string, next: string): boolean {
  return !/[./]/.test(next) && (flag.startsWith('--') ? next.length <= 20 : true);
}

/** The module an import names, and its parents down to a name that still says what it is. */
function withParents(module: string, separator: '/' | '.' | '::'): string[] {
  const parts = module.split(separator).filter((p) => p !== '');
  if (parts.length === 0) return [];
  // A domain first (github.com/jackc/pgx) needs its owner and repository to name anything; a Java package its two first parts.
  const least =
    separator === '/' && parts[0]!.includes('.')
      ? Math.min(3, parts.length)
      : separator === '.' && parts.length >= 2 && /^(?:com|org|net|io|dev|app|java|javax|jakarta|kotlin|scala|android)$/.test(parts[0]!)
        ? 2
        : 1;
  const out: string[] = [];
  for (let n = least; n <= parts.length; n++) out.push(parts.slice(0, n).join(separator));
  return out;
}

/** A relative import (`./db/pool.js`) as the project path it reaches (`src/store/db/pool`), or undefined when it climbs out. */
function relativeTo(file: string, spec: string): string | undefined {
  const path = normalizePath(`${dirnameOf(file)}/${spec}`)?.replace(/\.(?:[cm]?[jt]sx?|py|rb)$/, '');
  return path === undefined || path === '' ? undefined : path;
}

const GO_SINGLE = /^\s*import\s+(?:[\w.]+\s+)?"([^"\s]+)"/gm;
const GO_BLOCK = /^\s*import\s*\(([^)]{0,20000})\)/gm;
const GO_LINE = /^\s*(?:[\w.]+\s+)?"([^"\s]+)"/gm;
const PY_IMPORT = /^[ \t]*import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*)/gm;
const PY_FROM = /^[ \t]*from[ \t]+([\w.]+)[ \t]+import\b/gm;
const JS_FROM = /\b(?:import|export)\b[^'"`;]{0,300}?\bfrom\s*['"]([^'"\n]+)['"]/g;
const JS_BARE = /^\s*import\s*['"]([^'"\n]+)['"]/gm;
const JS_CALL = /\b(?:require|import)\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;
const RUST_USE = /^\s*(?:pub\s+)?(?:use|extern\s+crate)\s+([A-Za-z_][\w]*(?:::[A-Za-z_][\w]*)*)/gm;
const JVM_IMPORT = /^\s*import\s+(static\s+)?([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+)/gm;
const CS_USING = /^\s*(?:global\s+)?using\s+(?:static\s+)?([A-Z][\w]*(?:\.[A-Za-z_][\w]*)*)\s*;/gm;
const RB_REQUIRE = /^\s*require(?:_relative)?\s*\(?\s*['"]([^'"\n]+)['"]/gm;
const C_INCLUDE = /^\s*#\s*include\s*[<"]([^>"\n]+)[>"]/gm;

/** Files read for their imports are cut here: the imports are at the top. */
const IMPORT_TEXT_MAX = 64 * 1024;

/**
 * The modules a source file imports, each with its parents (`github.com/jackc/pgx/v5/pgxpool`
 * gives `github.com/jackc/pgx`, `…/v5` and `…/v5/pgxpool`): Go, Python, JavaScript and
 * TypeScript, Rust, Java and Kotlin, C#, Ruby, C and C++. A relative import (`./db/pool.js`,
 * `require_relative`) is the project path it reaches (`src/db/pool`). Files of other kinds
 * import nothing.
 */
export function importsOf(path: string, text: string): string[] {
  const src = text.slice(0, IMPORT_TEXT_MAX);
  const ext = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  const read = IMPORT_READERS.get(ext);
  return read === undefined ? [] : [...new Set(read(src, path))];
}

/** The first group (or the `g`th) of every match. */
function allOf(src: string, re: RegExp, g = 1): string[] {
  return [...src.matchAll(re)].map((m) => m[g]!);
}

function goImports(src: string): string[] {
  const out: string[] = [];
  for (const m of allOf(src, GO_SINGLE)) out.push(...withParents(m, '/'));
  for (const block of allOf(src, GO_BLOCK)) for (const m of block.matchAll(GO_LINE)) out.push(...withParents(m[1]!, '/'));
  return out;
}

function pythonImports(src: string): string[] {
  const out: string[] = [];
  for (const list of allOf(src, PY_IMPORT)) for (const m of list.split(',')) out.push(...withParents(m.trim(), '.'));
  for (const m of allOf(src, PY_FROM)) out.push(...withParents(m, '.'));
  return out;
}

function jsImports(src: string, path: string): string[] {
  const out: string[] = [];
  for (const re of [JS_FROM, JS_BARE, JS_CALL])
    for (const spec of allOf(src, re)) {
      if (spec.startsWith('.')) {
        const target = relativeTo(path, spec);
        if (target) out.push(target);
      } else if (!/^(?:node|bun):/.test(spec) || spec.length > 5)
        out.push(...withParents(spec.startsWith('@') ? spec : spec, '/').slice(spec.startsWith('@') ? 1 : 0));
    }
  return out;
}

function rustImports(src: string): string[] {
  return allOf(src, RUST_USE)
    .filter((m) => !/^(?:crate|self|super)\b/.test(m))
    .flatMap((m) => withParents(m, '::'));
}

/** The package: a class (and a static member after it) is where in it, not what is used. */
function jvmImports(src: string): string[] {
  return [...src.matchAll(JVM_IMPORT)].flatMap((m) => withParents(m[2]!.replace(m[1] ? /\.\w+$/ : /$/, '').replace(/\.[A-Z]\w*$/, ''), '.'));
}

function csharpImports(src: string): string[] {
  return allOf(src, CS_USING).flatMap((m) => withParents(m, '.'));
}

function rubyImports(src: string, path: string): string[] {
  return allOf(src, RB_REQUIRE).flatMap((m) => (m.startsWith('.') ? [relativeTo(path, m)].filter((x): x is string => x !== undefined) : withParents(m, '/')));
}

function cImports(src: string): string[] {
  return allOf(src, C_INCLUDE).map((m) => m.replace(/\.h(?:pp)?$/, ''));
}

/** Each language's reader, by the extensions of its files. */
const IMPORT_READERS: ReadonlyMap<string, (src: string, path: string) => string[]> = new Map([
  ['go', goImports],
  ['py', pythonImports],
  ...['js', 'jsx', 'mjs', 'cjs', 'ts', 'tsx', 'mts', 'cts', 'vue', 'svelte'].map((ext) => [ext, jsImports] as const),
  ['rs', rustImports],
  ...['java', 'kt', 'kts', 'scala', 'groovy'].map((ext) => [ext, jvmImports] as const),
  ['cs', csharpImports],
  ['rb', rubyImports],
  ...['c', 'h', 'cc', 'cpp', 'hpp', 'cxx'].map((ext) => [ext, cImports] as const),
]);

/** The most of something, keeping the order it came in. */
function capped(list: readonly string[], max: number): string[] {
  return [...new Set(list)].slice(0, max);
}

/**
 * A plan's profile: its checks' commands, the imports given (read by the caller from the plan's
 * files that exist), and its own words. Code blocks and comments in the body are left out of
 * its words: a script's words are what it runs, which its commands already say.
 */
export function planProfile(plan: ProfiledPlan, imports: readonly string[] = []): PlanProfile {
  const text = [
    plan.title,
    plan.body.replace(/<!--[\s\S]*?-->/g, ' ').replace(/```[\s\S]*?```/g, ' '),
    ...(plan.truths ?? []),
    ...(plan.requirements ?? []),
  ].join('\n');
  return {
    commands: capped(plan.commands.flatMap(commandFeatures), PROFILE_MAX.commands),
    imports: capped([...new Set([...(plan.reads ?? []).filter((f) => !/[*?{[]/.test(f)).map(modulePath), ...imports])].sort(), PROFILE_MAX.imports),
    words: capped(
      words(text).filter((w) => w.length > 2),
      PROFILE_MAX.words,
    ),
  };
}

function stringList(value: unknown, max: number): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '' && v.length <= 200).slice(0, max) : [];
}

/** A profile as a signal's metadata holds it; undefined when there is none (an older signal). */
export function profileOf(value: unknown): PlanProfile | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const profile = {
    commands: stringList(v.commands, PROFILE_MAX.commands),
    imports: stringList(v.imports, PROFILE_MAX.imports),
    words: stringList(v.words, PROFILE_MAX.words),
  };
  return profile.commands.length + profile.imports.length + profile.words.length === 0 ? undefined : profile;
}

/** A profile as a set of features, each kind apart: `runs:go test -race`, `imports:pgx`, `says:postgr`. */
export function profileFeatures(p: PlanProfile): Set<string> {
  return new Set([...p.commands.map((c) => `runs:${c}`), ...p.imports.map((i) => `imports:${i}`), ...p.words.map((w) => `says:${w}`)]);
}

/** A project file as a module: its path without the extension (`tally/core/dates.py` is `tally/core/dates`). */
function modulePath(file: string): string {
  return file.replace(/^\.\//, '').replace(/\.[A-Za-z0-9]{1,6}$/, '');
}

/** A plan's profile from the engine's Plan: the commands its checks and its server run, the modules it reads and the imports the caller read from them, and its words. */
export function profileOfPlan(plan: Plan, imports: readonly string[] = []): PlanProfile {
  const commands = [
    ...plan.mustPass.flatMap((c) => ('command' in c && typeof c.command === 'string' ? [c.command] : [])),
    ...(plan.serve?.command ? [plan.serve.command] : []),
  ];
  return planProfile({ title: plan.title, body: plan.body, truths: plan.truths, requirements: plan.requirements, commands, reads: plan.filesRead }, imports);
}

/**
 * The files whose imports a plan's profile records: those it reads (not globs). They are there
 * before its first attempt and the same after it, so the profile a failure records is the one
 * surfacing will see for the next plan; the files it writes are not (most do not exist yet, and
 * after an attempt they hold what the agent wrote, which no later plan shows beforehand).
 */
export function importedFrom(plan: Pick<Plan, 'filesRead'>): string[] {
  return [...new Set(plan.filesRead)].filter((f) => !/[*?{[]/.test(f)).slice(0, 40);
}
