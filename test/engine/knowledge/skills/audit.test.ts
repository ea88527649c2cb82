import { describe, expect, it } from 'vitest';
import { auditSkills, parseTrajectory, type AuditedSkill } from '../../../../app/engine/knowledge/skills/skill-audit.js';

const NOW = new Date('2026-06-30T00:00:00Z');
const day = (d: string) => `${d}T10:00:00.000Z`;

function line(type: string, entry: string, timestamp: string): string {
  return JSON.stringify({
    timestamp,
    type,
    project: 'p',
    spec: 'SPC-001',
    plan: '01-01',
    entry,
    kind: 'skill',
    title: entry,
    score: 1,
    why: 'x',
    key: `${type}/${entry}/${timestamp}`,
  });
}

const skill = (name: string, since: string, supersededBy?: string): AuditedSkill => ({
  name,
  path: `skills/${name}/SKILL.md`,
  since: new Date(since),
  ...(supersededBy ? { supersededBy } : {}),
});

describe('harness skills --stats and --prune', () => {
  const skills = [
    skill('busy', '2026-01-01'),
    skill('fresh', '2026-06-01'),
    skill('idle', '2026-01-01'),
    skill('rare', '2026-03-01'),
    skill('old-way', '2026-06-20', 'busy'),
  ];
  const trajectory = [
    line('match', 'skills/busy/SKILL.md', day('2026-06-01')),
    line('use', 'skills/busy/SKILL.md', day('2026-06-01')),
    line('match', 'skills/busy/SKILL.md', day('2026-06-20')),
    line('match', 'skills/idle/SKILL.md', day('2026-02-01')),
    line('use', 'skills/idle/SKILL.md', day('2026-02-01')),
    line('match', 'skills/rare/SKILL.md', day('2026-06-15')),
    line('use', 'skills/rare/SKILL.md', day('2026-06-15')),
    'a note someone wrote',
    '{"half a line',
  ].join('\n');

  it('counts matches, uses, outcomes, the last match and the age from the trajectory', () => {
    const { stats } = auditSkills(skills, parseTrajectory(trajectory), NOW);
    expect(stats.find((s) => s.name === 'busy')).toEqual({
      name: 'busy',
      path: 'skills/busy/SKILL.md',
      matches: 2,
      uses: 1,
      failures: 1,
      successRate: 0.5,
      lastMatch: day('2026-06-20'),
      lastUse: day('2026-06-01'),
      ageDays: 180,
    });
    expect(stats.find((s) => s.name === 'fresh')).toEqual({ name: 'fresh', path: 'skills/fresh/SKILL.md', matches: 0, uses: 0, failures: 0, ageDays: 29 });
  });

  it('proposes for the archive what is superseded, unused 90 days, or matched fewer than 2 times once 90 days old, and nothing younger', () => {
    const { prune } = auditSkills(skills, parseTrajectory(trajectory), NOW);
    expect(prune).toEqual([
      { name: 'idle', path: 'skills/idle/SKILL.md', rule: 'unused', reason: 'unused for 148 days (last used 2026-02-01)' },
      { name: 'old-way', path: 'skills/old-way/SKILL.md', rule: 'superseded', reason: 'superseded by busy' },
      { name: 'rare', path: 'skills/rare/SKILL.md', rule: 'rarely-matched', reason: 'matched 1 time in 121 days (fewer than 2)' },
    ]);
    // A day before 90 days: nothing is old enough to go.
    const young = auditSkills([skill('never', '2026-04-02')], [], NOW);
    expect(young.prune).toEqual([]);
    expect(auditSkills([skill('never', '2026-04-01')], [], NOW).prune).toEqual([
      { name: 'never', path: 'skills/never/SKILL.md', rule: 'unused', reason: 'never used in 90 days' },
    ]);
    // Thresholds come from config.
    expect(auditSkills([skill('never', '2026-06-01')], [], NOW, { unusedDays: 20, minMatches: 2 }).prune.map((p) => p.rule)).toEqual(['unused']);
  });
});
