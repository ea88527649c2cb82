import { basename, join, relative } from 'node:path';
import { rm } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { CONFIG_PATH } from '../../engine/core/config/parse.js';
import { projectName } from '../../engine/forge/knowledge-draft.js';
import { archivedSkill, archivePath } from '../../engine/knowledge/skills/skill-archive.js';
import { auditSkills, type Audit } from '../../engine/knowledge/skills/skill-audit.js';
import { pruneText, statsText } from '../../engine/knowledge/skills/skill-audit-text.js';
import { activeSkills, storeTrajectory } from '../../engine/knowledge/skills/skill-inventory.js';
import { pruneEvent } from '../../engine/knowledge/skills/skill-trajectory.js';
import { appendTrajectory, trajectoryPath } from '../../engine/knowledge/documents/trajectory.js';
import { secretValues } from '../../machine/content-safety.js';
import { committedFiles } from '../../machine/committed-store.js';
import { readKnowledgeStore, writeKnowledgeFiles } from '../../machine/knowledge-store.js';
import { Git } from '../../machine/git.js';
import { EXIT, UsageError, type CliIO } from '../io.js';
import { displayPath } from '../spec-input.js';
import { readConfig, storeOf } from './retrospective.js';
import { oneLine } from '../../engine/core/spec/problem.js';

export const usage = `Usage: harness skills [--pending | --stats | --prune [--write]] [--knowledge DIR] [--json]

The skills of the knowledge store.

  (no option)  the active skills (skills/<name>/SKILL.md), with their descriptions
  --pending    skills proposed and not merged yet: new or changed skills/ files the
               store's repository has not committed, and harness/knowledge/skill/<name>
               branches (on GitHub, each is an open pull request)
  --stats      each active skill's matches, uses and failures, success rate, last match and
               age, computed from trajectory/*.jsonl
  --prune      the skills to archive: superseded (metadata superseded-by), unused for
               knowledge.skills.prune.unused_days (90), or matched fewer than min_matches (2)
               times once that old. With --write, they are moved to skills-archived/ with
               the reason, and a prune line is logged: commit that as the archive PR.

Options:
  --knowledge DIR  the knowledge store (default: .harness/knowledge in this repository)
  --json           the same as JSON
  -h, --help       show this help

Exit: 0 done, 1 a skill or the config has problems, 2 usage error.
`;

export async function skillsCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      pending: { type: 'boolean' },
      stats: { type: 'boolean' },
      prune: { type: 'boolean' },
      write: { type: 'boolean' },
      knowledge: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const modes = (['pending', 'stats', 'prune'] as const).filter((m) => values[m]);
  if (modes.length > 1) throw new UsageError(`--${modes.join(' and --')} cannot go together; ask for one`);
  if (values.write && !values.prune) throw new UsageError('--write goes with --prune');
  const { store, root, repoRoot } = await storeOf(io, values.knowledge);
  const config = await readConfig(repoRoot, io);
  if (!config) {
    io.stderr(`harness skills: ${CONFIG_PATH} has errors; fix them and run again\n`);
    return EXIT.problems;
  }
  // Active is merged: on this machine, committed (a skill written and not committed yet is pending).
  const { files } = await committedFiles(store, (await readKnowledgeStore(store)).files);
  const { skills, problems } = activeSkills(files);
  for (const p of problems) io.stderr(`${displayPath(relative(io.cwd, join(store, p)))}\n`);
  const now = new Date();
  const mode = modes[0];
  const where = displayPath(relative(io.cwd, store) || '.');

  if (mode === 'pending') {
    const pending = await pendingSkills(root, store);
    if (values.json) io.stdout(`${JSON.stringify({ pending }, null, 2)}\n`);
    else io.stdout(pendingText(pending, where));
    return problems.length > 0 ? EXIT.problems : EXIT.ok;
  }

  const rules = { unusedDays: config.knowledge.skills.prune.unused_days, minMatches: config.knowledge.skills.prune.min_matches };
  const audit = auditSkills(skills, storeTrajectory(files), now, rules);
  if (mode === 'stats') {
    if (values.json) io.stdout(`${JSON.stringify({ stats: audit.stats }, null, 2)}\n`);
    else io.stdout(statsText(audit));
  } else if (mode === 'prune') {
    if (values.write && audit.prune.length > 0) await archivePruned(audit.prune, files, now, { store, root, repoRoot, io });
    if (values.json) io.stdout(`${JSON.stringify({ prune: audit.prune, written: values.write === true }, null, 2)}\n`);
    else io.stdout(pruneText(audit, values.write === true, where));
  } else if (values.json) {
    io.stdout(`${JSON.stringify({ skills: skills.map((s) => ({ name: s.name, path: s.path })) }, null, 2)}\n`);
  } else {
    io.stdout(
      skills.length === 0
        ? `No active skills in ${where}.\n`
        : `${skills.length} active skill${skills.length === 1 ? '' : 's'} in ${where}:\n${skills.map((s) => `  ${oneLine(s.name)}`).join('\n')}\n`,
    );
  }
  return problems.length > 0 ? EXIT.problems : EXIT.ok;
}

function pendingText(pending: { name: string; where: string }[], where: string): string {
  return pending.length === 0
    ? `No skills pending in ${where}.\n`
    : `${pending.length} skill${pending.length === 1 ? '' : 's'} pending review:\n${pending.map((p) => `  ${oneLine(p.name)}  ${oneLine(p.where)}`).join('\n')}\n`;
}

/** --prune --write: each skill to prune moved to skills-archived/ with its reason (its folder removed), and a prune line logged in the trajectory. */
async function archivePruned(
  prune: Audit['prune'],
  files: readonly { path: string; text: string }[],
  now: Date,
  { store, root, repoRoot, io }: { store: string; root: string; repoRoot: string; io: CliIO },
): Promise<void> {
  const day = now.toISOString().slice(0, 10);
  const text = new Map(files.map((f) => [f.path, f.text]));
  const tpath = trajectoryPath(now);
  const trajectory = appendTrajectory(
    text.get(tpath),
    prune.map((p) => pruneEvent({ at: now, project: projectName(basename(repoRoot)), name: p.name, reason: p.reason, origin: `local:prune:${day}` })),
  );
  const archived = prune.map((p) => ({ path: archivePath(p.path), text: archivedSkill(p.path, text.get(p.path)!, { day, reason: p.reason }) }));
  await writeKnowledgeFiles(store, [...archived, ...(trajectory ? [{ path: tpath, text: trajectory }] : [])], {
    roots: [root, repoRoot, store],
    secrets: secretValues(io.env),
  });
  for (const p of prune) await rm(join(store, p.path.slice(0, p.path.lastIndexOf('/'))), { recursive: true, force: true });
}

/** Skills not merged yet: the store's uncommitted skills/ files, and local skill branches. */
async function pendingSkills(root: string, store: string): Promise<{ name: string; where: string }[]> {
  const git = new Git(root);
  const out: { name: string; where: string }[] = [];
  const rel = relative(root, store).split('\\').join('/');
  let status: string;
  try {
    status = await git.run(['status', '--porcelain', '--untracked-files=all', '--', `${rel === '' ? '.' : rel}/skills`]);
  } catch {
    // Not a repository: nothing is committed, so nothing can be told pending from merged.
    return out;
  }
  for (const line of status.split('\n')) {
    const m = /skills\/([^/]+)\/SKILL\.md$/.exec(line);
    if (m) out.push({ name: m[1]!, where: line.startsWith('??') ? 'new, not committed' : 'changed, not committed' });
  }
  const branches = await git.run(['for-each-ref', '--format=%(refname:short)', 'refs/heads/harness/knowledge/skill/']);
  for (const b of branches.split('\n').filter(Boolean)) out.push({ name: b.slice('harness/knowledge/skill/'.length), where: `branch ${b}` });
  return out;
}
