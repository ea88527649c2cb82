import type { Context } from 'probot';
import type { HarnessConfig } from '../../engine/core/config/schema.js';
import type { PlanIssueView } from '../../engine/forge/plan-issue-view.js';
import type { PlanIssues } from './plan-issues.js';
import { loadConfig } from '../config.js';

export type Octokit = Context['octokit'];
export interface Repo {
  owner: string;
  repo: string;
}

/** Where a command came from, which decides its spec and where the answer goes. */
export type Place =
  /** A comment on an issue; `plan` when the issue is a plan issue. */
  | { kind: 'issue'; number: number; plan?: PlanIssueView }
  /** A comment on a pull request (GitHub sends those as issue comments too). */
  | { kind: 'pull'; number: number }
  /** A button on a `harness / plan <id>` check run; `plan` once its issue is found, with the list it came from. */
  | { kind: 'check'; checkRunId: number; spec: string; plan?: PlanIssueView; issues?: PlanIssues };

export interface PullInfo {
  number: number;
  baseRef: string;
  /** The head branch lives in another repository (a fork), or in one that was deleted. */
  fromFork: boolean;
}

/**
 * One command being handled: who asked, where, and the repository's client. Config and the
 * pull request are read once, and only by the commands that need them.
 */
export interface Invocation {
  octokit: Octokit;
  repo: Repo;
  log: Context['log'];
  actor: string;
  place: Place;
  defaultBranch: string;
  now: () => Date;
  config: () => Promise<HarnessConfig>;
  /** The pull request the command was written on; undefined elsewhere. */
  pull: () => Promise<PullInfo | undefined>;
  /** The context itself, for the parts of the app (the scheduling round) that take one. */
  context: Context;
}

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= load());
}

export function invocation(context: Context, actor: string, place: Place): Invocation {
  const payload = context.payload as { repository: { owner: { login: string }; name: string; default_branch: string } };
  const repo = { owner: payload.repository.owner.login, repo: payload.repository.name };
  return {
    octokit: context.octokit,
    repo,
    log: context.log,
    actor,
    place,
    defaultBranch: payload.repository.default_branch,
    now: () => new Date(),
    context,
    config: once(async () => {
      const { config, problems } = await loadConfig(context);
      for (const p of problems) context.log.warn(`${p.file}: ${p.message}`);
      return config;
    }),
    pull: once(async () => {
      if (place.kind !== 'pull') return undefined;
      const { data } = await context.octokit.rest.pulls.get({ ...repo, pull_number: place.number });
      const base = data.base.repo.full_name;
      return { number: data.number, baseRef: data.base.ref, fromFork: data.head.repo === null || data.head.repo.full_name !== base };
    }),
  };
}

/** The `base` a scheduling round should take: a spec pull request's base; else the round's own default. */
export async function roundBase(inv: Invocation): Promise<{ base?: string }> {
  const pull = await inv.pull();
  return pull ? { base: pull.baseRef } : {};
}

/**
 * The branch the worker workflow is dispatched on and plan branches start from: a spec pull
 * request's base, else the repository's default branch.
 */
export async function baseBranch(inv: Invocation): Promise<string> {
  return (await inv.pull())?.baseRef ?? inv.defaultBranch;
}
