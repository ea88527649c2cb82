import { pruneText, statsText } from '../../engine/knowledge/skills/skill-audit-text.js';
import { auditSkills } from '../../engine/knowledge/skills/skill-audit.js';
import { activeSkills, storeTrajectory } from '../../engine/knowledge/skills/skill-inventory.js';
import { makeSafe } from '../../machine/content-safety.js';
import { appSafety } from '../knowledge/app-safety.js';
import { knowledgeStore, storeLabel } from '../knowledge/knowledge-store.js';
import { readStoreFolders } from '../knowledge/skill-store-github.js';
import { storeRootOf } from './retrospective.js';
import type { Invocation } from './invocation.js';

/**
 * `/harness audit` (docs/design.md, Skills): what `harness skills --pending`, `--stats` and
 * `--prune` say, as one answer, on the store as merged (the default branch's, or the knowledge
 * repository's): the skills pending review (the open skill PRs), each active skill's matches,
 * uses, failures, success and age from the trajectory, and the skills the prune rules
 * (knowledge.skills.prune) would archive. Nothing is moved: the archive is a pull request a
 * person makes with `harness skills --prune --write`, as the answer says.
 */
export async function audit(inv: Invocation): Promise<string> {
  const config = await inv.config();
  const store = await knowledgeStore(config, inv.context.octokit.request, { github: inv.github, base: inv.defaultBranch });
  const read = await readStoreFolders(
    store.github,
    store.base,
    ['skills', 'trajectory'],
    (p) => /^skills\/[^/]+\/SKILL\.md$/.test(p) || /^trajectory\/\d{4}-\d{2}-\d{2}\.jsonl$/.test(p),
    storeRootOf(store, inv),
  );
  const { skills, problems } = activeSkills(read.files);
  const result = auditSkills(skills, storeTrajectory(read.files), inv.now(), {
    unusedDays: config.knowledge.skills.prune.unused_days,
    minMatches: config.knowledge.skills.prune.min_matches,
  });
  const pending = await store.github.openKnowledgePulls('skill');
  const where = storeLabel(store, inv.github);
  const lines = [`**Skills in ${where}**: ${skills.length} active, ${pending.length} pending review.`, ''];
  if (pending.length > 0)
    lines.push(
      'Pending (merge to approve, close with a comment saying why to reject):',
      ...pending.map((p) => `- #${p.number} \`${p.headRef.replace(/^harness\/knowledge\/skill\//, '')}\``),
      '',
    );
  lines.push(
    '```',
    statsText(result).trimEnd(),
    '```',
    '',
    '```',
    pruneText(result, false, where)
      .replace(
        '--write moves them to skills-archived/ for an archive PR.',
        '`harness skills --prune --write` in a checkout moves them to skills-archived/; commit that as the archive PR.',
      )
      .trimEnd(),
    '```',
  );
  if (problems.length > 0)
    lines.push('', `Skills that do not parse (fix them; the \`harness / knowledge\` check says how): ${problems.map((p) => `\`${p}\``).join(', ')}`);
  if (read.limited.length > 0) lines.push('', `Only the newest files of ${read.limited.join(' and ')} were read: the figures count those.`);
  return (await makeSafe(lines.join('\n'), appSafety(process.env, process.cwd()))).text;
}
