import { join } from 'node:path';
import { CONFIG_PATH, parseConfig } from '../engine/core/config/parse.js';
import { DEFAULT_CONFIG, type HarnessConfig } from '../engine/core/config/schema.js';
import { parseFrontmatter } from '../engine/core/spec/frontmatter.js';
import { loadSpec } from '../engine/core/spec/load.js';
import type { Spec } from '../engine/core/spec/model.js';
import { PLAN_READING } from '../engine/importers/dialects.js';
import { listIfExists, readTextIfExists } from '../machine/files.js';
import { readSpecFiles } from '../machine/spec-files.js';
import { workerSafety } from './capture.js';
import { secretValues } from '../machine/content-safety.js';
import { runPhaseWorker } from './phase-worker.js';
import { safeForge, safeOutcome } from './safe-forge.js';
import { runPlanWorker } from './plan-worker.js';
import { runSpikeWorker } from './spike-worker.js';
import { runPlanningWorker } from './planning-worker.js';
import { runResearchAheadWorker } from './planning-research.js';
import { jobSummary } from './reports.js';
import { heardLog } from './job-log.js';
import { Heartbeat } from '../engine/lifecycle/heartbeat.js';
import { WorkerError, type WorkerDeps, type WorkerOutcome, type WorkerRun } from './worker-run.js';
import { containmentNotice } from '../machine/containment.js';

/** Problems listed in a failure before "and N more". */
const PROBLEMS_SHOWN = 10;

/**
 * The worker the app dispatches: read the config and the spec from the checkout, then do the
 * plan or verify the phase. What a person must fix (no such spec, plan or issue) ends as a
 * failed outcome with its reason; anything else is thrown for the entry point to report.
 */
export async function runWorker(given: WorkerDeps): Promise<WorkerOutcome> {
  // Every line of the job's log is heard by the heartbeat, whose own lines go to the same log.
  const heartbeat = given.ticker ? new Heartbeat((line) => log.info(line), given.ticker) : undefined;
  const deps: WorkerDeps = heartbeat ? { ...given, log: heardLog(given.log, heartbeat) } : given;
  const { log } = deps;
  try {
    return await work(deps, heartbeat);
  } finally {
    heartbeat?.stop();
  }
}

/** The worker's job, its log heard by the heartbeat (when it has one). */
async function work(deps: WorkerDeps, heartbeat: Heartbeat | undefined): Promise<WorkerOutcome> {
  const { inputs, log } = deps;
  const t = inputs.target;
  try {
    const { config, problems } = await readWorkerConfig(deps.root);
    for (const p of problems) log.warning(`${p} (the defaults are used instead)`);
    // Once a job: where agents and checks cannot be put in containers on this runner, what that leaves.
    const notice = containmentNotice();
    if (notice !== undefined) log.warning(notice);
    if (t.kind === 'spike') {
      const notes = problems.map((p) => `config problem, defaults used: ${p}`);
      return await runSpikeWorker({ ...deps, config, notes, env: deps.env ?? {}, now: deps.now ?? (() => new Date()) }, t.slug);
    }
    const specsRoot = inputs.specsRoot ?? config.specs_root;
    if (t.kind === 'planning' || t.kind === 'research') {
      const notes = problems.map((p) => `config problem, defaults used: ${p}`);
      const planning = {
        ...deps,
        config,
        notes,
        env: deps.env ?? {},
        now: deps.now ?? (() => new Date()),
        findSpec: () => findSpecDir(deps.root, specsRoot, inputs.spec),
      };
      // The same content-safety pass as a plan's: the checkout is the project, the job's secrets are taken out.
      const safety = { roots: [deps.root], secrets: [...secretValues({ ...process.env, ...planning.env }), ...(deps.secrets ?? [])] };
      return await safeOutcome(t.kind === 'planning' ? await runPlanningWorker(planning, t) : await runResearchAheadWorker(planning, t), safety);
    }
    const specPath = await findSpecDir(deps.root, specsRoot, inputs.spec);
    const spec = await loadValidSpec(deps.root, specPath, inputs.spec);
    const run: WorkerRun = {
      ...deps,
      config,
      notes: problems.map((p) => `config problem, defaults used: ${p}`),
      spec,
      specPath,
      env: deps.env ?? {},
      now: deps.now ?? (() => new Date()),
      ...(heartbeat ? { heartbeat } : {}),
    };
    // Whatever the agent printed may reach a comment, the PR and the summary: none of them may carry a secret.
    const safety = workerSafety(run);
    run.forge = safeForge(run.forge, safety);
    return await safeOutcome(t.kind === 'plan' ? await runPlanWorker(run, t.plan) : await runPhaseWorker(run, t.phase), safety);
  } catch (e) {
    if (!(e instanceof WorkerError)) throw e;
    return { result: 'failed', failure: e.message, summary: jobSummary({ heading: `${inputs.spec} / ${targetName(t)}`, status: 'failed', detail: e.message }) };
  }
}

/** The job's target as a failure's heading names it. */
function targetName(t: WorkerDeps['inputs']['target']): string {
  return t.kind === 'plan'
    ? t.plan
    : t.kind === 'phase'
      ? `phase-${t.phase}`
      : t.kind === 'spike'
        ? `spike/${t.slug}`
        : t.kind === 'research'
          ? `research-${t.phase}`
          : `planning/${t.pull}/${t.comment}`;
}

/** The spec at `specPath` in the checkout; one that does not validate is a failure naming its first errors. */
async function loadValidSpec(root: string, specPath: string, specId: string): Promise<Spec> {
  const loaded = loadSpec(await readSpecFiles(join(root, specPath)), PLAN_READING);
  if (!loaded.spec || !loaded.valid) {
    const errors = loaded.problems.filter((p) => p.severity === 'error');
    const shown = errors.slice(0, PROBLEMS_SHOWN).map((p) => `${specPath}/${p.file}:${p.line}: ${p.message}`);
    if (errors.length > PROBLEMS_SHOWN) shown.push(`… and ${errors.length - PROBLEMS_SHOWN} more`);
    throw new WorkerError(`spec ${specId} does not validate (run harness validate ${specPath}): ${shown.join('; ')}`);
  }
  return loaded.spec;
}

/**
 * `.github/harness.yml` as the checkout has it (the runner reads files, not `context.config`),
 * with its problems as `file:line: message`; the defaults stand in for a broken file, as in the app.
 */
async function readWorkerConfig(root: string): Promise<{ config: HarnessConfig; problems: string[] }> {
  const text = await readTextIfExists(join(root, CONFIG_PATH));
  if (text === undefined) return { config: DEFAULT_CONFIG, problems: [] };
  const { config, problems } = parseConfig(text);
  return { config: config ?? DEFAULT_CONFIG, problems: problems.map((p) => `${p.file}:${p.line}: ${p.message}`) };
}

/**
 * The spec directory under specs_root whose SPEC.md names the spec: the inputs carry the spec
 * id, and the directory name ("SPC-002-notifications") is the author's to choose.
 */
export async function findSpecDir(root: string, specsRoot: string, spec: string): Promise<string> {
  const base = join(root, specsRoot);
  const entries = await listIfExists(base);
  if (!entries) throw new WorkerError(`no specs root ${specsRoot} in the checkout (specs_root in .github/harness.yml, or the action's specs-root input)`);
  const found: string[] = [];
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const text = await readTextIfExists(join(base, entry.name, 'SPEC.md'));
    if (text === undefined) continue;
    const fm = parseFrontmatter('SPEC.md', text);
    if (fm.ok && fm.frontmatter.data.id === spec) found.push(entry.name);
  }
  if (found.length === 0) throw new WorkerError(`no spec ${spec} under ${specsRoot}: no SPEC.md there has id: ${spec}`);
  if (found.length > 1) throw new WorkerError(`spec ${spec} is in more than one directory under ${specsRoot}: ${found.join(', ')}`);
  return `${specsRoot.replace(/\/+$/, '')}/${found[0]}`;
}
