import type { Context } from 'probot';
import type { HarnessConfig } from '../../engine/core/config/schema.js';
import type { RoundPlan } from '../../engine/forge/round-plan.js';
import { researchAheadPhases } from '../../engine/planning/research-ahead.js';
import { parseResearchInput, researchBranch, researchInput } from '../../engine/planning/planning-target.js';
import { GitHubError } from '../../gateway/github-error.js';
import { appGateway } from '../app-gateway.js';
import type { BaseHead } from './dispatch.js';

/**
 * Research ahead in a scheduling round (docs/github-flow.md, 11), unless `planning.research_ahead`
 * is false or no agent can research (researchesAhead): the slots no plan can use run `research-phase` for the two phases after the one
 * executing. Dispatched like the other jobs, claimed the same way (`harness/<spec>/research-PP`
 * at the base head; 422 means another delivery has it), and never twice: while the branch
 * exists (the job runs, or its pull request waits for review) the phase is skipped, and the
 * worker skips a phase whose research document the base has already. Costs nothing when it is
 * off or nothing executes; else one read of the spec's research branches.
 */
export async function researchAhead(context: Context, config: HarnessConfig, spec: string, round: RoundPlan, base: () => Promise<BaseHead>): Promise<string[]> {
  if (!researchesAhead(config)) return [];
  if (researchAheadPhases({ round, claimed: new Set() }).length === 0) return [];
  const github = appGateway(context);
  const prefix = `harness/${spec}/research-`;
  const claimed = new Set<string>();
  for (const name of (await github.branchesWithPrefix(prefix)).keys()) {
    const target = parseResearchInput(name.slice(`harness/${spec}/`.length));
    if (target) claimed.add(target.phase);
  }
  const started: string[] = [];
  for (const phase of researchAheadPhases({ round, claimed })) {
    const head = await base();
    const branch = researchBranch(spec, phase);
    if ((await github.createBranch(branch, head.sha)) === 'exists') continue;
    try {
      await github.dispatchWorker(head.branch, { spec, plan: researchInput(phase), resume: false });
    } catch (e) {
      // A claim without a worker would keep the phase from ever being researched: give it back.
      // GitHub refusing it too leaves the claim: the dispatch's own failure is what is thrown.
      await github.deleteBranch(branch).catch((d: unknown) => {
        if (!(d instanceof GitHubError)) throw d;
      });
      throw e;
    }
    context.log.info(`${spec}: research ahead for phase ${phase} dispatched on ${head.branch}`);
    started.push(phase);
  }
  return started;
}

/**
 * Does the repository research ahead? As it says when it says (`planning.research_ahead`);
 * else yes when it has an agent that writes, since research only uses slots that would idle:
 * `planning.agent`, or a repository `agent` other than the script agent. A repository whose
 * plans are scripts and that names no planning agent is not given Claude's bill unasked.
 */
export function researchesAhead(config: HarnessConfig): boolean {
  return config.planning?.research_ahead ?? (config.planning?.agent !== undefined || config.agent !== 'script');
}
