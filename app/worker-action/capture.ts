import type { Plan } from '../engine/core/spec/model.js';
import { projectName } from '../engine/forge/knowledge-draft.js';
import { signalsAppend, signalsBranch, storeRoot } from '../engine/forge/signals-pr.js';
import type { SignalDraft, SurfacedEntry } from '../engine/knowledge/documents/loop.js';
import { trajectoryEvents } from '../engine/knowledge/documents/trajectory.js';
import { capsuleFor } from '../engine/knowledge/genes/capsule-record.js';
import type { LevelResult } from '../engine/core/verify/levels.js';
import { readAttemptHistory } from '../engine/lifecycle/history.js';
import type { AttemptHistory } from '../engine/lifecycle/signals.js';
import { GitHubError } from '../gateway/github-error.js';
import type { GitHubRequest, Repo } from '../gateway/request.js';
import { gateway } from '../gateway/gateway.js';
import { makeSafe, secretValues, type SafetyOptions } from '../machine/content-safety.js';
import { loadTemplate } from '../machine/templates.js';
import type { KnowledgeForge, WorkerRun } from './worker-run.js';

/** What capture needs of a run: a plan's run, or a planning command's, which knows its spec only by id. */
export type CaptureRun = Omit<WorkerRun, 'spec' | 'specPath'> & { spec: { id: string } };

/**
 * The worker's side of capture: a job's signals appended to the spec's signals PR (engine/
 * forge/signals-pr.ts through the gateway's appendKnowledge), in this repository or in the
 * knowledge repository the config names. Never blocking: whatever goes wrong is a warning in
 * the job log and a note in its summary, and the plan's outcome stands.
 */

/** The knowledge forge over the job's client for a repository (its errors name the `permissions:` to grant). */
export function knowledgeForge(request: GitHubRequest, repo: Repo): KnowledgeForge {
  return gateway(request, repo, 'workflow');
}

function parseRepository(full: string): Repo {
  const [owner, repo] = full.split('/') as [string, string];
  return { owner, repo };
}

/** The content-safety pass as the worker runs it: the checkout is the project; the job's token and secret-named variables are secrets. */
export function workerSafety(run: CaptureRun): SafetyOptions {
  const secrets = [...secretValues({ ...process.env, ...run.env }), ...(run.secrets ?? [])];
  return { roots: [run.root], secrets: [...new Set(secrets)].sort((a, b) => b.length - a.length) };
}

/** Where this job's signals come from: the workflow run, which a re-run of the job keeps. */
function origin(run: CaptureRun): string {
  const id = /\/actions\/runs\/(\d+)/.exec(run.runUrl ?? '')?.[1];
  return id !== undefined ? `actions:${id}` : `job:${run.now().toISOString()}`;
}

export interface WorkerCapture {
  /** The plan's last failed attempt, from the store on the signals branch (or the base); never rejects. */
  history(plan: Plan): () => Promise<AttemptHistory | undefined>;
  /** Append signals (and trajectory lines) to the spec's signals PR; never rejects. */
  file(what: string, drafts: readonly SignalDraft[], knowledge?: CapturedKnowledge): Promise<void>;
}

/** What a plan's attempt was given from the store and came to: its trajectory lines, and its capsule where it was verified. */
interface CapturedKnowledge {
  plan: Plan;
  entries: readonly SurfacedEntry[];
  verified: boolean;
  attempt?: number;
  results?: readonly LevelResult[];
  undeclared?: readonly string[];
}

/** Capture for this run, or undefined when the config turns it off or the job has nowhere to write. */
export function workerCapture(run: CaptureRun): WorkerCapture | undefined {
  const settings = run.config.knowledge;
  if (!run.knowledge || !settings.capture.enabled) return undefined;
  const shared = settings.repository;
  const store = run.knowledge(shared === undefined ? undefined : parseRepository(shared));
  // Asked only when needed, and only ever inside a try: a refused request must not go unobserved.
  let asked: Promise<string> | undefined;
  const scope: CaptureScope = {
    run,
    store,
    project: projectName(run.forge.repo.repo),
    shared,
    root: storeRoot(shared),
    where: shared ?? 'this repository',
    base: () => (asked ??= shared === undefined ? Promise.resolve(run.base) : store.repository().then((r) => r.defaultBranch)),
    refused: (e) => refusal(shared, e),
    warn: (text) => {
      run.log.warning(text);
      run.notes.push(text);
    },
  };
  return {
    history: (plan) => () => readHistory(scope, plan),
    file: (what, drafts, knowledge) => fileSignals(scope, what, drafts, knowledge),
  };
}

/** Where and for whom this run's capture reads and writes. */
interface CaptureScope {
  run: CaptureRun;
  store: KnowledgeForge;
  project: string;
  /** The knowledge repository the config names; undefined for this repository. */
  shared: string | undefined;
  /** The store's folder in its repository. */
  root: string;
  /** The store's repository, as messages name it. */
  where: string;
  /** The branch a signals branch starts from. */
  base(): Promise<string>;
  /** What a failed request says, with the token to give where the knowledge repository is another. */
  refused(e: unknown): string;
  /** A warning in the job log, and a note in its summary. */
  warn(text: string): void;
}

function refusal(shared: string | undefined, e: unknown): string {
  if (shared !== undefined && e instanceof GitHubError && (e.kind === 'forbidden' || e.kind === 'not-found' || e.kind === 'unauthorized')) {
    return `${e.message}. The knowledge repository ${shared} is another repository, which a job's GITHUB_TOKEN cannot write: give the worker a token that can (a GitHub App installation token or a fine-grained token with contents and pull-requests write on ${shared}) as its \`token\` input`;
  }
  return (e as Error).message;
}

/** The plan's last failed attempt, from the store on the signals branch (or the base); undefined, with a warning, where it cannot be read. */
async function readHistory({ run, store, project, shared, root, where, base, refused }: CaptureScope, plan: Plan): Promise<AttemptHistory | undefined> {
  try {
    const branch = signalsBranch(run.spec.id, project, shared !== undefined);
    const ref = (await store.branchSha(branch)) ?? (await base());
    const read = (path: string) => store.fileText(root === '' ? path : `${root}/${path}`, ref);
    // A re-run of this workflow run is this attempt again: its own signals are no earlier attempt.
    return await readAttemptHistory(read, { project, spec: run.spec.id, plan: plan.id }, origin(run));
  } catch (e) {
    run.log.warning(`could not read ${plan.id}'s earlier attempts from ${where}: ${refused(e)}`);
    return undefined;
  }
}

/** Signals (and trajectory lines, and a verified plan's capsule) appended to the spec's signals PR; what fails is a warning. */
async function fileSignals(scope: CaptureScope, what: string, drafts: readonly SignalDraft[], knowledge: CapturedKnowledge | undefined): Promise<void> {
  const { run, store, project, shared, where, base, refused, warn } = scope;
  const settings = run.config.knowledge;
  const at = run.now();
  const trajectory = knowledge
    ? trajectoryEvents({
        entries: knowledge.entries,
        project,
        spec: run.spec.id,
        plan: knowledge.plan.id,
        ...(knowledge.attempt === undefined ? {} : { attempt: knowledge.attempt }),
        verified: knowledge.verified,
        at,
        origin: origin(run),
      })
    : [];
  if (drafts.length === 0 && trajectory.length === 0) return;
  try {
    const capsule = await capsuleOf(scope, knowledge, at);
    const safety = workerSafety(run);
    const { append, decided } = await signalsAppend({
      spec: run.spec.id,
      project,
      origin: origin(run),
      at,
      drafts,
      trajectory: capsule ? [...trajectory, capsule.event] : trajectory,
      ...(capsule ? { documents: [{ path: capsule.path, text: capsule.text, index: capsule.index }] } : {}),
      template: await loadTemplate('signal.md'),
      maxPerPhase: settings.capture.max_per_phase,
      base: await base(),
      ...(shared === undefined ? {} : { knowledgeRepository: shared }),
      what,
      safe: async (text) => (await makeSafe(text, safety)).text,
    });
    const done = await store.appendKnowledge(append);
    sayFiled(scope, append.branch, done, decided());
  } catch (e) {
    warn(`signals of ${what} were not filed on ${where}: ${refused(e)}`);
  }
}

/** A plan verified with genes in its brief records its capsule with its signals (capsule-record.ts). */
async function capsuleOf({ run, project }: CaptureScope, knowledge: CapturedKnowledge | undefined, at: Date) {
  return knowledge?.verified === true
    ? capsuleFor({
        spec: run.spec.id,
        plan: knowledge.plan,
        attempt: knowledge.attempt ?? 1,
        entries: knowledge.entries,
        results: knowledge.results ?? [],
        changedFiles: [...knowledge.plan.filesModified, ...(knowledge.undeclared ?? [])],
        project,
        origin: origin(run),
        at,
        template: await loadTemplate('capsule.md'),
      })
    : undefined;
}

/** What was filed on the signals PR, in the job log; signals the phase's cap left out, as a warning. */
function sayFiled(
  { run, where, warn }: CaptureScope,
  branch: string,
  done: Awaited<ReturnType<KnowledgeForge['appendKnowledge']>>,
  result: ReturnType<Awaited<ReturnType<typeof signalsAppend>>['decided']>,
): void {
  const settings = run.config.knowledge;
  const filed = result?.filed.map((e) => e.type) ?? [];
  const capped = result?.skipped.filter((s) => s.reason === 'cap').length ?? 0;
  const again = result?.skipped.filter((s) => s.reason === 'duplicate').length ?? 0;
  if (done.pr) {
    run.log.info(
      `signals: ${filed.length > 0 ? filed.join(', ') : 'nothing new'} on ${where}'s ${branch} (PR #${done.pr.number}${done.pr.state === 'opened' ? ', opened' : ''})${again > 0 ? `; ${again} there already` : ''}${done.tries > 1 ? `; the branch moved meanwhile, added on try ${done.tries}` : ''}`,
    );
  }
  if (capped > 0)
    warn(
      `${capped} signal${capped === 1 ? ' was' : 's were'} not filed: the phase has ${settings.capture.max_per_phase} on the open signals PR already (knowledge.capture.max_per_phase)`,
    );
}
