import { createOnce, NO_RETRY } from './create-once.js';
import { GitHubError } from './github-error.js';
import type { GatewayRequest, Repo } from './request.js';
import { HarnessError } from '../engine/core/error.js';

/** An annotation's `message` and `raw_details`: "The maximum size is 64 KB" (REST: create a check run). */
export const ANNOTATION_MESSAGE_MAX_BYTES = 64 * 1024;
/** An annotation's `title`: "The maximum size is 255 characters". */
export const ANNOTATION_TITLE_MAX = 255;

/**
 * A check run's buttons (`actions`), as GitHub documents them for create and update: "A
 * maximum of three actions are accepted"; `label` "The maximum size is 20 characters",
 * `description` "The maximum size is 40 characters", `identifier` "The maximum size is 20
 * characters". GitHub refuses an oversize one without naming the field (some versions answer
 * 5xx), so it is caught here, with the field named.
 */
export const CHECK_RUN_ACTIONS_MAX = 3;
export const CHECK_RUN_ACTION_LABEL_MAX = 20;
export const CHECK_RUN_ACTION_DESCRIPTION_MAX = 40;
export const CHECK_RUN_ACTION_IDENTIFIER_MAX = 20;

export interface CheckRunAction {
  label: string;
  description: string;
  identifier: string;
}

export class CheckActionError extends HarnessError {}

/** Throws CheckActionError when the buttons break GitHub's limits; returns them otherwise. */
export function checkActions<T extends CheckRunAction>(actions: readonly T[]): readonly T[] {
  if (actions.length > CHECK_RUN_ACTIONS_MAX)
    throw new CheckActionError(`${actions.length} check run actions: GitHub accepts at most ${CHECK_RUN_ACTIONS_MAX}`);
  for (const a of actions) {
    const over = [
      [a.label, 'label', CHECK_RUN_ACTION_LABEL_MAX],
      [a.description, 'description', CHECK_RUN_ACTION_DESCRIPTION_MAX],
      [a.identifier, 'identifier', CHECK_RUN_ACTION_IDENTIFIER_MAX],
    ] as const;
    for (const [value, field, max] of over) {
      if (value.length > max) throw new CheckActionError(`check run action ${field} "${value}" has ${value.length} characters: GitHub allows ${max}`);
    }
  }
  return actions;
}

export interface CheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
}

export interface CheckOutput {
  title: string;
  summary: string;
  text?: string;
  /** At most CHECK_RUN_ANNOTATIONS_PER_REQUEST per request; each update appends. */
  annotations?: CheckAnnotation[];
}

export type CheckConclusion = 'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required';

export interface CheckRun {
  id: number;
  name: string;
  headSha: string;
  externalId: string | null;
  status: string;
  conclusion: string | null;
  output: { title: string | null; summary: string | null; annotationsCount: number };
  /** Where its "Details" link goes: the worker run's page when the dispatch named the run. */
  detailsUrl?: string;
  /** When it completed (ISO 8601), once it has. */
  completedAt?: string;
  /** When it started (ISO 8601): for the App's, when the worker was dispatched. */
  startedAt?: string;
  /** The slug of the GitHub App that wrote it (`github-actions` for a job's GITHUB_TOKEN), when GitHub says. */
  app?: string;
}

type RawCheckRun = {
  id: number;
  name: string;
  head_sha: string;
  external_id: string | null;
  status: string;
  conclusion: string | null;
  output: { title: string | null; summary: string | null; annotations_count: number };
  details_url?: string | null;
  completed_at?: string | null;
  started_at?: string | null;
  app?: { slug?: string | null } | null;
};

function toCheckRun(r: RawCheckRun): CheckRun {
  return {
    id: r.id,
    name: r.name,
    headSha: r.head_sha,
    externalId: r.external_id,
    status: r.status,
    conclusion: r.conclusion,
    output: { title: r.output.title, summary: r.output.summary, annotationsCount: r.output.annotations_count },
    ...(r.details_url ? { detailsUrl: r.details_url } : {}),
    ...(r.completed_at ? { completedAt: r.completed_at } : {}),
    ...(r.started_at ? { startedAt: r.started_at } : {}),
    ...(r.app?.slug ? { app: r.app.slug } : {}),
  };
}

/**
 * GET /repos/{owner}/{repo}/commits/{ref}/check-runs?check_name=: the check runs of that
 * name on a commit, newest first (GitHub's default `filter=latest` keeps the most recent).
 */
export async function listCheckRuns(request: GatewayRequest, repo: Repo, ref: string, name: string): Promise<CheckRun[]> {
  const { data } = await request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { ...repo, ref, check_name: name });
  return data.check_runs.map((r) => toCheckRun(r as RawCheckRun)).sort((a, b) => b.id - a.id);
}

/**
 * The check runs named `name` on a branch's head, in one request that also says where the head
 * is (each run's headSha): GET …/commits/heads/<branch>/check-runs (the docs' "branch name
 * (heads/BRANCH_NAME)"). Undefined when the branch does not exist: GitHub answers 422 "No
 * commit found for SHA" (404 taken the same way).
 */
export async function listBranchCheckRuns(request: GatewayRequest, repo: Repo, branch: string, name: string): Promise<CheckRun[] | undefined> {
  try {
    return await listCheckRuns(request, repo, `heads/${branch}`, name);
  } catch (e) {
    if (e instanceof GitHubError && (e.status === 422 || e.status === 404)) return undefined;
    throw e;
  }
}

export interface NewCheckRun {
  name: string;
  head_sha: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion?: CheckConclusion;
  external_id?: string;
  /** Where the check's "Details" link goes; the App's homepage when absent. */
  details_url?: string;
  output?: CheckOutput;
  /** Buttons; see checkActions for GitHub's limits. */
  actions?: CheckRunAction[];
}

/**
 * POST /repos/{owner}/{repo}/check-runs (a GitHub App only: `GITHUB_TOKEN` runs belong to
 * Actions), never retried blind (create-once.ts): a run whose answer was lost is looked for on
 * its commit by name (findCreatedCheckRun) and made again only when it is not there.
 */
export async function createCheckRun(request: GatewayRequest, repo: Repo, run: NewCheckRun): Promise<CheckRun> {
  if (run.actions) checkActions(run.actions);
  return createOnce(
    async () => toCheckRun((await request('POST /repos/{owner}/{repo}/check-runs', { ...repo, ...run, ...NO_RETRY })).data as RawCheckRun),
    () => findCreatedCheckRun(request, repo, run),
  );
}

/**
 * The check run a creation whose answer was lost made, if GitHub made it: the newest of that
 * name on the commit (one GET) with the same external_id, status and conclusion. A finished run
 * of an earlier attempt is not the one asked for while the new one is still going; two alike,
 * made moments apart for the same thing, are one.
 */
async function findCreatedCheckRun(request: GatewayRequest, repo: Repo, run: NewCheckRun): Promise<CheckRun | undefined> {
  const [newest] = await listCheckRuns(request, repo, run.head_sha, run.name);
  if (!newest) return undefined;
  const same = (newest.externalId ?? null) === (run.external_id ?? null) && newest.status === run.status && (newest.conclusion ?? undefined) === run.conclusion;
  return same ? newest : undefined;
}

export interface CheckRunUpdate {
  status?: 'in_progress' | 'completed';
  conclusion?: CheckConclusion;
  external_id?: string;
  /** Replaces the buttons; an empty list removes them. */
  actions?: CheckRunAction[];
  /** `title` and `summary` are required whenever `output` is sent. */
  output?: CheckOutput;
}

/** PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}; annotations are appended to those already there. */
export async function updateCheckRun(request: GatewayRequest, repo: Repo, id: number, update: CheckRunUpdate): Promise<void> {
  if (update.actions) checkActions(update.actions);
  await request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', { ...repo, check_run_id: id, ...update });
}
