import { LABEL_COLORS } from '../../engine/forge/names.js';
import type { Gateway } from '../../gateway/gateway.js';

/**
 * The labels harness styles itself (harness:plan and the status:* set, colours from
 * names.ts) exist in the repository. Called only when a spec has no plan issue yet, so a
 * repository pays for it once per spec at most (a list read) and once ever for the creates;
 * the phase:, needs: and spec: labels are left to GitHub, which creates a label applied to
 * a new issue when it does not exist. A label someone has restyled is left as it is.
 */
export async function ensurePlanLabels(github: Gateway): Promise<number> {
  const existing = new Set((await github.labels()).map((l) => l.name.toLowerCase()));
  let created = 0;
  for (const [name, style] of Object.entries(LABEL_COLORS)) {
    if (existing.has(name.toLowerCase())) continue;
    if ((await github.createLabel({ name, color: style.color, description: style.description })) === 'created') created++;
  }
  return created;
}
