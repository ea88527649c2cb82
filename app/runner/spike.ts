import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { HarnessConfig } from '../engine/core/config/schema.js';
import { knowledgeBranch } from '../engine/forge/knowledge-draft.js';
import { slug as slugOf } from '../engine/forge/slug.js';
import { spikeDraft, spikeFolder } from '../engine/forge/spike-draft.js';
import { spikeAgentName } from '../engine/lifecycle/spike-agent.js';
import type { Progress } from '../engine/lifecycle/ports.js';
import type { SpikeOutcome } from '../engine/lifecycle/run-spike.js';
import { SPIKE_FILES } from '../engine/knowledge/spikes/spike-files.js';
import { systemClock } from '../machine/clock.js';
import { makeSafe, secretValues } from '../machine/content-safety.js';
import { loadTemplate } from '../machine/templates.js';
import type { AgentsConfig } from '../agents/registry.js';
import { runSpikeHere } from '../agents/run-spike-here.js';
import { SpikeCheckout } from '../agents/spike-checkout.js';
import { findSpikeFolders } from '../agents/spike-folder.js';
import { acquireRunLock, RunLockedError } from './lock.js';
import { RunError, type RunRepo } from './repo.js';
import { localProject } from './project.js';
import { containmentNotice } from '../machine/containment.js';

export interface LocalSpikeOptions {
  question: string;
  /** The project the spike is filed under; the repository's name when not given. */
  project?: string;
  /** `harness spike --agent`. */
  agent?: string;
  config: HarnessConfig;
  agents: AgentsConfig;
  /** Added to the environment of the agent and of git (an identity where none is configured). */
  env: Record<string, string>;
  progress: Progress;
  signal?: AbortSignal;
  now?: () => Date;
  /** Who asked, for the record ("Ana Dev"). */
  askedBy?: string;
}

export interface LocalSpike {
  outcome: SpikeOutcome;
  slug: string;
  project: string;
  folder: string;
  branch: string;
  /** The spike's worktree: removed once the spike is decided, kept to look at (and continue) otherwise. */
  worktree: string;
  /** The branch was made by this run (not continued from an earlier one). */
  opened: boolean;
}

export class SpikeLockedError extends RunError {}

/** Where a spike's worktree and logs live on this machine: beside the repository, like a run's (repoStateDir). */
export function spikeHome(repo: RunRepo, slug: string): { worktree: string; logDir: string } {
  const home = join(repo.stateDir, 'spikes', slug);
  return { worktree: join(home, 'worktree'), logDir: join(home, 'logs') };
}

/**
 * `harness spike`: a spike beside the main work. Its branch `harness/knowledge/spike/<slug>`
 * starts from HEAD in a worktree of its own, so that nothing the person has checked out (and
 * no spec's run, whose lock it never takes) is touched; its first commit records the question.
 * Then the spike runs there (agents/run-spike-here.ts, as on a runner). Asking the same
 * question again finds the branch and continues where it stopped.
 */
export async function runLocalSpike(repo: RunRepo, options: LocalSpikeOptions): Promise<LocalSpike> {
  const now = options.now ?? (() => new Date());
  const secrets = secretValues({ ...process.env, ...options.env });
  // The question names a branch and is committed: what it should not carry is taken out first.
  const question = (await makeSafe(options.question, { roots: [repo.root], secrets })).text;
  const slug = slugOf(question);
  const project = options.project ?? (await localProject(repo));
  const branch = knowledgeBranch('spike', slug);
  const { worktree, logDir } = spikeHome(repo, slug);
  await mkdir(logDir, { recursive: true });
  let release: () => Promise<void>;
  try {
    release = await acquireRunLock(logDir);
  } catch (e) {
    if (e instanceof RunLockedError) throw new SpikeLockedError(`another harness spike (pid ${e.pid}) is running this spike; wait for it, or stop it first`);
    throw e;
  }
  try {
    const opened = !(await repo.branchExists(branch));
    await repo.ensureWorktree(worktree, branch, await repo.headCommit('harness spike'));
    const safety = { roots: [worktree, repo.root, logDir], secrets };
    let folder = spikeFolder(project, slug);
    if (opened || !existsSync(join(worktree, folder, SPIKE_FILES.hypothesis))) {
      // A branch made by an earlier run under another project name keeps its folder.
      const earlier = opened ? undefined : (await findSpikeFolders(worktree, slug))[0];
      if (earlier) folder = earlier;
      else {
        const draft = spikeDraft({
          template: await loadTemplate('spike/HYPOTHESIS.md'),
          question,
          project,
          now: now(),
          askedIn: `Asked${options.askedBy ? ` by ${options.askedBy}` : ''} with \`harness spike\`.`,
        });
        const checkout = new SpikeCheckout(worktree, { journal: join(logDir, 'stage.json'), safety, env: options.env });
        const since = await checkout.head();
        for (const file of draft.files) await checkout.write(file.path, (await makeSafe(file.content, safety)).text);
        await checkout.commit(since, { subject: draft.commitMessage, trailers: [{ key: 'Spike', value: slug }] });
      }
    }
    // Once a spike: where its agent cannot be put in a container here, what that leaves.
    const notice = containmentNotice();
    if (notice !== undefined) await options.progress.event({ kind: 'progress', message: notice });
    const outcome = await runSpikeHere({
      root: worktree,
      folder,
      agent: spikeAgentName({ override: options.agent, spike: options.config.knowledge.spike?.agent, configured: options.config.agent }),
      agents: options.agents,
      env: options.env,
      logDir,
      roots: [repo.root],
      progress: options.progress,
      clock: systemClock(now),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (outcome.kind === 'decided') await repo.removeWorktree(worktree);
    return { outcome, slug, project: folder.split('/').at(-2)!, folder, branch, worktree, opened };
  } finally {
    await release();
  }
}
