import type { Context } from 'probot';
import { LABEL_COLORS } from '../../engine/forge/names.js';
import { createLabel, listLabels } from '../resources/labels.js';

type Octokit = Context['octokit'];

/**
 * The labels harness styles itself (harness:plan and the status:* set, colours from
 * names.ts) exist in the repository. Called only when a spec has no plan issue yet, so a
 * repository pays for it once per spec at most (a list read) and once ever for the creates;
 * the phase:, needs: and spec: labels are left to GitHub, which creates a label applied to
 * a new issue when it does not exist. A label someone has restyled is left as it is.
 */
export async function ensurePlanLabels(octokit: Octokit, repo: { owner: string; repo: string }): Promise<number> {
  const existing = new Set((await listLabels(octokit, repo)).map((l) => l.name.toLowerCase()));
  let created = 0;
  for (const [name, style] of Object.entries(LABEL_COLORS)) {
    if (existing.has(name.toLowerCase())) continue;
    if ((await createLabel(octokit, repo, { name, color: style.color, description: style.description })) === 'created') created++;
  }
  return created;
}
