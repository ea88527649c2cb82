import { CONFIG_PATH, parseConfig } from '../../engine/core/config/parse.js';
import { DEFAULT_CONFIG, type HarnessConfig } from '../../engine/core/config/schema.js';
import { formatProblem } from '../../engine/core/spec/problem.js';
import { gateway, type Gateway } from '../../gateway/gateway.js';
import type { GitHubRequest, Repo } from '../../gateway/request.js';
import { makeSafe } from '../../machine/content-safety.js';
import { configuredReflector } from '../../machine/reflector-agent.js';
import { agentEnvironment, appSafety } from './app-safety.js';
import { knowledgeStore, storeLabel } from './knowledge-store.js';
import { reflectionAnswer } from './reflection-answer.js';
import { reflectOnGitHub, type GitHubReflection } from './reflection.js';

export interface ScheduledReflectionInput {
  /** Octokit's request with the App's installation token (the workflow mints it). */
  request: GitHubRequest;
  repo: Repo;
  /** The default branch: what is merged there is reflected on, and lesson PRs start from it. */
  base: string;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  log: { info(message: string): void; warn(message: string): void };
  now?: Date;
}

/**
 * `.github/harness.yml` on a branch, read through the API (GET /contents/.github, then its
 * blob): a scheduled run has no webhook context to read it with. A file with problems is
 * reported and the defaults stand in, as the App does.
 */
export async function repositoryConfig(github: Gateway, base: string, log: ScheduledReflectionInput['log']): Promise<HarnessConfig> {
  const entry = (await github.directory('.github', base))?.find((e) => e.path === CONFIG_PATH && e.type === 'file');
  if (!entry) return DEFAULT_CONFIG;
  const { config, problems } = parseConfig(new TextDecoder().decode(await github.blob(entry.sha)));
  for (const p of problems) log.warn(formatProblem(p));
  return config ?? DEFAULT_CONFIG;
}

/**
 * Reflection on a schedule (templates/workflows/harness-reflect.yml, through the app action's
 * `command: reflect`): the same reflection as `/harness reflect`, with the installation's
 * token, and its answer for the job's summary (made safe like any comment).
 */
export async function scheduledReflection(input: ScheduledReflectionInput): Promise<{ result: GitHubReflection; summary: string }> {
  const here = gateway(input.request, input.repo, 'app');
  const config = await repositoryConfig(here, input.base, input.log);
  const store = await knowledgeStore(config, input.request, { github: here, base: input.base });
  const safety = appSafety(input.env, input.cwd);
  const reflector = configuredReflector(config, { cwd: input.cwd, env: agentEnvironment(input.env) });
  const result = await reflectOnGitHub({
    github: store.github,
    base: store.base,
    config,
    now: input.now ?? new Date(),
    log: input.log,
    safety,
    ...(reflector ? { reflector } : {}),
  });
  const summary = (await makeSafe(`## harness reflect\n\n${reflectionAnswer(result, storeLabel(store, here))}\n`, safety)).text;
  return { result, summary };
}
