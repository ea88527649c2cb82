import { basename, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CONFIG_PATH, parseConfig } from '../../engine/core/config/parse.js';
import { DEFAULT_CONFIG, type HarnessConfig } from '../../engine/core/config/schema.js';
import { countErrors, formatProblem } from '../../engine/core/spec/problem.js';
import { PLAN_ID, SPEC_ID } from '../../engine/core/spec/schema.js';
import { KNOWLEDGE_ROOT, projectName } from '../../engine/forge/knowledge-draft.js';
import { ReflectorError } from '../../engine/knowledge/lessons/reflector.js';
import type { Extraction } from '../../engine/knowledge/skills/skill-extraction.js';
import { makeSafe, secretValues, type SafetyOptions } from '../../machine/content-safety.js';
import { isDirectory, readTextIfExists } from '../../machine/files.js';
import { configuredReflector } from '../../machine/reflector-agent.js';
import { retrospectLocally, type Retrospective } from '../../machine/skill-retrospective.js';
import { retrospectiveText } from '../../engine/knowledge/skills/skill-audit-text.js';
import { Git, GitError } from '../../machine/git.js';
import { holdoutReport, type HoldoutReport } from '../../engine/knowledge/holdout/comparison.js';
import { holdoutJson, type HoldoutJson } from '../../engine/knowledge/holdout/report-json.js';
import { holdoutText } from '../../engine/knowledge/holdout/report-text.js';
import { DEFAULT_HOLDOUT_SEED } from '../../engine/knowledge/holdout/holdout.js';
import { readHoldoutSignals, retireLocally, type RetiredLocally } from '../../machine/holdout-store.js';
import { EXIT, UsageError, type CliIO } from '../io.js';
import { displayPath, loadSpecDir, specDirOf } from '../spec-input.js';
import { spendJson, spendOf, type Spend } from '../../engine/core/run/spend.js';
import { RunError, RunRepo } from '../../runner/repo.js';
import { readRunState } from '../../runner/run-state.js';
import { OrchestrationStore } from '../../runner/store.js';

export const usage = `Usage: harness retrospective [<spec-dir> | <spec-id>] [--plan ID] [--knowledge DIR] [--dry-run] [--json]

Review a spec's run (or the whole store) for skills. Each candidate (a plan that failed and
was then verified, a fix an agent reported, a lesson with knowledge.skills.lesson_evidence
signals or more) is judged by four gates: discovery depth (found by investigation or trial
and error, not looked up), reusability (applies beyond one context), trigger clarity (an
exact error message or symptom), verification (tested in the run). Any FAIL skips it, with
its reason. A candidate that duplicates a lesson, a skill (active or archived) or a decision
is linked to it instead. With knowledge.reflect.agent set, the reflector agent judges (its
instructions: templates/agents/skill-judge.md, or .github/harness/agents/skill-judge.md);
otherwise harness's rules do.

It then reports the holdout (knowledge.holdout in .github/harness.yml) over the whole store:
the plans run without surfaced knowledge against the others, by first-attempt pass rate,
mean attempts and mean cost, each difference with its 95% interval (Newcombe for the pass
rate, Welch for the means), overall, per spec and per lesson, skill and gene. One surfaced
into 10 plans or more whose plans did no better than the held-out ones is proposed for
retirement: a skill moved to skills-archived/, a gene deprecated, a lesson marked retired,
written into the store for you to review and commit.

A skill needs a repair that recurred in two distinct plans; --plan asks for one from a single
plan's repair (of the spec named) all the same: a person's request stands for the recurrence.

Options:
  --plan ID        only this plan's repair, made a skill though it did not recur (with a spec)
  --knowledge DIR  the knowledge store (default: .harness/knowledge in this repository)
  --dry-run        judge and report; write nothing and run no agent
  --json           print every candidate with each gate's verdict as JSON
  -h, --help       show this help

Extracted skills are written as skills/<name>/SKILL.md in the store, and one extraction line
per candidate goes into trajectory/<day>.jsonl. Review the skills and commit them: a skill
counts once it is merged (on GitHub: its harness/knowledge/skill/<name> PR). A retirement
likewise counts once committed (on GitHub: its pull request merged).

Exit: 0 done, 1 a knowledge file or the config has problems, 2 usage error.
`;

/** The stable `harness retrospective --json` report. */
export interface RetrospectiveJson {
  /** Where the money went in the spec's local runs (engine/core/run/spend.ts), when a spec directory was named: null when no agent reported anything. */
  spend?: unknown;
  candidates: {
    id: string;
    source: string;
    spec?: string;
    plan?: string;
    title: string;
    decision: Extraction['decision'];
    reason: string;
    name: string;
    path?: string;
    duplicate?: string;
    judgedBy: string;
    gates: { gate: string; pass: boolean; reason: string }[];
  }[];
  /** The holdout comparison and the retirements it proposes (docs/cli.md). */
  holdout: HoldoutJson;
}

/** The id of a spec named by its id or its directory, as the other commands take it. */
async function specIdOf(named: string, io: CliIO): Promise<string> {
  if (SPEC_ID.test(named) && !(await isDirectory(resolve(io.cwd, named)))) return named;
  if (!(await isDirectory(resolve(io.cwd, named))))
    throw new UsageError(`${displayPath(named)}: no such directory, and not a spec id (spec ids look like SPC-002)`);
  const loaded = await loadSpecDir(named, io);
  if (!loaded.spec) throw new UsageError(`${displayPath(named)}: cannot read the spec (harness validate ${displayPath(named)})`);
  return loaded.spec.id;
}

/** The repository a directory is in, or undefined. */
export async function gitRoot(dir: string): Promise<string | undefined> {
  try {
    return (await new Git(dir).run(['rev-parse', '--show-toplevel'])).trim();
  } catch (e) {
    if (e instanceof GitError) return undefined;
    throw e;
  }
}

export async function readConfig(root: string, io: CliIO): Promise<HarnessConfig | undefined> {
  const text = await readTextIfExists(join(root, CONFIG_PATH));
  if (text === undefined) return DEFAULT_CONFIG;
  const { config, problems } = parseConfig(text);
  for (const p of problems) io.stderr(`${formatProblem(p)}\n`);
  return countErrors(problems) > 0 ? undefined : config;
}

/** The store and the repository it is in, from --knowledge or the working directory. */
export async function storeOf(io: CliIO, knowledge: string | undefined): Promise<{ store: string; root: string; repoRoot: string }> {
  const repoRoot = (await gitRoot(io.cwd)) ?? io.cwd;
  const store = knowledge !== undefined ? resolve(io.cwd, knowledge) : join(repoRoot, KNOWLEDGE_ROOT);
  if (knowledge !== undefined && !(await isDirectory(store))) throw new UsageError(`--knowledge ${displayPath(knowledge)}: no such directory`);
  const root = knowledge !== undefined ? ((await gitRoot(store)) ?? repoRoot) : repoRoot;
  return { store, root, repoRoot };
}

export async function retrospectiveCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { knowledge: { type: 'string' }, plan: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } },
  });
  if (positionals.length > 1) throw new UsageError(`one spec at most, not "${positionals.join(' ')}"`);
  const spec = positionals[0] === undefined ? undefined : await specIdOf(positionals[0], io);
  if (values.plan !== undefined && spec === undefined)
    throw new UsageError('--plan names a plan of a spec: give the spec too (harness retrospective SPC-001 --plan 01-02)');
  if (values.plan !== undefined && !PLAN_ID.test(values.plan)) throw new UsageError(`--plan ${values.plan}: a plan id looks like 01-02`);
  const { store, root, repoRoot } = await storeOf(io, values.knowledge);
  const config = await readConfig(repoRoot, io);
  if (!config) {
    io.stderr(`harness retrospective: ${CONFIG_PATH} has errors; fix them and run again\n`);
    return EXIT.problems;
  }
  const dryRun = values['dry-run'] === true;
  const safety: SafetyOptions = { roots: [...new Set([root, repoRoot, store, io.cwd])], secrets: secretValues(io.env) };
  let judge;
  try {
    judge = dryRun ? undefined : configuredReflector(config, { cwd: root, env: io.env });
  } catch (e) {
    if (!(e instanceof ReflectorError)) throw e;
    io.stderr(`harness retrospective: ${e.message}\n`);
    return EXIT.problems;
  }
  const result = await retrospectLocally({
    store,
    root,
    config,
    now: new Date(),
    ...(spec ? { spec } : {}),
    ...(values.plan !== undefined ? { requested: values.plan } : {}),
    ...(judge ? { judge } : {}),
    write: !dryRun,
    project: projectName(basename(repoRoot)),
    origin: `local:retrospective:${spec ?? 'all'}`,
    safety,
  });
  for (const u of result.unreadable) io.stderr(`${u.file}:${u.line}: ${u.problem}\n`);
  for (const x of result.extractions)
    if (x.judgeProblem) io.stderr(`harness retrospective: ${x.candidate.id}: ${x.judgeProblem}; harness's rules judged it instead\n`);
  const review = await reviewHoldout(store, config, dryRun, safety);
  const safe = async (t: string) => (await makeSafe(t, safety)).text;
  // A spec directory named: its plans by what they cost, from its local runs' records.
  const spend = positionals[0] === undefined ? undefined : await localSpend(positionals[0], io);
  const findings: Findings = { ...review, result, spend, spec, store, dryRun, safe };
  if (values.json) io.stdout(`${JSON.stringify(await findingsJson(findings), null, 2)}\n`);
  else io.stdout(await findingsText(findings, io));
  for (const u of review.unreadable) io.stderr(`${displayPath(relative(io.cwd, join(store, u)))}: not a signal; the holdout comparison leaves it out\n`);
  return result.unreadable.length > 0 ? EXIT.problems : EXIT.ok;
}

/** The holdout's review of the store. */
interface HoldoutReview {
  /** What the store still offers to retire (one retired already is no proposal). */
  holdout: HoldoutReport;
  retired: RetiredLocally[];
  settings: { fraction: number; seed: string };
  /** Signal files that could not be read. */
  unreadable: string[];
}

/** What the retrospective found, for its report. */
interface Findings extends HoldoutReview {
  result: Retrospective;
  spend: { spec: string; spend: Spend | undefined } | undefined;
  spec: string | undefined;
  store: string;
  dryRun: boolean;
  /** A text made safe to show (content-safety.ts). */
  safe: (text: string) => Promise<string>;
}

/** The holdout: the plans on record in the store's signals, and what did no better than none, retired (written, but in a dry run). */
async function reviewHoldout(store: string, config: HarnessConfig, dryRun: boolean, safety: SafetyOptions): Promise<HoldoutReview> {
  const recorded = await readHoldoutSignals(store);
  const found = holdoutReport(recorded.signals);
  const retired = await retireLocally(store, found.retire, { at: new Date(), write: !dryRun, safety });
  // Proposed: what the store still offers (one retired already is no proposal).
  const holdout = { ...found, retire: retired.map(({ path, kind, reason }) => ({ path, kind, reason })) };
  const settings = { fraction: config.knowledge.holdout, seed: config.knowledge.holdout_seed ?? DEFAULT_HOLDOUT_SEED };
  return { holdout, retired, settings, unreadable: recorded.unreadable };
}

/** The report as --json gives it: each candidate with its decision and gates, the holdout, and the spend. */
async function findingsJson({ result, holdout, retired, settings, spend, safe }: Findings): Promise<RetrospectiveJson> {
  const report: RetrospectiveJson = {
    candidates: [],
    holdout: holdoutJson(holdout, { ...settings, retired }),
    ...(spend === undefined ? {} : { spend: spendJson(spend.spend) }),
  };
  for (const x of result.extractions) {
    report.candidates.push({
      id: x.candidate.id,
      source: x.candidate.source,
      ...(x.candidate.spec ? { spec: x.candidate.spec } : {}),
      ...(x.candidate.plan ? { plan: x.candidate.plan } : {}),
      title: await safe(x.candidate.title),
      decision: x.decision,
      reason: await safe(x.reason),
      name: x.name,
      ...(x.path ? { path: x.path } : {}),
      ...(x.duplicate ? { duplicate: x.duplicate.path } : {}),
      judgedBy: x.judgedBy,
      gates: await Promise.all(x.verdicts.map(async (v) => ({ gate: v.gate, pass: v.pass, reason: await safe(v.reason) }))),
    });
  }
  return report;
}

/** The report for a person: the candidates, the holdout, what was retired, and the costliest plans. */
async function findingsText({ result, holdout, retired, settings, spend, spec, store, dryRun, safe }: Findings, io: CliIO): Promise<string> {
  const where = displayPath(relative(io.cwd, store) || '.');
  const written = retired.filter((r) => r.written).length;
  const retiredLine =
    written > 0
      ? `Retirement written into ${where}: review the change and commit it (${retired
          .filter((r) => r.written)
          .map((r) => r.path)
          .join(', ')}).\n`
      : holdout.retire.length > 0 && dryRun
        ? 'Dry run: no retirement written.\n'
        : '';
  const costliest = spend === undefined ? '' : `\n${costliestText(spend.spec, spend.spend)}`;
  return safe(
    `${retrospectiveText(result.extractions, { store: where, dryRun, ...(spec ? { spec } : {}) })}\n${holdoutText(holdout, settings)}${retiredLine}${costliest}`,
  );
}

/** The costliest plans the retrospective names. */
const COSTLIEST = 5;

/** What a spec's local runs spent (its `.orchestration/` records), named by its directory or its id; undefined where it never ran here. */
async function localSpend(named: string, io: CliIO): Promise<{ spec: string; spend: Spend | undefined } | undefined> {
  const dir = resolve(io.cwd, await specDirOf(named, io).catch((e: unknown) => (e instanceof UsageError ? named : Promise.reject(e))));
  if (!(await isDirectory(dir))) return undefined;
  const loaded = await loadSpecDir(dir, io);
  const repo = loaded.spec ? await RunRepo.open(dir).catch((e: unknown) => (e instanceof RunError ? undefined : Promise.reject(e))) : undefined;
  if (!loaded.spec || !repo) return undefined;
  const state = await readRunState(OrchestrationStore.for(repo.root, loaded.spec.id), loaded.spec);
  return { spec: loaded.spec.id, spend: spendOf(loaded.spec, state.uses) };
}

/** "Costliest plans of SPC-007": the plans that cost the most, with their attempts and engines. */
function costliestText(spec: string, spend: Spend | undefined): string {
  if (!spend) return `Costliest plans of ${spec}: no agent reported what it used in its runs here.\n`;
  const money = (n: number | undefined) => (n === undefined ? 'no cost reported' : `$${n.toFixed(2)}`);
  const lines = spend.plans.slice(0, COSTLIEST).map((p) => {
    const tokens =
      p.inputTokens === undefined && p.outputTokens === undefined
        ? ''
        : `, ${(p.inputTokens ?? 0).toLocaleString('en-US')} tokens in, ${(p.outputTokens ?? 0).toLocaleString('en-US')} out`;
    return `  ${p.plan} (${p.engine}): ${money(p.costUsd)} over ${p.attempts === 1 ? '1 attempt' : `${p.attempts} attempts`}${p.turns === undefined ? '' : `, ${p.turns} turns`}${tokens}`;
  });
  return [`Costliest plans of ${spec} (${money(spend.total.costUsd)} in all, as the agents reported it):`, ...lines, ''].join('\n');
}
