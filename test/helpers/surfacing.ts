import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Plan } from '../../app/engine/core/spec/model.js';
import { parsePlan } from '../../app/engine/core/spec/plan.js';
import type { KnowledgeFile } from '../../app/engine/knowledge/surfacing/knowledge-index.js';
import { FIXTURES } from './paths.js';

/** The recorded knowledge store of test/fixtures/knowledge/surface/store: lessons, skills (one archived), genes (one deprecated), a signal. */
export const STORE = join(FIXTURES, 'knowledge', 'surface', 'store');
export const PLANS = join(FIXTURES, 'knowledge', 'surface', 'plans');

/** Every file of a directory, paths relative to it with forward slashes. */
export function storeFiles(dir = STORE): KnowledgeFile[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      return { path: relative(dir, path).split(sep).join('/'), text: readFileSync(path, 'utf8') };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** A recorded plan of test/fixtures/knowledge/surface/plans, parsed. */
export function fixturePlan(name: string): Plan {
  const text = readFileSync(join(PLANS, name), 'utf8');
  const parsed = parsePlan(`planning/plans/${name.slice(0, 2)}-phase/${name}`, text, name.slice(0, 2));
  if (!parsed.plan) throw new Error(`${name} does not parse: ${JSON.stringify(parsed.problems)}`);
  return parsed.plan;
}

/** A lesson file's text. */
export function lessonText(o: {
  category?: string;
  tags: string[];
  lesson: string;
  when: string;
  recommendation: string;
  confidence?: 'low' | 'medium' | 'high';
}): string {
  return [
    '---',
    `category: ${o.category ?? 'testing'}`,
    `confidence: ${o.confidence ?? 'medium'}`,
    'evidence_count: 2',
    'last_updated: 2026-03-01',
    `tags: [${o.tags.join(', ')}]`,
    '---',
    '',
    '## Lesson',
    '',
    o.lesson,
    '',
    '## When this applies',
    '',
    o.when,
    '',
    '## Recommendation',
    '',
    o.recommendation,
    '',
    '## Evidence',
    '',
    '- Signal: signals/demo/2026-03-01/2026-03-01T10-00-00Z-struggle.signal.md — it happened',
    '',
  ].join('\n');
}

/** A worker plan that writes a signed greeting, and the lesson that tells it to sign: the worker's surfacing and holdout tests share them. */
export const GREETING_PLAN = {
  id: '01-01',
  title: 'Greeting',
  checks: ['{ id: greeting, type: file_exists, path: out/greeting.txt }'],
  blocks: ['Write a greeting for new users into out/greeting.txt and sign it.'],
};

export const GREETING_LESSON = lessonText({
  category: 'workflow',
  tags: ['greeting'],
  lesson: 'Greetings that are not signed get rejected in review.',
  when: 'A plan writes a greeting, such as `out/greeting.txt`.',
  recommendation: 'End every greeting with the line "-- harness".',
});
