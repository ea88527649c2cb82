import { join, relative, resolve } from 'node:path';
import { plural } from '../../engine/core/plural.js';
import { parseArgs } from 'node:util';
import { CONFIG_PATH, parseConfig } from '../../engine/core/config/parse.js';
import { DEFAULT_CONFIG, type HarnessConfig } from '../../engine/core/config/schema.js';
import { countErrors, formatProblem } from '../../engine/core/spec/problem.js';
import { KNOWLEDGE_ROOT } from '../../engine/forge/knowledge-draft.js';
import type { LessonChange } from '../../engine/knowledge/lessons/distill.js';
import { ReflectorError } from '../../engine/knowledge/lessons/reflector.js';
import { skippedSummary } from '../../engine/knowledge/lessons/skipped-summary.js';
import { makeSafe, secretValues, type SafetyOptions } from '../../machine/content-safety.js';
import { isDirectory, readTextIfExists } from '../../machine/files.js';
import { reflectLocally, type LocalReflection } from '../../machine/local-reflection.js';
import { configuredReflector } from '../../machine/reflector-agent.js';
import { Git, GitError } from '../../machine/git.js';
import { EXIT, UsageError, type CliIO } from '../io.js';
import { displayPath } from '../spec-input.js';
import { oneLine } from '../../engine/core/spec/problem.js';

export const usage = `Usage: harness reflect [--knowledge DIR] [--dry-run] [--json]

Turn recurring signals into lessons. Reads the knowledge store's signals that no lesson
cites yet, groups those that describe the same problem (in whatever words, with whatever
tags) and proposes a lesson for each group that recurs: in at least
knowledge.reflect.min_plans distinct plans or projects, with a weight of at least
knowledge.reflect.min_weight (each signal by its severity: low 1, medium 2, high 3). A
one-off never becomes a lesson. A group an existing lesson already says is added to that
lesson's evidence instead. With knowledge.reflect.agent set, the reflector agent writes each
new lesson; without it, harness drafts it from the evidence and says so in the lesson.

Options:
  --knowledge DIR  the knowledge store (default: .harness/knowledge in this repository)
  --dry-run        decide and report, write nothing and run no agent
  --json           print the stable JSON report (see docs/knowledge.md: Reflection)
  -h, --help       show this help

New and updated lessons are written into the store; review them and commit them (a
lesson counts once it is merged). Every text is written through the content-safety pass.

Exit: 0 reflected (or nothing to reflect on), 1 a knowledge file or the config has
problems, 2 usage error.
`;

/** The stable `harness reflect --json` report. */
export interface ReflectJson {
  lessons: { path: string; title: string; action: 'create' | 'link'; links: string[]; evidence: string[] }[];
  skipped: { signal: string; reason: string }[];
}

/** The repository a directory is in, or undefined. */
async function gitRoot(dir: string): Promise<string | undefined> {
  try {
    return (await new Git(dir).run(['rev-parse', '--show-toplevel'])).trim();
  } catch (e) {
    if (e instanceof GitError) return undefined;
    throw e;
  }
}

async function readConfig(root: string, io: CliIO): Promise<HarnessConfig | undefined> {
  const text = await readTextIfExists(join(root, CONFIG_PATH));
  if (text === undefined) return DEFAULT_CONFIG;
  const { config, problems } = parseConfig(text);
  for (const p of problems) io.stderr(`${formatProblem(p)}\n`);
  return countErrors(problems) > 0 ? undefined : config;
}

export async function reflectCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { knowledge: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"; the store is given with --knowledge DIR`);
  const repoRoot = (await gitRoot(io.cwd)) ?? io.cwd;
  const store = values.knowledge !== undefined ? resolve(io.cwd, values.knowledge) : join(repoRoot, KNOWLEDGE_ROOT);
  if (values.knowledge !== undefined && !(await isDirectory(store))) throw new UsageError(`--knowledge ${displayPath(values.knowledge)}: no such directory`);
  // Paths are the repository's: the store's own repository when it has one (a knowledge repository's checkout).
  const root = values.knowledge !== undefined ? ((await gitRoot(store)) ?? repoRoot) : repoRoot;

  const config = await readConfig(repoRoot, io);
  if (!config) {
    io.stderr(`harness reflect: ${CONFIG_PATH} has errors; fix them and run again\n`);
    return EXIT.problems;
  }
  const dryRun = values['dry-run'] === true;
  const safety: SafetyOptions = { roots: [...new Set([root, repoRoot, store, io.cwd])], secrets: secretValues(io.env) };
  let reflector;
  try {
    reflector = dryRun ? undefined : configuredReflector(config, { cwd: root, env: io.env });
  } catch (e) {
    if (!(e instanceof ReflectorError)) throw e;
    io.stderr(`harness reflect: ${e.message}\n`);
    return EXIT.problems;
  }

  if (!(await isDirectory(store))) {
    const where = displayPath(relative(io.cwd, store) || '.');
    if (values.json) io.stdout(`${JSON.stringify({ lessons: [], skipped: [] } satisfies ReflectJson, null, 2)}\n`);
    else io.stdout(`Nothing to reflect on: there is no knowledge store at ${where} yet (signals are captured there as plans run).\n`);
    return EXIT.ok;
  }
  const result = await reflectLocally({
    store,
    root,
    config,
    today: new Date(),
    ...(reflector ? { reflector } : {}),
    ...(dryRun ? { withoutAgent: 'a dry run runs no agent' } : {}),
    write: !dryRun,
    safety,
  });

  sayProblems(result, io);
  await printReflection(result, io, { store, safety, dryRun, json: values.json === true });
  const broken = result.unreadableLessons.length + result.unreadableSignals.length;
  if (broken > 0) {
    io.stderr(
      `harness reflect: ${broken} knowledge file${broken === 1 ? '' : 's'} could not be read (above); fix ${broken === 1 ? 'it' : 'them'} and reflect again\n`,
    );
    return EXIT.problems;
  }
  return EXIT.ok;
}

/** Skipped signals listed one by one at most; --json lists them all. */
const SKIPPED_SHOWN = 10;

function change(c: LessonChange, title: string): string[] {
  const verb = c.action === 'create' ? 'new ' : 'link';
  const what =
    c.action === 'create'
      ? `${oneLine(title)} (${c.writtenBy === 'harness' ? 'drafted by harness' : `written by ${oneLine(c.writtenBy)}`})`
      : `${plural(c.evidence.length, 'more signal')} for "${oneLine(title)}"`;
  return [`  ${verb}  ${oneLine(c.path)}`, `        ${what}`, `        why: ${oneLine(c.why)}`];
}

/** What could not be read, what the agent could not write (and harness drafted), and what was redacted, on stderr. */
function sayProblems(result: LocalReflection, io: CliIO): void {
  for (const u of [...result.unreadableLessons, ...result.unreadableSignals]) io.stderr(`${u.file}:${u.line}: ${u.problem}\n`);
  for (const c of result.changes) if (c.agentProblem) io.stderr(`harness reflect: ${c.path}: ${c.agentProblem}; harness drafted it instead\n`);
  for (const w of result.written) {
    for (const r of w.redactions)
      io.stderr(`harness reflect: ${w.path}: a secret (${r.rule}) from line ${r.line} of the lesson was redacted before it was written\n`);
  }
}

/** The lessons proposed or written, as JSON or for a person, their titles made safe. */
async function printReflection(
  result: LocalReflection,
  io: CliIO,
  { store, safety, dryRun, json }: { store: string; safety: SafetyOptions; dryRun: boolean; json: boolean },
): Promise<void> {
  const titles = await Promise.all(result.changes.map(async (c) => (await makeSafe(c.title, safety)).text));
  if (json) {
    const report: ReflectJson = {
      lessons: result.changes.map((c, i) => ({ path: c.path, title: titles[i]!, action: c.action, links: c.links, evidence: c.evidence })),
      skipped: result.skipped,
    };
    io.stdout(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    io.stdout(human(result, titles, { store: displayPath(relative(io.cwd, store) || '.'), dryRun }));
  }
}

function human(result: LocalReflection, titles: string[], options: { store: string; dryRun: boolean }): string {
  const lines: string[] = [];
  const created = result.changes.filter((c) => c.action === 'create').length;
  const linked = result.changes.length - created;
  if (result.changes.length === 0) lines.push(`No lessons to propose from ${options.store}.`);
  else lines.push(`${options.dryRun ? 'Would propose' : 'Proposed'} ${plural(created, 'new lesson')} and ${plural(linked, 'link')} from ${options.store}:`);
  result.changes.forEach((c, i) => lines.push(...change(c, titles[i]!)));
  if (result.skipped.length > 0) {
    lines.push('', `${plural(result.skipped.length, 'signal')} not made into a lesson (${skippedSummary(result.skipped)}):`);
    for (const s of result.skipped.slice(0, SKIPPED_SHOWN)) lines.push(`  ${oneLine(s.signal)}: ${oneLine(s.reason)}`);
    if (result.skipped.length > SKIPPED_SHOWN) lines.push(`  … and ${result.skipped.length - SKIPPED_SHOWN} more (harness reflect --json lists them all)`);
  }
  if (result.changes.length > 0) {
    lines.push(
      '',
      options.dryRun
        ? 'Dry run: nothing was written.'
        : `Written into ${options.store}: review the lessons, then commit them; a lesson counts once it is merged.`,
    );
  }
  return `${lines.join('\n')}\n`;
}
