import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { Plan } from '../engine/core/spec/model.js';
import { KNOWLEDGE_ROOT } from '../engine/forge/knowledge-draft.js';
import type { SurfacedEntry } from '../engine/knowledge/documents/loop.js';
import { appendTrajectory, trajectoryEvents, trajectoryPath } from '../engine/knowledge/documents/trajectory.js';
import { Git, whenGitFails } from '../machine/git.js';
import { localProject } from './project.js';
import type { HarnessConfig } from '../engine/core/config/schema.js';
import type { Progress } from '../engine/lifecycle/ports.js';
import { planningAgentName } from '../engine/planning/planning-agent.js';
import type { PlanningCommand } from '../engine/planning/planning-command.js';
import { discussPaths } from '../engine/planning/planning-steps.js';
import { systemClock } from '../machine/clock.js';
import { readTextIfExists } from '../machine/files.js';
import { runPlanningHere, type PlanningOutcome } from '../agents/planning-here.js';
import type { AgentsConfig } from '../agents/registry.js';
import { RunError, type RunRepo } from './repo.js';

export interface LocalPlanningOptions {
  /** The spec directory, absolute or relative to the repository's root. */
  specDir: string;
  command: PlanningCommand;
  /** `--agent`. */
  agent?: string;
  config: HarnessConfig;
  agents: AgentsConfig;
  /** Added to the environment of the agent and of git (an identity where none is configured). */
  env: Record<string, string>;
  progress: Progress;
  signal?: AbortSignal;
  now?: () => Date;
}

export interface LocalPlanning {
  outcome: PlanningOutcome;
  /** The spec directory, relative to the repository's root. */
  specDir: string;
  agent: string;
  /** The branch the commit went on (undefined on a detached HEAD). */
  branch?: string;
}

/**
 * `harness plan-phase <spec-dir> 03` and the other planning commands on this machine: the same
 * agents, prompts and checks as on the spec PR (agents/planning-here.ts). The agent works in a
 * throwaway worktree at HEAD, so nothing the person has checked out is touched while it runs,
 * and a refused try is thrown away without touching their files; what passes is one commit,
 * brought onto the current branch by a fast-forward, as `harness run` brings its documents.
 * The spec is read as committed: uncommitted changes in the spec directory are refused rather
 * than silently left out. discuss-phase reads the answers from
 * planning/discuss/phase-NN-answers.md in the checkout, where the person writes them.
 */
export async function runLocalPlanning(repo: RunRepo, options: LocalPlanningOptions): Promise<LocalPlanning> {
  const specDir = relative(repo.root, resolve(repo.root, options.specDir)).split('\\').join('/') || '.';
  if (specDir.startsWith('..')) throw new RunError(`${options.specDir} is outside the repository at ${repo.root}`);
  const git = repo.git();
  const answersPath = options.command.name === 'discuss-phase' ? join(specDir, discussPaths(options.command.phase).answers) : undefined;
  await refuseUncommitted(git, specDir, answersPath);
  const answers = answersPath === undefined ? undefined : await readTextIfExists(join(repo.root, answersPath));
  const agent = planningAgentName({ override: options.agent, planning: options.config.planning?.agent, configured: options.config.agent });
  const head = await repo.headCommit(`harness ${options.command.name}`);
  // Exit 1: HEAD is detached, on no branch.
  const branch = (await git.run(['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(whenGitFails('', 1))).trim() || undefined;

  const now = options.now ?? (() => new Date());
  const home = join(repo.stateDir, 'planning', `${options.command.name}-${now().getTime()}`);
  const worktree = join(home, 'worktree');
  await mkdir(home, { recursive: true });
  await git.run(['worktree', 'add', '--quiet', '--detach', worktree, head]);
  const planning: Planning = { repo, git, options, specDir, agent, branch, answersPath, answers, home, worktree, now };
  try {
    const outcome = await planInWorktree(planning);
    return { outcome: outcome.kind === 'committed' ? await bringIn(planning, outcome) : outcome, specDir, agent, ...(branch ? { branch } : {}) };
  } finally {
    // Not a worktree (planning stopped before adding it): what is there goes below.
    await git.run(['worktree', 'remove', '--force', worktree]).catch(whenGitFails(undefined));
    await rm(worktree, { recursive: true, force: true });
  }
}

/** One local planning command as its steps share it: where the agent works, and the answers the person wrote (discuss-phase). */
interface Planning {
  repo: RunRepo;
  git: Git;
  options: LocalPlanningOptions;
  /** The spec directory, relative to the repository's root. */
  specDir: string;
  agent: string;
  /** The branch checked out (none on a detached HEAD). */
  branch: string | undefined;
  /** discuss-phase's answers file, relative to the repository's root. */
  answersPath: string | undefined;
  answers: string | undefined;
  /** The command's own directory in the state directory: its worktree and its logs. */
  home: string;
  worktree: string;
  now: () => Date;
}

/** The spec is read as committed: changes not committed in its directory (but discuss-phase's answers) are refused. */
async function refuseUncommitted(git: Git, specDir: string, answersPath: string | undefined): Promise<void> {
  const dirty = (await git.run(['status', '--porcelain', '--untracked-files=all', '--', specDir]))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.slice(3))
    .filter((p) => p !== answersPath);
  if (dirty.length > 0) {
    throw new RunError(
      `${specDir} has changes that are not committed (${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ', …' : ''}): planning reads the spec as committed, so commit them first`,
    );
  }
}

/** The command run by its agent in the throwaway worktree; a commit that used surfaced knowledge records it (recordTrajectory). */
async function planInWorktree({ repo, options, specDir, agent, answers, home, worktree, now }: Planning): Promise<PlanningOutcome> {
  const outcome = await runPlanningHere({
    root: worktree,
    specDir,
    command: options.command,
    agent,
    agents: options.agents,
    env: options.env,
    logDir: join(home, 'logs'),
    progress: options.progress,
    clock: systemClock(now),
    roots: [repo.root],
    surface: { budgetTokens: options.config.knowledge.surface.budget_tokens, maxEntries: options.config.knowledge.surface.max_entries },
    ...(answers !== undefined ? { answers } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (outcome.kind === 'committed' && outcome.brief && outcome.surfaced.length > 0) {
    return {
      ...outcome,
      sha: await recordTrajectory(repo, worktree, options.env, outcome.spec ?? outcome.brief.title, outcome.brief, outcome.surfaced, now()),
    };
  }
  return outcome;
}

/**
 * The planning commit brought onto the current branch by a fast-forward, the checkout's copy of
 * the answers giving way to the committed one; a branch that moved or has changes in the way fails it.
 */
async function bringIn(
  { repo, git, branch, answersPath, answers }: Planning,
  outcome: Extract<PlanningOutcome, { kind: 'committed' }>,
): Promise<PlanningOutcome> {
  // The answers the person wrote are in the commit now: the checkout's copy gives way to it.
  if (answersPath !== undefined && answers !== undefined && (await git.run(['ls-files', '--', answersPath])).trim() === '')
    await rm(join(repo.root, answersPath), { force: true });
  const merged = await git.run(['merge', '--ff-only', '--quiet', outcome.sha]).then(
    () => true,
    () => false,
  );
  if (merged) return outcome;
  return {
    kind: 'failed',
    reason: `the documents were committed as ${outcome.sha.slice(0, 12)}, but ${branch ?? 'HEAD'} moved or has changes in their way; bring them in with git merge ${outcome.sha.slice(0, 12)}`,
    problems: [],
    retries: outcome.retries,
    discarded: outcome.discarded,
    redactions: outcome.redactions,
    earlier: outcome.earlier,
    surfaced: outcome.surfaced,
  };
}

/**
 * The knowledge the planning agent had, in the store's trajectory as a plan's is (matched, and
 * used: what it wrote passed and was committed), in the planning commit itself, so the
 * person's branch gets both at once. Returns the commit.
 */
async function recordTrajectory(
  repo: RunRepo,
  worktree: string,
  env: Record<string, string>,
  spec: string,
  brief: Plan,
  entries: readonly SurfacedEntry[],
  at: Date,
): Promise<string> {
  const project = await localProject(repo);
  const events = trajectoryEvents({ entries, project, spec, plan: brief.id, verified: true, at, origin: `local:${brief.id}:${at.toISOString()}` });
  const path = join(KNOWLEDGE_ROOT, trajectoryPath(at));
  const text = appendTrajectory(await readTextIfExists(join(worktree, path)), events);
  // The identity the planning commit was made with (the person's, or the one harness gives a machine without one).
  const git = new Git(worktree, { env });
  if (text !== undefined) {
    await mkdir(dirname(join(worktree, path)), { recursive: true });
    await writeFile(join(worktree, path), text);
    await git.run(['add', '--', path]);
    await git.run(['commit', '--amend', '--no-edit', '--no-verify', '--quiet']);
  }
  return (await git.run(['rev-parse', 'HEAD'])).trim();
}
