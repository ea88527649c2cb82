import type { Context } from 'probot';
import type { HarnessConfig } from '../../engine/core/config/schema.js';
import type { PlanIssueView } from '../../engine/forge/plan-issue-view.js';
import { specIdFromDir } from '../../engine/importers/gsd/spec-id.js';
import type { Gateway } from '../../gateway/gateway.js';
import { appGateway } from '../app-gateway.js';
import { loadConfig } from '../config.js';
import type { IssueRecord } from '../../gateway/issues.js';

/** Each plan's issue of a spec as read, and the commands' view of them. */
export interface PlanIssues {
  views: PlanIssueView[];
  records: IssueRecord[];
}

/** Where a command came from, which decides its spec and where the answer goes. */
export type Place =
  /** A comment on an issue; `plan` when the issue is a plan issue. */
  | { kind: 'issue'; number: number; plan?: PlanIssueView }
  /** A comment on a pull request (GitHub sends those as issue comments too). */
  | { kind: 'pull'; number: number }
  /** A button on a `harness / plan <id>` check run; `plan` once its issue is found, with the list it came from. */
  | { kind: 'check'; checkRunId: number; spec: string; plan?: PlanIssueView; issues?: PlanIssues; detailsUrl?: string };

export interface PullInfo {
  number: number;
  baseRef: string;
  /** The head branch lives in another repository (a fork), or in one that was deleted. */
  fromFork: boolean;
}

/**
 * One command being handled: who asked, where, and the repository's gateway. Config and the
 * pull request are read once, and only by the commands that need them.
 */
export interface Invocation {
  github: Gateway;
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
  const payload = context.payload as { repository: { default_branch: string } };
  const github = appGateway(context);
  return {
    github,
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
      const pull = await github.pullRequest(place.number);
      return { number: pull.number, baseRef: pull.baseRef, fromFork: pull.headRepo === null || pull.headRepo !== pull.baseRepo };
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

/** The sticky status comment's first line, written by the spec PR sync (docs/github-flow.md, 1). */
const STATUS_MARKER = /^<!-- harness:status (\S+) -->/;

/**
 * The specs a pull request changes. The sync keeps one sticky status comment per spec on a
 * spec PR, starting with `<!-- harness:status <spec> -->`; only the App's own comments count, so
 * that a person or another bot typing the marker changes nothing. When there is none (the PR was never
 * synced), the PR's files are listed once and each directory under `specs_root` named
 * `<ID>-…` gives its spec id.
 */
async function specsOfPull(inv: Invocation, number: number): Promise<string[]> {
  const marked = (await inv.github.comments(number)).filter((c) => c.authorType === 'Bot' && STATUS_MARKER.test(c.body));
  const self = marked.length > 0 ? await inv.github.selfLogin() : undefined;
  const sticky = marked
    .filter((c) => c.author === self)
    .map((c) => STATUS_MARKER.exec(c.body)?.[1])
    .filter((s): s is string => s !== undefined);
  if (sticky.length > 0) return [...new Set(sticky)].sort();

  const root = (await inv.config()).specs_root.replace(/\/+$/, '');
  const specs = new Set<string>();
  for (const file of await inv.github.pullRequestFiles(number)) {
    if (!file.startsWith(`${root}/`)) continue;
    const id = specIdFromDir(file.slice(root.length + 1).split('/')[0]!);
    if (id !== undefined) specs.add(id);
  }
  return [...specs].sort();
}

/** The specs the place a command was written in is about: none on an ordinary issue. */
export async function specsHere(inv: Invocation): Promise<string[]> {
  switch (inv.place.kind) {
    case 'issue':
      return inv.place.plan ? [inv.place.plan.spec] : [];
    case 'pull':
      return specsOfPull(inv, inv.place.number);
    case 'check':
      return [inv.place.spec];
  }
}

export type SpecChoice = { ok: true; spec: string } | { ok: false; message: string };

/**
 * The one spec a command acts on: the one it names (`SPC-002/03-02`), else the plan issue's,
 * else the spec PR's when it changes exactly one. Otherwise the answer asks for the name,
 * with the command written the way that works (`example` shows where the spec goes).
 */
export async function resolveSpec(inv: Invocation, named: string | undefined, example: (spec: string) => string): Promise<SpecChoice> {
  if (named !== undefined) return { ok: true, spec: named };
  const specs = await specsHere(inv);
  if (specs.length === 1) return { ok: true, spec: specs[0]! };
  if (specs.length > 1) {
    return {
      ok: false,
      message: `this pull request changes ${specs.length} specs (${specs.join(', ')}); name the one you mean, as in \`${example(specs[0]!)}\``,
    };
  }
  const where = inv.place.kind === 'pull' ? 'this pull request changes no spec' : 'this issue is not a plan issue';
  return { ok: false, message: `${where}, so name the spec, as in \`${example('SPC-001')}\`` };
}
