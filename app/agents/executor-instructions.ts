import { join } from 'node:path';
import { agentPromptOverride } from '../engine/planning/agent-prompt.js';
import { readTextIfExists } from '../machine/files.js';
import { loadTemplate } from '../machine/templates.js';

const COMMENT = /<!--[\s\S]*?-->\n?/g;

/**
 * The executor's instructions for a plan's brief: the repository's own
 * `.github/harness/agents/executor.md` in the plan's checkout, else the shipped
 * templates/agents/executor.md; HTML comments (notes for people) taken out. An override that
 * says nothing once its comments are gone gives way to the shipped text.
 */
export async function executorInstructions(worktree: string): Promise<string> {
  const own = (await readTextIfExists(join(worktree, agentPromptOverride('executor'))))?.replace(COMMENT, '').trim();
  if (own) return own;
  return (await loadTemplate('agents/executor.md')).replace(COMMENT, '').trim();
}
