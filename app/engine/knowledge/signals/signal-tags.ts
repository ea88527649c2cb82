/**
 * Tags for a signal, derived from what was involved: the files, the commands and the kinds of
 * check. Reflection groups signals by them and surfacing matches plans against them, so they
 * must name the *subject* (sqlite, migrations, typescript, http) and never the incidental
 * (src, index, a plan id). Deterministic: the same files and commands give the same tags.
 */

export interface TagSources {
  /** Repository paths, forward slashes. */
  files?: readonly string[];
  /** Shell command lines, as a plan or a check wrote them. */
  commands?: readonly string[];
  /** Check types (tests_pass, api_response, …). */
  checks?: readonly string[];
  /** Words that are tags already (a lesson's, an insight's). */
  words?: readonly string[];
}

/** A signal keeps this many tags at most: more would match everything. */
export const MAX_TAGS = 8;

const LANGUAGES: Readonly<Record<string, string>> = {
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  py: 'python',
  go: 'go',
  rs: 'rust',
  rb: 'ruby',
  java: 'java',
  kt: 'kotlin',
  cs: 'csharp',
  php: 'php',
  swift: 'swift',
  sql: 'sql',
  sh: 'shell',
  bash: 'shell',
  css: 'css',
  scss: 'css',
  html: 'html',
  md: 'markdown',
  json: 'json',
  yml: 'yaml',
  yaml: 'yaml',
  toml: 'toml',
  sqlite: 'sqlite',
  db: 'database',
};

/** Files whose name says what they are about. */
const NAMED_FILES: Readonly<Record<string, string>> = {
  'package.json': 'npm',
  'package-lock.json': 'npm',
  'pnpm-lock.yaml': 'pnpm',
  'yarn.lock': 'yarn',
  'tsconfig.json': 'typescript',
  dockerfile: 'docker',
  'docker-compose.yml': 'docker',
  'compose.yaml': 'docker',
  makefile: 'make',
  'cargo.toml': 'rust',
  'go.mod': 'go',
  'pyproject.toml': 'python',
  'requirements.txt': 'python',
  gemfile: 'ruby',
};

/** Check types → what they exercise. */
const CHECK_TAGS: Readonly<Record<string, string>> = {
  tests_pass: 'testing',
  build_succeeds: 'build',
  api_response: 'api',
  ui_element_exists: 'ui',
  ui_navigation: 'ui',
  key_link: 'wiring',
  human: 'review',
};

/** Words that appear in every project and say nothing about the problem. */
const STOP = new Set([
  'src',
  'lib',
  'app',
  'apps',
  'packages',
  'pkg',
  'dist',
  'build',
  'out',
  'tmp',
  'index',
  'main',
  'mod',
  'util',
  'utils',
  'helpers',
  'helper',
  'common',
  'shared',
  'misc',
  'file',
  'files',
  'new',
  'old',
  'the',
  'and',
  'for',
  'with',
  'from',
  'harness',
  'readme',
  'license',
  'changelog',
  'docs',
  'specs',
  'spec',
  'planning',
  'plans',
  'execution',
  'phases',
  'init',
  'setup',
]);

/** Programs that only run another: the tag is what they run. */
const WRAPPERS = new Set(['sudo', 'env', 'npx', 'exec', 'time', 'nice', 'timeout', 'xargs', 'bunx', 'pnpx', 'uv', 'poetry', 'pipenv', 'bundle']);
/** Shell built-ins and plumbing that say nothing about the work. */
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
  'sh',
  'bash',
  'if',
  'then',
  'fi',
  'for',
  'do',
  'done',
  'wc',
  'sort',
  'tee',
  'diff',
  'chmod',
  '[',
  '[[',
]);
/** Package managers whose first argument (a script, a subcommand) is the subject. */
const MANAGERS = new Set(['npm', 'yarn', 'pnpm', 'bun', 'cargo', 'go', 'make', 'dotnet', 'mvn', 'gradle', 'pip', 'python', 'python3', 'node', 'deno']);
/** A manager's subcommands that are the subject in their own right. */
const SUBJECTS: Readonly<Record<string, string>> = {
  test: 'testing',
  tests: 'testing',
  lint: 'lint',
  build: 'build',
  migrate: 'migrations',
  typecheck: 'typescript',
  e2e: 'e2e',
  bench: 'benchmark',
};

/** A word as a tag: lowercase, a letter first, no spaces; undefined when it is noise. */
export function normaliseTag(word: string): string | undefined {
  const tag = word
    .toLowerCase()
    .replace(/[^a-z0-9+#.-]+/g, '')
    .replace(/^[^a-z]+|[.-]+$/g, '');
  if (tag.length < 2 || tag.length > 30 || STOP.has(tag)) return undefined;
  return tag;
}

/**
 * A file's tags with their weights: what the name says it is (npm, docker, testing, ci) counts
 * most, then the directories it sits in, then the words of its name; the language least, since
 * nearly every file of a project shares it.
 */
function fileTags(path: string): Map<string, number> {
  const parts = path.split('/').filter(Boolean);
  const name = parts.pop() ?? '';
  const out = new Map<string, number>();
  const add = (tag: string | undefined, weight: number) => {
    if (tag !== undefined && !/^\d/.test(tag)) out.set(tag, Math.max(out.get(tag) ?? 0, weight));
  };
  add(NAMED_FILES[name.toLowerCase()], 2);
  if (/(?:^|[._-])(?:test|spec)s?\.[a-z]+$/i.test(name) || parts.some((p) => /^(?:tests?|__tests__|e2e)$/i.test(p))) add('testing', 2);
  if (parts.includes('.github') && parts.includes('workflows')) add('ci', 2);
  const dot = name.lastIndexOf('.');
  add(LANGUAGES[dot > 0 ? name.slice(dot + 1).toLowerCase() : ''], 0.75);
  for (const dir of parts) if (!/^(?:tests?|spec|__tests__)$/i.test(dir)) add(normaliseTag(dir), 1.5);
  // The words of the file's own name: `sqlite-store.ts` is about sqlite and a store.
  for (const word of (dot > 0 ? name.slice(0, dot) : name).split(/[-_.]+/)) if (!/^(?:tests?|spec)$/i.test(word)) add(normaliseTag(word), 1);
  return out;
}

/** A program's name as a command starts it: a word, not code or an expansion. */
const PROGRAM = /^[A-Za-z][A-Za-z0-9._+-]*$/;
/** Interpreters whose arguments are code or a script path, never a subject. */
const INTERPRETERS = new Set(['node', 'deno', 'python', 'python3', 'ruby', 'perl', 'php', 'bun']);

function commandTags(line: string): string[] {
  const out: string[] = [];
  // Quoted arguments are data (a script for `node -e`, a message): their words are not programs.
  const unquoted = line.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, ' ');
  for (const part of unquoted.split(/&&|\|\||[;|\n()`]/)) {
    const words = part.trim().split(/\s+/).filter(Boolean);
    let i = 0;
    while (i < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!) || WRAPPERS.has(words[i]!))) i++;
    const program = words[i]?.replace(/^.*\//, '');
    if (!program || !PROGRAM.test(program) || PLUMBING.has(program)) continue;
    // python3 and sqlite3 are python and sqlite.
    const tag = normaliseTag(program.replace(/(?<=[a-z]{2})\d+$/i, ''));
    if (tag) out.push(tag);
    if (MANAGERS.has(program)) {
      // `npm run lint`, `npm test`, `python -m pytest`, `go test ./...`
      const rest = words.slice(i + 1).filter((w) => !w.startsWith('-') && w !== 'run' && w !== 'exec');
      const sub = rest[0];
      if (sub !== undefined && PROGRAM.test(sub)) {
        const subject = SUBJECTS[sub] ?? (INTERPRETERS.has(program) ? undefined : normaliseTag(sub));
        if (subject) out.push(subject);
      }
      if (program.startsWith('python') && words.includes('-m')) {
        const module = normaliseTag(words[words.indexOf('-m') + 1] ?? '');
        if (module) out.push(module);
      }
    }
    if (/\b(?:jest|vitest|pytest|mocha|rspec|phpunit)\b/.test(program)) out.push('testing');
  }
  return out;
}

/**
 * The tags of what was involved, most frequent first (then alphabetical), at most MAX_TAGS.
 * Given words come first whatever their count: they were chosen, not derived.
 */
export function deriveTags(sources: TagSources): string[] {
  const counts = new Map<string, number>();
  const add = (tag: string | undefined, weight = 1) => {
    if (tag !== undefined) counts.set(tag, (counts.get(tag) ?? 0) + weight);
  };
  // Given words lead, in the order given.
  const words = sources.words ?? [];
  words.forEach((word, i) => add(normaliseTag(word), 1000 + words.length - i));
  for (const check of sources.checks ?? []) add(CHECK_TAGS[check], 2);
  for (const command of sources.commands ?? []) for (const tag of commandTags(command)) add(tag, 2);
  for (const file of sources.files ?? []) for (const [tag, weight] of fileTags(file)) add(tag, weight);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, MAX_TAGS)
    .map(([tag]) => tag);
}
