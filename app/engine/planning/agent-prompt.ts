import { HarnessError } from '../core/error.js';
import { agentOverridePath } from '../core/agents/overrides.js';
import { problem, type Problem } from '../core/spec/problem.js';

/**
 * An agent's instructions (templates/agents/<name>.md, or the repository's own
 * `.github/harness/agents/<name>.md`): Markdown whose text before the first `## ` heading is
 * said at every stage, and whose `## <Section>` parts are the stages. `{{name}}` placeholders
 * are filled by harness; HTML comments are notes for people and never reach the agent.
 */

export const AGENT_PROMPTS = ['planner', 'researcher', 'verifier', 'executor', 'reflector', 'spike'] as const;
export type AgentPromptName = (typeof AGENT_PROMPTS)[number];

/** Where a repository keeps its own version of an agent's instructions. */
export function agentPromptOverride(name: AgentPromptName): string {
  return agentOverridePath(name);
}

export interface AgentPrompt {
  /** Where it was read from, for messages. */
  file: string;
  preamble: string;
  sections: ReadonlyMap<string, string>;
}

export type ParsedPrompt = { ok: true; prompt: AgentPrompt } | { ok: false; problems: Problem<'agent-prompt'>[] };

const COMMENT = /<!--[\s\S]*?-->\n?/g;

export function parseAgentPrompt(file: string, text: string, required: readonly string[] = []): ParsedPrompt {
  const clean = text.replace(/\r\n/g, '\n').replace(COMMENT, '');
  const sections = new Map<string, string>();
  const lines = clean.split('\n');
  let name: string | undefined;
  let buffer: string[] = [];
  let preamble = '';
  let fence = false;
  const flush = () => {
    const body = buffer.join('\n').trim();
    if (name === undefined) preamble = body;
    else sections.set(name, body);
    buffer = [];
  };
  for (const line of lines) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const heading = fence ? null : /^## (.+?)\s*$/.exec(line);
    if (heading) {
      flush();
      name = heading[1]!;
      continue;
    }
    buffer.push(line);
  }
  flush();
  const problems: Problem<'agent-prompt'>[] = [];
  if (preamble === '')
    problems.push(problem(file, 1, 'agent-prompt', 'the instructions say nothing before their first "## " section: say there what every stage shares'));
  for (const want of required) {
    if (!sections.has(want))
      problems.push(problem(file, 1, 'agent-prompt', `no "## ${want}" section: harness gives that section to the agent at one of its stages; add it back`));
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, prompt: { file, preamble, sections } };
}

/** `{{name}}` filled from `values`; an unknown name is left as written, for the person to see. */
export function fillPlaceholders(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (whole, key: string) => values[key] ?? whole);
}

/** The preamble and one section, filled in: what one stage is told. */
export function renderStage(prompt: AgentPrompt, section: string, values: Readonly<Record<string, string>>): string {
  const body = prompt.sections.get(section);
  if (body === undefined) throw new HarnessError(`${prompt.file} has no "## ${section}" section`);
  return `${fillPlaceholders(prompt.preamble, values)}\n\n## ${section}\n\n${fillPlaceholders(body, values)}\n`;
}
