import { makeSafe } from '../../machine/content-safety.js';
import { agentEnvironment, appSafety } from '../knowledge/app-safety.js';
import { reflectionAnswer } from '../knowledge/reflection-answer.js';
import { knowledgeStore, storeLabel } from '../knowledge/knowledge-store.js';
import { reflectOnGitHub } from '../knowledge/reflection.js';
import { configuredReflector } from '../../machine/reflector-agent.js';
import type { Invocation } from './invocation.js';

/**
 * `/harness reflect`: reflection on the default branch's knowledge, or the knowledge
 * repository's (knowledge/reflection.ts, knowledge/knowledge-store.ts),
 * answered with what was read, the lesson PRs opened (or found open, merged or closed
 * already) and why the other signals are not lessons yet.
 */
export async function reflect(inv: Invocation): Promise<string> {
  const config = await inv.config();
  const safety = appSafety(process.env, process.cwd());
  const reflector = configuredReflector(config, { cwd: process.cwd(), env: agentEnvironment(process.env) });
  const store = await knowledgeStore(config, inv.context.octokit.request, { github: inv.github, base: inv.defaultBranch });
  const result = await reflectOnGitHub({
    github: store.github,
    base: store.base,
    config,
    now: inv.now(),
    log: inv.log,
    safety,
    ...(reflector ? { reflector } : {}),
  });
  return (await makeSafe(reflectionAnswer(result, storeLabel(store, inv.github)), safety)).text;
}
