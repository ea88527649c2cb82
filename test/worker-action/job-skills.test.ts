import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installSkills } from '../../app/worker-action/job-skills.js';
import { tempDir, writeTree } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/paths.js';
import { git, isolateGit } from '../helpers/worker-repo.js';

/**
 * The store's active skills installed for one job: where Claude Code finds them, never in a
 * commit, gone after the attempt; invalid skills, archived ones and the repository's own
 * `.claude/skills/` left alone. On a real git checkout.
 */

const STORE = join(FIXTURES, 'knowledge', 'surface', 'store');
const skill = (name: string, folder = 'skills') => readFileSync(join(STORE, folder, name, 'SKILL.md'), 'utf8');
let restoreGit: () => void;
beforeAll(() => {
  restoreGit = isolateGit();
});
afterAll(() => restoreGit());

async function checkout(): Promise<string> {
  const root = await tempDir('harness-job-skills-');
  await writeTree(root, {
    'README.md': '# demo\n',
    '.harness/knowledge/skills/http-retry-with-backoff/SKILL.md': skill('http-retry-with-backoff'),
    '.harness/knowledge/skills/sqlite-busy-in-parallel-tests/SKILL.md': skill('sqlite-busy-in-parallel-tests'),
    '.harness/knowledge/skills/broken/SKILL.md': '---\nname: Not Valid\n---\n\nno sections\n',
    '.harness/knowledge/skills-archived/sqlite-wal-mode/SKILL.md': skill('sqlite-wal-mode', 'skills-archived'),
    '.claude/skills/sqlite-busy-in-parallel-tests/SKILL.md': "---\nname: sqlite-busy-in-parallel-tests\ndescription: the repository's own\n---\n",
  });
  git(root, 'init', '-q', '--initial-branch=main');
  git(root, 'add', '-A');
  git(root, '-c', 'user.name=Seed', '-c', 'user.email=seed@example.com', 'commit', '-q', '-m', 'seed');
  return root;
}

describe('skills installed for a job', () => {
  it('puts the valid active skills where Claude Code reads them, invisible to git, and takes them away after', async () => {
    const root = await checkout();
    const said: string[] = [];

    const installed = await installSkills(root, { info: (m) => said.push(m), warning: (m) => said.push(`warning: ${m}`) });

    expect(installed.names).toEqual(['http-retry-with-backoff']);
    expect(readFileSync(join(root, '.claude/skills/http-retry-with-backoff/SKILL.md'), 'utf8')).toBe(skill('http-retry-with-backoff'));
    // The repository's own skill of that name stays as it was; the archive and an invalid skill are never installed.
    expect(readFileSync(join(root, '.claude/skills/sqlite-busy-in-parallel-tests/SKILL.md'), 'utf8')).toContain("the repository's own");
    expect(existsSync(join(root, '.claude/skills/sqlite-wal-mode'))).toBe(false);
    expect(existsSync(join(root, '.claude/skills/broken'))).toBe(false);
    expect(said.some((m) => m.startsWith('warning: .harness/knowledge/skills/broken/SKILL.md is not a valid skill'))).toBe(true);
    // Nothing for git to see or to commit while they are there.
    expect(git(root, 'status', '--porcelain')).toBe('');
    git(root, 'add', '-A');
    expect(git(root, 'diff', '--cached', '--name-only')).toBe('');

    await installed.remove();

    expect(existsSync(join(root, '.claude/skills/http-retry-with-backoff'))).toBe(false);
    expect(existsSync(join(root, '.git/info/exclude')) ? readFileSync(join(root, '.git/info/exclude'), 'utf8') : '').not.toContain('http-retry-with-backoff');
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('installs nothing from a checkout without a store', async () => {
    const root = await tempDir('harness-job-skills-none-');
    await writeTree(root, { 'README.md': '# demo\n' });
    git(root, 'init', '-q', '--initial-branch=main');
    const installed = await installSkills(root, { info: () => undefined, warning: () => undefined });
    expect(installed.names).toEqual([]);
    await installed.remove();
  });
});
