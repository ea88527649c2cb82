import { lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { KNOWLEDGE_ROOT } from '../engine/forge/knowledge-draft.js';
import { parseKnowledge } from '../engine/knowledge/documents/parse.js';
import { readTextIfExists } from '../machine/files.js';
import { Git } from '../machine/git.js';

/** Where Claude Code looks for a project's skills, in the checkout. */
export const CLAUDE_SKILLS = '.claude/skills';

export interface InstalledSkills {
  /** The skills' names, as installed. */
  names: string[];
  /** Take them away again, and the checkout's exclude file back as it was. */
  remove(): Promise<void>;
}

/**
 * The store's active skills, for this job only (docs/design.md, Skills): each valid
 * `skills/<name>/SKILL.md` of the checkout's `.harness/knowledge/` (the base branch's, so only
 * what a person merged; never `skills-archived/`) copied to `.claude/skills/<name>/SKILL.md`,
 * where Claude Code finds it. Nothing reaches the agent's own configuration but through such a
 * merge, and nothing of this reaches a commit: the copies are listed in the repository's
 * `info/exclude` while they are there (so `git add -A` and the uncommitted-changes check do
 * not see them) and removed after the attempt. A skill the repository has in `.claude/skills/`
 * already is the repository's: it is left as it is.
 */
export async function installSkills(root: string, log: { info(m: string): void; warning(m: string): void }): Promise<InstalledSkills> {
  const source = join(root, KNOWLEDGE_ROOT, 'skills');
  if (!(await exists(source))) return { names: [], remove: async () => undefined };
  const entries = (await readdir(source, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const git = new Git(root);
  const excludeRel = (await git.run(['rev-parse', '--git-path', 'info/exclude'])).trim();
  const exclude = isAbsolute(excludeRel) ? excludeRel : join(root, excludeRel);
  const before = await readTextIfExists(exclude);
  const names: string[] = [];
  for (const name of entries) {
    const text = await readTextIfExists(join(source, name, 'SKILL.md'));
    if (text === undefined) continue;
    const parsed = parseKnowledge('skill', `skills/${name}/SKILL.md`, text);
    if (parsed.problems.some((p) => p.severity === 'error')) {
      log.warning(`${KNOWLEDGE_ROOT}/skills/${name}/SKILL.md is not a valid skill (${parsed.problems[0]!.message}): not installed`);
      continue;
    }
    const target = join(root, CLAUDE_SKILLS, name);
    if (await exists(target)) {
      log.info(`${CLAUDE_SKILLS}/${name} is the repository's own: the store's skill of that name is not installed over it`);
      continue;
    }
    await mkdir(target, { recursive: true });
    await writeFile(join(target, 'SKILL.md'), text);
    names.push(name);
  }
  if (names.length > 0) {
    await mkdir(join(exclude, '..'), { recursive: true });
    const lines = names.map((n) => `/${CLAUDE_SKILLS}/${n}/`).join('\n');
    await writeFile(
      exclude,
      `${before === undefined || before === '' || before.endsWith('\n') ? (before ?? '') : `${before}\n`}# harness: the store's skills, installed for this job only\n${lines}\n`,
    );
    log.info(`installed the store's skills for this job: ${names.join(', ')}`);
  }
  return {
    names,
    remove: async () => {
      for (const name of names) await rm(join(root, CLAUDE_SKILLS, name), { recursive: true, force: true });
      if (names.length === 0) return;
      if (before === undefined) await rm(exclude, { force: true });
      else await writeFile(exclude, before);
    },
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}
