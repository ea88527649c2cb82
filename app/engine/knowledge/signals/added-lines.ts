/**
 * What a passing attempt's diff adds that the failed attempt's had not, as far as a person
 * reading a repair would call it the fix: the commands and settings among the added lines (a
 * script in package.json, a configuration key, a flag in a test command). Read from the
 * unified diff between the failed attempt's head and the passing one's; pure, the diff comes
 * in as text. Bounded: a few short lines, settings first.
 */

/** One added line and the file it is in. */
export interface AddedLine {
  file: string;
  line: string;
}

/** Lines a repair records at most, and the length of each. */
export const ADDED_MAX = 6;
const LINE_MAX = 160;
/** Added lines read at most: a diff of generated files must not cost more than a glance. */
const READ_MAX = 4000;

/** Files whose every line is a setting or a command. */
const SETTINGS_FILE =
  /(?:^|\/)(?:package\.json|tsconfig[^/]*\.json|\.?[\w.-]*rc(?:\.json|\.ya?ml|\.js|\.cjs)?|[^/]*\.config\.[cm]?[jt]s|[^/]*\.(?:ya?ml|toml|ini|cfg|conf|properties)|\.env[^/]*|Makefile|Dockerfile|[^/]*\.mk|pyproject\.toml|setup\.cfg|requirements[^/]*\.txt|go\.mod|Cargo\.toml)$/i;
/** Files of this run's records and the knowledge store: what harness writes, not the agent's fix. */
const RECORDS = /^\.harness\/|(?:^|\/)\.planning\//;
/** A command-line flag, an environment setting or a key with a value. */
const COMMAND_OR_SETTING = /(?:^|\s)--?[a-zA-Z][\w-]*(?:[=\s]|$)|^(?:export\s+)?[A-Z][A-Z0-9_]{2,}=\S|^["']?[\w.@/-]+["']?\s*[:=]\s*\S/;
/** Lines that say nothing alone: brackets, punctuation, comments. */
const EMPTY = /^[\s{}[\]()<>,;:'"`]*$|^\s*(?:\/\/|#|\/\*|\*|<!--)/;

function clip(line: string): string {
  const t = line.trim().replace(/,$/, '');
  return t.length > LINE_MAX ? `${t.slice(0, LINE_MAX - 1)}…` : t;
}

/** The added lines of a unified diff, by file, in the diff's order. */
export function addedLines(diff: string): AddedLine[] {
  const out: AddedLine[] = [];
  let file: string | undefined;
  for (const raw of diff.split('\n')) {
    if (raw.startsWith('+++ ')) {
      const path = raw.slice(4).trim();
      file = path === '/dev/null' ? undefined : path.replace(/^b\//, '');
      continue;
    }
    if (raw.startsWith('diff --git ')) file = undefined;
    if (file === undefined || !raw.startsWith('+')) continue;
    out.push({ file, line: raw.slice(1) });
    if (out.length >= READ_MAX) break;
  }
  return out;
}

/**
 * The few telling added lines: every line of a settings file first (package.json, a YAML or
 * TOML file, a `*.config.*`), then lines elsewhere that are a command with a flag, an
 * environment setting or a key with a value; each said once, at most ADDED_MAX. `only`: the
 * files the passing attempt changed since its base, when known (a retry's branch made afresh
 * from an integration branch that moved on differs from the failed one in the run's records too).
 */
export function tellingAdditions(diff: string | undefined, options: { only?: readonly string[]; max?: number } = {}): AddedLine[] {
  if (diff === undefined || diff.trim() === '') return [];
  const max = options.max ?? ADDED_MAX;
  const only = options.only === undefined ? undefined : new Set(options.only);
  const lines = addedLines(diff).filter((l) => (only === undefined || only.has(l.file)) && !RECORDS.test(l.file) && !EMPTY.test(l.line));
  const settings = lines.filter((l) => SETTINGS_FILE.test(l.file));
  const commands = lines.filter((l) => !SETTINGS_FILE.test(l.file) && COMMAND_OR_SETTING.test(l.line.trim()));
  const seen = new Set<string>();
  const out: AddedLine[] = [];
  for (const l of [...settings, ...commands]) {
    const line = clip(l.line);
    const key = `${l.file}\0${line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ file: l.file, line });
    if (out.length >= max) break;
  }
  return out;
}

/** `"pretest": "node scripts/setup.js"` (in `package.json`): how a signal and a lesson say one. */
export function sayAddition(a: AddedLine): string {
  return `\`${a.line.replace(/`/g, "'")}\` (in \`${a.file}\`)`;
}
