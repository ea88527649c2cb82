import { makeSafe } from '../../machine/content-safety.js';
import { agentEnvironment, appSafety } from '../knowledge/app-safety.js';
import { reflectionAnswer } from '../knowledge/reflection-answer.js';
import { MAX_LESSON_PRS, MAX_SIGNALS_READ, reflectOnGitHub } from '../knowledge/reflection.js';
import { configuredReflector } from '../../machine/reflector-agent.js';
import type { Invocation } from './invocation.js';

export { MAX_LESSON_PRS, MAX_SIGNALS_READ };

/**
 * `/harness reflect`: reflection on the default branch's knowledge (knowledge/reflection.ts),
 * answered with what was read, the lesson PRs opened (or found open, merged or closed
 * already) and why the other signals are not lessons yet.
 */
export async function reflect(inv: Invocation): Promise<string> {
  const config = await inv.config();
  const safety = appSafety(process.env, process.cwd());
  const reflector = configuredReflector(config, { cwd: process.cwd(), env: agentEnvironment(process.env) });
  const result = await reflectOnGitHub({
    github: inv.github,
    base: inv.defaultBranch,
    config,
    now: inv.now(),
    log: inv.log,
    safety,
    ...(reflector ? { reflector } : {}),
  });
  return (await makeSafe(reflectionAnswer(result, inv.defaultBranch), safety)).text;
}
