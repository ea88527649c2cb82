import type { Context } from 'probot';
import { knowledgeBranch, knowledgeLabels, projectName } from '../../engine/forge/knowledge-draft.js';
import { voiceCounts } from './learning-voice.js';
import {
  closingCandidates,
  NO_REASON,
  REVIEWS_SLUG,
  reviewFiles,
  skillFileIn,
  skillOfBranch,
  type ReviewRecord,
} from '../../engine/knowledge/skills/skill-review.js';
import { makeSafe } from '../../machine/content-safety.js';
import { appGateway } from '../app-gateway.js';
import { loadConfig } from '../config.js';
import { appSafety } from './app-safety.js';

/**
 * A skill's pull request closed (docs/design.md, Skills, the review lifecycle): merged is its
 * approval, closed without merging its rejection. The App logs which to the trajectory and, for
 * a rejection, keeps the skill as proposed in `skills-archived/<name>/SKILL.md` with the reason
 * from the closing comment, so deduplication finds it and nothing is lost. A rejection counts
 * only when whoever closed the pull request is a voice that counts (learning-voice.ts): the
 * triage role can close a pull request, and so can another App's bot. Both go onto the
 * rolling pull request `harness/knowledge/signal/skill-reviews`, which a person merges as they
 * merge signals: the App writes nothing to the base branch itself. A redelivered event adds
 * nothing (the line's key, the archive's file). A fork's pull request is not harness's.
 *
 * Its requests: the PR's files (one page for a skill), for a rejection the skill's file at the
 * PR's head, the PR's comments and the role of each author it looks at (newest first, until
 * one may review), then the append (knowledge-append.ts).
 */
/** Comments looked at for a reason, at most: a thread of drive-by comments costs no more than this. */
const MAX_ROLE_LOOKUPS = 10;

export async function onSkillPullRequestClosed(context: Context<'pull_request.closed'>): Promise<void> {
  const pr = context.payload.pull_request;
  const name = skillOfBranch(pr.head.ref);
  if (name === undefined) return;
  if (pr.head.repo?.full_name !== context.payload.repository.full_name) return;
  const github = appGateway(context);
  const where = skillFileIn(await github.pullRequestFiles(pr.number), name);
  if (where === undefined) {
    context.log.warn(`#${pr.number} is from ${pr.head.ref} but changes no skills/${name}/SKILL.md: not a skill's review`);
    return;
  }
  const { config } = await loadConfig(context);
  const merged = pr.merged === true;
  // Merging needs write; closing needs only the triage role, and another App's bot can close too: a rejection is
  // knowledge (the skill archived, never proposed again) only when whoever closed it is a voice that counts.
  const sender = context.payload.sender;
  if (!merged && !(await voiceCounts(github, config.permission, { login: sender.login, type: sender.type }))) {
    context.log.info(`${name}: #${pr.number} closed by @${sender.login}, whose role is below \`permission\` (or a bot): no rejection recorded`);
    return;
  }
  const by = (merged ? pr.merged_by?.login : undefined) ?? sender.login;
  const at = new Date(pr.closed_at ?? new Date().toISOString());
  const record: ReviewRecord = { type: merged ? 'approval' : 'rejection', name, pr: pr.number, by, at, project: projectName(github.repo.repo) };
  if (!merged) {
    const proposed = await github.fileText(where.path, pr.head.sha);
    // Newest first: one person's comment just before the close costs one role lookup.
    let closing: { reason: string; by?: string } = { reason: NO_REASON };
    for (const candidate of closingCandidates(await github.comments(pr.number), at.toISOString()).slice(0, MAX_ROLE_LOOKUPS)) {
      if (await voiceCounts(github, config.permission, { login: candidate.by, type: 'User' })) {
        closing = candidate;
        break;
      }
    }
    record.reason = closing.reason;
    if (proposed !== undefined) record.proposed = { path: where.path, text: proposed };
  }
  const safety = appSafety(process.env, process.cwd());
  const safe = async (text: string) => (await makeSafe(text, safety)).text;
  const done = await github.appendKnowledge({
    branch: knowledgeBranch('signal', REVIEWS_SLUG),
    base: pr.base.ref,
    root: where.root,
    commitMessage: await safe(`skills: ${record.type} of ${name} (#${pr.number})`),
    pr: {
      title: 'Skill reviews: approvals, rejections and the archive',
      body: await safe(
        'What people decided about the skills harness proposed: one trajectory line for each merged (`approval`) or closed (`rejection`) skill pull request, ' +
          'and each rejected skill kept in `skills-archived/<name>/SKILL.md` with the reason from its closing comment, so it is never proposed again. ' +
          'Merge this as you merge signals; nothing in it reaches an agent.',
      ),
      labels: knowledgeLabels('skill'),
    },
    build: async (store) => Promise.all((await reviewFiles(record, (path) => store.read(path))).map(async (f) => ({ path: f.path, text: await safe(f.text) }))),
  });
  context.log.info(
    `${name}: ${record.type} of #${pr.number} ${done.commit ? `recorded in ${done.commit.slice(0, 7)}` : 'was recorded already'}${done.pr ? ` (#${done.pr.number})` : ''}`,
  );
}
