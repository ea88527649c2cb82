import { parseFrontmatter } from '../spec/frontmatter.js';
import { issuesToProblems } from '../spec/issues.js';
import type { Problem } from '../spec/problem.js';
import { HarnessConfigSchema, type HarnessConfig } from './schema.js';

export const CONFIG_PATH = '.github/harness.yml';

/** Parse `.github/harness.yml` text; problems name the file and line like every other input. */
export function parseConfig(text: string): { config?: HarnessConfig; problems: Problem[] } {
  // The frontmatter reader keeps key lines; a YAML file is a frontmatter block without a body.
  const fm = parseFrontmatter(CONFIG_PATH, `---\n${text}\n---\n`);
  if (!fm.ok) return { problems: fm.problems.map((p) => ({ ...p, line: Math.max(1, p.line - 1) })) };
  const parsed = HarnessConfigSchema.safeParse(fm.frontmatter.data);
  if (!parsed.success) {
    return {
      problems: issuesToProblems(CONFIG_PATH, HarnessConfigSchema, parsed.error, fm.frontmatter.data, fm.frontmatter.lines).map((p) => ({
        ...p,
        line: Math.max(1, p.line - 1),
        message: p.message.replace('; put keys of your own under metadata:', ''),
      })),
    };
  }
  return { config: parsed.data, problems: [] };
}
