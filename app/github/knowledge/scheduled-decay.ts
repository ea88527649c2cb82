import { projectName } from '../../engine/forge/knowledge-draft.js';
import { gateway } from '../../gateway/gateway.js';
import type { GitHubRequest } from '../../gateway/request.js';
import { makeSafe } from '../../machine/content-safety.js';
import { appSafety } from './app-safety.js';
import { federate, type FederationResult } from './federation.js';
import { decayOnGitHub, logEvents, type GitHubDecay } from './gene-decay.js';
import { knowledgeStore, storeLabel } from './knowledge-store.js';
import { repositoryConfig, type ScheduledReflectionInput } from './scheduled-reflection.js';

/**
 * Decay on a schedule (templates/workflows/harness-decay.yml, the app action's `command:
 * decay`): the genes of the store are solidified, promoted and decayed, each change a PR; then,
 * with `knowledge.shared` set, the publishable genes and skills are proposed to the shared
 * knowledge repository, each a PR there. The answer goes to the job's summary, made safe.
 */
export async function scheduledDecay(
  input: ScheduledReflectionInput & { request: GitHubRequest },
): Promise<{ decay: GitHubDecay; federation?: FederationResult; summary: string }> {
  const here = gateway(input.request, input.repo, 'app');
  const config = await repositoryConfig(here, input.base, input.log);
  const store = await knowledgeStore(config, input.request, { github: here, base: input.base });
  const safety = appSafety(input.env, input.cwd);
  const now = input.now ?? new Date();
  const project = projectName(input.repo.repo);
  const decayed = await decayOnGitHub({ github: store.github, base: store.base, config, now, project, log: input.log, safety });
  let federation: FederationResult | undefined;
  const shared = config.knowledge.shared;
  if (shared !== undefined && shared.toLowerCase() !== store.name.toLowerCase()) {
    const [owner, repo] = shared.split('/') as [string, string];
    const there = gateway(input.request, { owner, repo }, 'app');
    federation = await federate({
      here: store.github,
      hereBase: store.base,
      shared: there,
      sharedBase: (await there.repository()).defaultBranch,
      sharedName: shared,
      project,
      now,
      safety,
      log: input.log,
    });
    await logEvents({ github: store.github, base: store.base, now, safety }, federation.events);
  }
  const summary = (await makeSafe(`## harness decay\n\n${answer(decayed, federation, storeLabel(store, here))}\n`, safety)).text;
  return { decay: decayed, ...(federation ? { federation } : {}), summary };
}

function answer(d: GitHubDecay, f: FederationResult | undefined, where: string): string {
  if (!d.store) return `There is no knowledge store on \`${where}\` yet: nothing to decay.`;
  const lines: string[] = [];
  if (d.proposed.length === 0) lines.push(`Nothing to change in the genes on \`${where}\`.`);
  else {
    lines.push(`Gene changes on \`${where}\`:`);
    for (const p of d.proposed)
      lines.push(`- ${p.action} \`${p.path}\`: ${p.reason}${p.pr ? ` (#${p.pr.number}, ${p.pr.state})` : ' (left for the next run: enough PRs are open)'}`);
  }
  if (d.decayed.kept.length > 0)
    lines.push('', `${d.decayed.kept.length} gene${d.decayed.kept.length === 1 ? '' : 's'} kept as ${d.decayed.kept.length === 1 ? 'it is' : 'they are'}.`);
  for (const p of d.problems) lines.push(`- \`${p.path}\`:${p.line}: ${p.message}`);
  if (f) {
    lines.push('', f.published.length === 0 ? 'Nothing publishable to share.' : 'Shared knowledge:');
    for (const p of f.published) lines.push(`- ${p.kind} \`${p.path}\`: ${p.pr ? `#${p.pr.number} (${p.pr.state})` : p.skipped}`);
  }
  return lines.join('\n');
}
