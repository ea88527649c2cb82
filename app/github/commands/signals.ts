import { projectName } from '../../engine/forge/knowledge-draft.js';
import { signalsAppend } from '../../engine/forge/signals-pr.js';
import type { SignalDraft } from '../../engine/knowledge/documents/loop.js';
import { gateway, type Gateway } from '../../gateway/gateway.js';
import { GitHubError } from '../../gateway/github-error.js';
import { makeSafe, secretValues } from '../../machine/content-safety.js';
import { loadTemplate } from '../../machine/templates.js';
import type { Invocation } from './invocation.js';

/**
 * The App's own signals (what people do: frustration, a plan aborted) appended to the spec's
 * signals PR, the one the workers append to, in this repository or in the knowledge
 * repository the config names. Never blocking: a failure is logged and the command's answer
 * stands.
 */
export async function captureFromApp(inv: Invocation, input: { spec: string; drafts: readonly SignalDraft[]; what: string; origin: string }): Promise<void> {
  if (input.drafts.length === 0) return;
  let where = 'this repository';
  try {
    const settings = (await inv.config()).knowledge;
    if (!settings.capture.enabled) return;
    const shared = settings.repository;
    let store: Gateway = inv.github;
    if (shared !== undefined) {
      const [owner, repo] = shared.split('/') as [string, string];
      store = gateway(inv.context.octokit.request, { owner, repo }, 'app');
      where = shared;
    }
    const safety = { secrets: secretValues(process.env) };
    const { append, decided } = await signalsAppend({
      spec: input.spec,
      project: projectName(inv.github.repo.repo),
      origin: input.origin,
      at: inv.now(),
      drafts: input.drafts,
      template: await loadTemplate('signal.md'),
      maxPerPhase: settings.capture.max_per_phase,
      base: shared === undefined ? inv.defaultBranch : (await store.repository()).defaultBranch,
      ...(shared === undefined ? {} : { knowledgeRepository: shared }),
      what: input.what,
      safe: async (text) => (await makeSafe(text, safety)).text,
    });
    const done = await store.appendKnowledge(append);
    const filed = decided()?.filed.map((e) => e.type) ?? [];
    inv.log.info(`signals of ${input.spec}: ${filed.length > 0 ? filed.join(', ') : 'nothing new'}${done.pr ? ` on PR #${done.pr.number} in ${where}` : ''}`);
  } catch (e) {
    const hint =
      e instanceof GitHubError && where !== 'this repository' && (e.kind === 'forbidden' || e.kind === 'not-found')
        ? ` (the App must be installed on ${where} with contents and pull requests write)`
        : '';
    inv.log.warn(`signals of ${input.spec} were not filed on ${where}: ${(e as Error).message}${hint}`);
  }
}
