import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CONFIG_PATH, parseConfig } from '../../engine/core/config/parse.js';
import { DEFAULT_CONFIG, type HarnessConfig } from '../../engine/core/config/schema.js';
import type { Plan } from '../../engine/core/spec/model.js';
import { countErrors, formatProblem, type Problem } from '../../engine/core/spec/problem.js';
import { KNOWLEDGE_ROOT } from '../../engine/forge/knowledge-draft.js';
import { PLAN_READING } from '../../engine/importers/dialects.js';
import { parseAnyDocument } from '../../engine/knowledge/documents/any-document.js';
import { heldOutLine, holdoutSettings, isHeldOut } from '../../engine/knowledge/holdout/holdout.js';
import type { SurfacedEntry, SurfacedKind } from '../../engine/knowledge/documents/loop.js';
import { planSubject, surface, type SurfaceOptions } from '../../engine/knowledge/surfacing/surface.js';
import { isMissing, readTextIfExists } from '../../machine/files.js';
import { TreeError } from '../../machine/read-tree.js';
import { loadSurfacingIndex } from '../../machine/surfacing-store.js';
import { readImports } from '../../machine/source-imports.js';
import { importedFrom } from '../../engine/knowledge/documents/plan-profile.js';
import { EXIT, UsageError, type CliIO } from '../io.js';
import { displayPath } from '../spec-input.js';
import { oneLine } from '../../engine/core/spec/problem.js';

export const usage = `Usage: harness surface <PLAN.md> [--knowledge DIR] [--budget TOKENS] [--max N] [--json]

What harness has learned that applies to a plan: the accepted lessons
(lessons/**/*.lesson.md), skills (skills/<name>/SKILL.md; never skills-archived/)
and genes (genes/*.gene.md, not deprecated) of the knowledge store, scored
against the plan by their tags, the files they name, their trigger words and
their text, best first, within the budget the agent's brief gives them. This is
what "harness run" puts into each plan's brief and SUMMARY.md.

Options:
  --knowledge DIR  the knowledge store (default: .harness/knowledge of the plan's
                   repository)
  --budget TOKENS  tokens the brief's section may take, about four characters each
                   (default: knowledge.surface.budget_tokens of .github/harness.yml, else 500)
  --max N          entries at most (default: knowledge.surface.max_entries, else 5)
  --json           { "matches": [{ "path", "kind", "score", "why", "title", "text" }],
                   "problems": [...] }; paths are relative to the store
  -h, --help       show this help

Exit: 0 surfaced (or nothing applies), 1 the plan, the store or the config has
problems (each as file:line: message), 2 usage error.
`;

/** The stable `harness surface --json` answer: fields are only ever added. */
export interface SurfaceJson {
  plan: string | null;
  store: string;
  /** Whether the holdout (knowledge.holdout) keeps this plan from knowledge in a run: then it gets none of the matches. */
  held_out: boolean;
  matches: { path: string; kind: SurfacedEntry['kind']; score: number; why: string; title: string; text: string }[];
  problems: { file: string; line: number; severity: Problem['severity']; code: string; message: string }[];
}

function count(value: string | undefined, flag: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new UsageError(`${flag} must be a whole number from 0 to ${max}, not "${value}"`);
  return n;
}

/** The spec a plan belongs to: the id in the SPEC.md of the nearest directory above it (within the repository) that has one. */
async function specIdOf(planDir: string, repo: string | undefined): Promise<string | undefined> {
  for (let at = planDir; ; at = dirname(at)) {
    const text = await readTextIfExists(join(at, 'SPEC.md'));
    if (text !== undefined) {
      const parsed = parseAnyDocument('spec', join(at, 'SPEC.md'), text);
      return parsed.data?.id;
    }
    if (at === repo || dirname(at) === at) return undefined;
  }
}

/** The repository a path is in: the nearest directory above it with a .git. */
function repositoryOf(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return at;
    if (dirname(at) === at) return undefined;
  }
}

/** The repository's .github/harness.yml (the defaults without one, or where it has errors), its problems added to `problems`. */
async function repoConfig(repo: string | undefined, io: CliIO, problems: Problem[]): Promise<HarnessConfig> {
  const configText = repo === undefined ? undefined : await readTextIfExists(join(repo, CONFIG_PATH));
  if (configText === undefined) return DEFAULT_CONFIG;
  const parsed = parseConfig(configText);
  problems.push(...parsed.problems.map((p) => ({ ...p, file: displayPath(relative(io.cwd, join(repo!, p.file))) })));
  return parsed.config ?? DEFAULT_CONFIG;
}

/** The knowledge store to surface from (--knowledge, else the repository's) and how it is shown; a store named and missing, or a file, is a usage error. */
async function knowledgeStore(
  option: string | undefined,
  repo: string | undefined,
  config: HarnessConfig,
  io: CliIO,
): Promise<{ storeDir: string; storeShown: string }> {
  const storeDir = option !== undefined ? resolve(io.cwd, option) : join(repo ?? io.cwd, KNOWLEDGE_ROOT);
  const storeShown = displayPath(relative(io.cwd, storeDir) || '.');
  // The repository's store may not exist yet (nothing learned); one the person named must.
  const storeKind = await stat(storeDir).then(
    (s) => (s.isDirectory() ? 'directory' : 'file'),
    (e: unknown) => {
      if (isMissing(e)) return 'missing';
      throw e;
    },
  );
  if (storeKind === 'file' || (storeKind === 'missing' && option !== undefined)) {
    const named = option === undefined ? storeShown : `--knowledge ${displayPath(option)}`;
    throw new UsageError(`${named}: ${storeKind === 'file' ? 'not a directory' : 'no such directory'}`);
  }
  if (option === undefined && config.knowledge.repository !== undefined) {
    io.stderr(
      `harness surface: knowledge.repository is ${config.knowledge.repository}; pass --knowledge <its checkout> to surface from it (reading ${storeShown} now)\n`,
    );
  }
  return { storeDir, storeShown };
}

export async function surfaceCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { knowledge: { type: 'string' }, budget: { type: 'string' }, max: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (positionals.length === 0) throw new UsageError('missing <PLAN.md>');
  if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
  const planArg = displayPath(positionals[0]!);
  const planPath = resolve(io.cwd, planArg);
  const text = await readTextIfExists(planPath);
  if (text === undefined) throw new UsageError(`${planArg}: no such file`);
  const budget = count(values.budget, '--budget', 20_000);
  const max = count(values.max, '--max', 50);

  const repo = repositoryOf(dirname(planPath));
  const problems: Problem[] = [];
  const config = await repoConfig(repo, io, problems);
  const { storeDir, storeShown } = await knowledgeStore(values.knowledge, repo, config, io);
  const options: SurfaceOptions = {
    budgetTokens: budget ?? config.knowledge.surface.budget_tokens,
    maxEntries: max ?? config.knowledge.surface.max_entries,
    ...(config.knowledge.genes ? { candidateShare: config.knowledge.genes.candidate_share } : {}),
  };

  const parsed = parseAnyDocument('plan', planArg, text, { reading: PLAN_READING });
  problems.push(...parsed.problems);
  const plan: Plan | undefined = countErrors(parsed.problems) === 0 ? parsed.data : undefined;
  let index;
  try {
    index = await loadSurfacingIndex(storeDir);
  } catch (e) {
    // A store too large to read as a tree, or not a directory: the person must point elsewhere.
    if (!(e instanceof TreeError)) throw e;
    io.stderr(`harness surface: ${storeShown}: ${e.message.slice(e.message.lastIndexOf(': ') + 2)}; pass --knowledge <the store's directory>\n`);
    return EXIT.problems;
  }
  problems.push(...index.problems.map((p) => ({ ...p, file: `${storeShown}/${p.file}` })));
  // Its files that exist (those it reads, those it changes) say what it works with: the modules they import.
  const imports = plan && repo !== undefined ? await readImports(repo, importedFrom(plan)) : [];
  const matches = plan ? surface(index, planSubject(plan, imports), options) : [];
  // A plan the holdout keeps from knowledge gets none in a run: say so, with what it would have been given.
  const holdout = holdoutSettings(config.knowledge);
  const specId = plan && holdout ? await specIdOf(dirname(planPath), repo) : undefined;
  const heldOut = plan !== undefined && specId !== undefined && isHeldOut(holdout, specId, plan.id);

  if (values.json) {
    const answer: SurfaceJson = {
      plan: plan?.id ?? null,
      store: storeShown,
      held_out: heldOut,
      matches: matches.map((m) => ({ path: m.path, kind: m.kind, score: m.score, why: m.why, title: m.title, text: m.text })),
      problems: problems.map((p) => ({ file: p.file, line: p.line, severity: p.severity, code: p.code, message: p.message })),
    };
    io.stdout(`${JSON.stringify(answer, null, 2)}\n`);
  } else {
    for (const p of problems) io.stderr(`${formatProblem(p)}\n`);
    if (plan && heldOut) io.stdout(`${heldOutLine(`${specId} ${plan.id}`, holdout!.fraction)}; in a run it gets none of what follows\n`);
    if (plan) io.stdout(report(plan, matches, index.entries, storeShown, options, index.pending.length));
    else io.stderr(`harness surface: ${planArg} is not a valid plan; fix the problems above\n`);
  }
  return countErrors(problems) === 0 ? EXIT.ok : EXIT.problems;
}

function report(
  plan: Plan,
  matches: readonly SurfacedEntry[],
  entries: readonly { kind: SurfacedKind }[],
  store: string,
  options: SurfaceOptions,
  pending: number,
): string {
  const head = `${plan.id} ${oneLine(plan.title)}`;
  // Written and not committed: pending review, never surfaced (committed-store.ts).
  const waiting = pending > 0 ? ` (${pending} more pending: not committed, so not reviewed; commit ${pending === 1 ? 'it' : 'them'} once reviewed)` : '';
  if (entries.length === 0) return `${head}: nothing to surface; ${store} holds no lessons, skills or genes${waiting}\n`;
  const read =
    entries.length === 1 ? `the one ${entries[0]!.kind} in ${store}${waiting}` : `the ${entries.length} lessons, skills and genes in ${store}${waiting}`;
  if (matches.length === 0) return entries.length === 1 ? `${head}: ${read} does not apply\n` : `${head}: nothing of ${read} applies\n`;
  const what = entries.length === 1 ? `${read} applies` : `${matches.length} of ${read} ${matches.length === 1 ? 'applies' : 'apply'}`;
  const lines = [`${head}: ${what} (budget ${options.budgetTokens} tokens, at most ${options.maxEntries})`, ''];
  matches.forEach((m, i) => {
    // As the brief says it: when <trigger> → <fix>.
    lines.push(`${i + 1}. ${m.kind} ${oneLine(m.path)} (score ${m.score})`, `   When ${oneLine(m.title).replace(/[.:]$/, '')} → ${oneLine(m.text)}`);
    lines.push(`   why: ${oneLine(m.why)}`, '');
  });
  return `${lines.join('\n')}`;
}
