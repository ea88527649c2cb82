import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderTemplate } from '../../../../app/engine/core/documents/render-template.js';
import type { GeneRecord } from '../../../../app/engine/knowledge/genes/decay.js';
import { parseKnowledge } from '../../../../app/engine/knowledge/documents/parse.js';
import type { Gene } from '../../../../app/engine/knowledge/documents/schema.js';
import { appendTrajectory, trajectoryEvents } from '../../../../app/engine/knowledge/documents/trajectory.js';
import { TrajectoryStats } from '../../../../app/engine/knowledge/documents/trajectory-stats.js';
import { ROOT } from '../../../helpers/paths.js';

export const GENE_TEMPLATE = readFileSync(join(ROOT, 'templates', 'gene.md'), 'utf8');
export const CAPSULE_TEMPLATE = readFileSync(join(ROOT, 'templates', 'capsule.md'), 'utf8');
export const DAY = 86_400_000;
export const CREATED = new Date('2026-03-01T00:00:00Z');

/** A gene file as a person (or solidify) writes it, valid against its schema. */
export function geneText(fields: Partial<Gene> & { id: string }): string {
  return renderTemplate(
    GENE_TEMPLATE,
    {
      type: 'pattern',
      name: `Gene ${fields.id}`,
      description: 'Give each test worker its own SQLite file.',
      version: 1,
      status: 'candidate',
      success_rate: 0,
      usage_count: 0,
      consecutive_successes: 0,
      consecutive_failures: 0,
      created: CREATED.toISOString(),
      updated: CREATED.toISOString(),
      tags: ['sqlite'],
      ...fields,
    },
    {
      content: 'Name the database file after VITEST_POOL_ID.',
      constraints: 'Only for SQLite files.',
      when: 'Tests that share one database file.',
      history: '- created',
    },
  );
}

export function geneRecord(fields: Partial<Gene> & { id: string }): GeneRecord {
  const path = `genes/${fields.id}.gene.md`;
  const text = geneText(fields);
  const parsed = parseKnowledge('gene', path, text);
  if (!parsed.data || parsed.problems.some((p) => p.severity === 'error')) throw new Error(parsed.problems.map((p) => p.message).join('; '));
  return { path, gene: parsed.data, text };
}

/** Trajectory text of applications of `entry`: each outcome one attempt (match, and use when verified), a day apart from `from`. */
export function applications(entry: string, outcomes: readonly boolean[], from: Date, plans = outcomes.map((_, i) => `01-0${(i % 9) + 1}`)): string {
  let text: string | undefined;
  outcomes.forEach((verified, i) => {
    const events = trajectoryEvents({
      entries: [{ path: entry, kind: 'gene', title: 'g', text: 't', score: 2, why: 'tags sqlite' }],
      project: 'notes-service',
      spec: 'SPC-001',
      plan: plans[i]!,
      attempt: i + 1,
      verified,
      at: new Date(from.getTime() + i * DAY),
      origin: 'local:SPC-001:2026-03-01T00:00:00Z',
    });
    text = appendTrajectory(text, events) ?? text;
  });
  return text ?? '';
}

export function statsOf(...texts: string[]): Map<string, ReturnType<TrajectoryStats['result']> extends Map<string, infer S> ? S : never> {
  const stats = new TrajectoryStats();
  for (const t of texts) stats.addText(t);
  return stats.result();
}
