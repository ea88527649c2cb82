import type { TrajectoryEvent } from '../documents/trajectory.js';

/** The prune rules' thresholds (knowledge.skills.prune), with the design's defaults. */
export interface PruneRules {
  /** A skill not used for this many days (and at least this old) goes. */
  unusedDays: number;
  /** A skill at least unusedDays old matched fewer times than this goes. */
  minMatches: number;
}

export const DEFAULT_PRUNE: PruneRules = { unusedDays: 90, minMatches: 2 };

/** An active skill, as the audit reads it. */
export interface AuditedSkill {
  name: string;
  /** `skills/<name>/SKILL.md`, as trajectory lines name it. */
  path: string;
  /** When it became active: its approval, else metadata extracted-on; undefined when neither says. */
  since?: Date;
  /** metadata superseded-by: the skill that replaces it. */
  supersededBy?: string;
}

export interface SkillStats {
  name: string;
  path: string;
  /** Times put into a brief, and of those, times the plan was then verified with it (uses) or not. */
  matches: number;
  uses: number;
  failures: number;
  /** uses / matches, undefined before the first match. */
  successRate?: number;
  lastMatch?: string;
  lastUse?: string;
  /** Whole days since it became active; undefined when nothing says when. */
  ageDays?: number;
}

export interface PruneProposal {
  name: string;
  path: string;
  rule: 'superseded' | 'unused' | 'rarely-matched';
  reason: string;
}

export interface Audit {
  stats: SkillStats[];
  prune: PruneProposal[];
}

const DAY = 86_400_000;

/** The trajectory's lines as events: lines that are not JSON or lack a type are a person's notes and skipped. */
export function parseTrajectory(text: string): TrajectoryEvent[] {
  const out: TrajectoryEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const e = JSON.parse(line) as TrajectoryEvent;
      if (typeof e.type === 'string' && typeof e.entry === 'string' && typeof e.timestamp === 'string') out.push(e);
    } catch {
      // Someone's note, or half a line from an interrupted write: not an event.
    }
  }
  return out;
}

function days(from: Date, to: Date): number {
  return Math.floor((to.getTime() - from.getTime()) / DAY);
}

/**
 * `harness skills --stats` and `--prune` (docs/design.md, Knowledge, Audit): each active
 * skill's matches, uses and outcomes and its last match, from the trajectory in one pass,
 * and the skills to archive: superseded by another skill; unused (no use for `unusedDays`,
 * counted from its last use or, never used, from when it became active); rarely matched
 * (fewer than `minMatches` matches once it is `unusedDays` old, so a new skill has its chance).
 */
export function auditSkills(skills: readonly AuditedSkill[], events: readonly TrajectoryEvent[], now: Date, rules: PruneRules = DEFAULT_PRUNE): Audit {
  const byPath = new Map<string, { matches: number; uses: number; lastMatch?: string; lastUse?: string; approved?: string }>();
  for (const s of skills) byPath.set(s.path, { matches: 0, uses: 0 });
  for (const e of events) {
    const row = byPath.get(e.entry);
    if (!row) continue;
    if (e.type === 'match') {
      row.matches++;
      if (row.lastMatch === undefined || e.timestamp > row.lastMatch) row.lastMatch = e.timestamp;
    } else if (e.type === 'use') {
      row.uses++;
      if (row.lastUse === undefined || e.timestamp > row.lastUse) row.lastUse = e.timestamp;
    } else if (e.type === 'approval' && (row.approved === undefined || e.timestamp > row.approved)) {
      row.approved = e.timestamp;
    }
  }
  const names = new Set(skills.map((s) => s.name));
  const stats: SkillStats[] = [];
  const prune: PruneProposal[] = [];
  for (const s of [...skills].sort((a, b) => a.name.localeCompare(b.name))) {
    const row = byPath.get(s.path)!;
    const since = row.approved !== undefined ? new Date(row.approved) : s.since;
    const ageDays = since === undefined ? undefined : days(since, now);
    stats.push({
      name: s.name,
      path: s.path,
      matches: row.matches,
      uses: row.uses,
      failures: Math.max(0, row.matches - row.uses),
      ...(row.matches > 0 ? { successRate: Math.round((row.uses / row.matches) * 1000) / 1000 } : {}),
      ...(row.lastMatch ? { lastMatch: row.lastMatch } : {}),
      ...(row.lastUse ? { lastUse: row.lastUse } : {}),
      ...(ageDays !== undefined ? { ageDays } : {}),
    });
    if (s.supersededBy !== undefined && names.has(s.supersededBy) && s.supersededBy !== s.name) {
      prune.push({ name: s.name, path: s.path, rule: 'superseded', reason: `superseded by ${s.supersededBy}` });
      continue;
    }
    if (ageDays === undefined || ageDays < rules.unusedDays) continue;
    const idle = row.lastUse === undefined ? ageDays : days(new Date(row.lastUse), now);
    if (idle >= rules.unusedDays) {
      prune.push({
        name: s.name,
        path: s.path,
        rule: 'unused',
        reason: row.lastUse === undefined ? `never used in ${ageDays} days` : `unused for ${idle} days (last used ${row.lastUse.slice(0, 10)})`,
      });
    } else if (row.matches < rules.minMatches) {
      prune.push({
        name: s.name,
        path: s.path,
        rule: 'rarely-matched',
        reason: `matched ${row.matches} time${row.matches === 1 ? '' : 's'} in ${ageDays} days (fewer than ${rules.minMatches})`,
      });
    }
  }
  return { stats, prune };
}
