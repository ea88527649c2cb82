import type { KnowledgeDraft } from '../../engine/forge/knowledge-draft.js';
import { makeSafe, secretValues, type SafetyOptions } from '../../machine/content-safety.js';

/**
 * What the App keeps out of everything it writes: the secrets it holds (its token, its key,
 * an agent's API key) and the paths of the machine it runs on (a runner's workspace).
 */
export function appSafety(env: Readonly<Record<string, string | undefined>>, cwd: string): SafetyOptions {
  const roots = [env.GITHUB_WORKSPACE, cwd].filter((r): r is string => r !== undefined && r !== '');
  return { roots, secrets: secretValues(env) };
}

/** The App's own secrets, which an agent it runs has no business seeing. */
const APP_SECRETS = [
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'INPUT_TOKEN',
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
  'PRIVATE_KEY',
  'PRIVATE_KEY_PATH',
  'WEBHOOK_SECRET',
];

/** The environment for an agent the App runs: the App's, without the App's own credentials. */
export function agentEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !APP_SECRETS.includes(name)));
}

/** A knowledge PR with every text in it (files, commit message, title, body) through the content-safety pass. */
export async function safeDraft(draft: KnowledgeDraft, safety: SafetyOptions): Promise<KnowledgeDraft> {
  const safe = async (text: string) => (await makeSafe(text, safety)).text;
  return {
    ...draft,
    files: await Promise.all(draft.files.map(async (f) => ({ path: f.path, content: await safe(f.content) }))),
    commitMessage: await safe(draft.commitMessage),
    title: await safe(draft.title),
    body: await safe(draft.body),
  };
}
