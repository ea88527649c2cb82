import { archivedSkill } from './skill-archive.js';
import { reviewEvent } from './skill-trajectory.js';
import { appendTrajectory, trajectoryPath } from '../documents/trajectory.js';

/**
 * A skill's review on GitHub (docs/design.md, Skills): pending is its open pull request from
 * `harness/knowledge/skill/<name>`; a merge is its approval, a close without merging its
 * rejection. Both are logged to the trajectory, and a rejected skill is kept in
 * `skills-archived/<name>/SKILL.md` with the reason, where deduplication finds it, so the same
 * skill is not proposed again. What this writes goes through the store's rolling reviews pull
 * request, as signals do: nothing reaches the base branch but by a person's merge.
 */

const SKILL_BRANCH = /^harness\/knowledge\/skill\/([a-z0-9]+(?:-[a-z0-9]+)*)$/;

/** The skill a pull request's head branch proposes, or undefined for any other branch. */
export function skillOfBranch(ref: string): string | undefined {
  return SKILL_BRANCH.exec(ref)?.[1];
}

/** The branch that collects the reviews' records, and its pull request's title. */
export const REVIEWS_SLUG = 'skill-reviews';

/** Where the skill's file is among a pull request's changed paths, and the store's folder around it. */
export function skillFileIn(paths: readonly string[], name: string): { path: string; root: string } | undefined {
  const path = paths.find((p) => p === `skills/${name}/SKILL.md` || p.endsWith(`/skills/${name}/SKILL.md`));
  if (path === undefined) return undefined;
  return { path, root: path.slice(0, -`skills/${name}/SKILL.md`.length).replace(/\/$/, '') };
}

export interface ReviewComment {
  body: string;
  author: string;
  authorType: string;
  createdAt: string;
}

/** A reason a person gave, cut to what an archive keeps: one paragraph. */
const MAX_REASON = 500;

/** What a rejection says when nobody with the right to review gave a reason. */
export const NO_REASON = 'closed without a reason';

/**
 * The comments that may say why a skill was rejected, newest first, each as the reason it
 * would give: a person's (not a bot's) comment made before the close, or within a minute after
 * it (a person often comments and closes in one go), with no harness command in it. The first
 * whose author may review (the permission check, which the caller makes) is the reason.
 */
export function closingCandidates(comments: readonly ReviewComment[], closedAt: string): { reason: string; by: string }[] {
  const until = Date.parse(closedAt) + 60_000;
  const out: { reason: string; by: string }[] = [];
  for (const c of [...comments].reverse()) {
    if (c.authorType !== 'User' || Date.parse(c.createdAt) > until || /^\s*\/harness\b/.test(c.body)) continue;
    const text = c.body
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (text === '') continue;
    out.push({ reason: text.length > MAX_REASON ? `${text.slice(0, MAX_REASON - 1)}…` : text, by: c.author });
  }
  return out;
}

export interface ReviewRecord {
  type: 'approval' | 'rejection';
  name: string;
  pr: number;
  /** Who merged or closed it. */
  by: string;
  at: Date;
  project: string;
  /** rejection: the closing comment's reason and the skill as proposed (its file at the PR's head). */
  reason?: string;
  proposed?: { path: string; text: string };
}

/**
 * The store files a review writes, given the store as it is on the reviews branch (`read`,
 * store-relative): the trajectory line (logged once, by its key, however often the event
 * comes) and, for a rejection, the archived skill. Nothing when both are there already.
 */
export async function reviewFiles(record: ReviewRecord, read: (path: string) => Promise<string | undefined>): Promise<{ path: string; text: string }[]> {
  const files: { path: string; text: string }[] = [];
  const event = reviewEvent({
    at: record.at,
    project: record.project,
    type: record.type,
    name: record.name,
    pr: record.pr,
    by: record.by,
    ...(record.reason ? { reason: record.reason } : {}),
  });
  const log = trajectoryPath(record.at);
  const appended = appendTrajectory(await read(log), [event]);
  if (appended !== undefined) files.push({ path: log, text: appended });
  if (record.type === 'rejection' && record.proposed) {
    const path = `skills-archived/${record.name}/SKILL.md`;
    const text = archivedSkill(path, record.proposed.text, { day: record.at.toISOString().slice(0, 10), reason: record.reason ?? NO_REASON, by: record.by });
    if ((await read(path)) === undefined) files.push({ path, text });
  }
  return files;
}
