import { parseKnowledge } from '../documents/parse.js';
import type { AuditedSkill } from './skill-audit.js';
import { parseTrajectory } from './skill-audit.js';
import type { StoreText } from './skill-known.js';
import type { TrajectoryEvent } from '../documents/trajectory.js';

const ACTIVE = /^skills\/([^/]+)\/SKILL\.md$/;
const TRAJECTORY = /^trajectory\/\d{4}-\d{2}-\d{2}\.jsonl$/;

/** The active skills of a store's files (never `skills-archived/`), as the audit reads them, and the problems of those that do not parse. */
export function activeSkills(files: readonly StoreText[]): { skills: AuditedSkill[]; problems: string[] } {
  const skills: AuditedSkill[] = [];
  const problems: string[] = [];
  for (const f of files) {
    const m = ACTIVE.exec(f.path);
    if (!m) continue;
    const parsed = parseKnowledge('skill', f.path, f.text);
    const meta = parsed.data?.metadata ?? {};
    const error = parsed.problems.find((p) => p.severity === 'error');
    if (error) problems.push(`${f.path}:${error.line}: ${error.message}`);
    const since = meta['extracted-on'] ?? meta['approved-on'];
    const day = since !== undefined && /^\d{4}-\d{2}-\d{2}/.test(since) ? new Date(`${since.slice(0, 10)}T00:00:00Z`) : undefined;
    skills.push({
      name: parsed.data?.name ?? m[1]!,
      path: f.path,
      ...(day && !Number.isNaN(day.getTime()) ? { since: day } : {}),
      ...(meta['superseded-by'] ? { supersededBy: meta['superseded-by'] } : {}),
    });
  }
  return { skills, problems };
}

/** Every trajectory line of the store, oldest file first. */
export function storeTrajectory(files: readonly StoreText[]): TrajectoryEvent[] {
  return files
    .filter((f) => TRAJECTORY.test(f.path))
    .sort((a, b) => a.path.localeCompare(b.path))
    .flatMap((f) => parseTrajectory(f.text));
}
