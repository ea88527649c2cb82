import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, writeTree } from './cli.js';
import { EXAMPLE_SPEC, FIXTURES } from './paths.js';
import { firstCommit } from './git-batch.js';

/** Where the README's example spec sits in the repositories the planning tests make. */
export const DIR = 'docs/specs/SPC-001-notes-service';

/**
 * A repository holding only the example's SPEC.md, planned by the stand-in planning agent
 * (test/fixtures/agents/planning-agent.mjs) with `env` in its command.
 */
export async function repoWithSpec(env: Record<string, string> = {}): Promise<string> {
  const root = await tempDir('harness-plan-cli-');
  const vars = Object.entries(env).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  const command = [...vars, JSON.stringify(process.execPath), JSON.stringify(join(FIXTURES, 'agents', 'planning-agent.mjs'))].join(' ');
  await writeTree(root, {
    '.github/harness.yml': `agent: script\nplanning:\n  agent: command\nagents:\n  command:\n    command: ${JSON.stringify(command)}\n`,
    [`${DIR}/SPEC.md`]: readFileSync(join(EXAMPLE_SPEC, 'SPEC.md'), 'utf8'),
  });
  firstCommit(root, { name: 'Ana', email: 'ana@example.com' }, 'the notes service spec');
  return root;
}
