import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../app/engine/core/analysis/analyze.js';
import { parseAnyDocument } from '../../../../app/engine/knowledge/documents/any-document.js';
import { statusDocument } from '../../../../app/engine/core/run/status-document.js';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import { ROOT } from '../../../helpers/paths.js';
import { specOf } from '../../../helpers/spec.js';

const template = readFileSync(join(ROOT, 'templates', 'STATUS.md'), 'utf8');

describe('STATUS.md: what the agents spent', () => {
  const spec = loadSpec(specOf([{ id: '01-01' }, { id: '01-02' }, { id: '01-03' }])).spec!;
  const snapshot = {
    spec: spec.id,
    title: spec.title,
    plans: new Map([
      ['01-01', 'verified' as const],
      ['01-02', 'failed' as const],
    ]),
    phases: new Map(),
    minutes: new Map([
      ['01-01', 4],
      ['01-02', 2],
    ]),
    reasons: new Map(),
    activity: [],
    now: new Date('2026-01-02T10:00:00Z'),
  };

  it('gives the cost per plan and in all, for the plans whose agent reported one, and reads back as a valid STATUS.md', () => {
    const text = statusDocument(template, spec, analyzeGraph(spec), {
      ...snapshot,
      costs: new Map([
        ['01-01', 0.4213],
        ['01-02', 1.1],
      ]),
    });
    const parsed = parseAnyDocument('status', 'STATUS.md', text);
    expect(parsed.problems).toEqual([]);
    expect((parsed.data as { cost?: unknown }).cost).toEqual({ total_usd: 1.52, plans: { '01-01': 0.42, '01-02': 1.1 } });
    expect(text).toContain('Cost so far: **$1.52** (01-01 $0.42, 01-02 $1.10), as the agents reported it.');
  });

  it('has a Spend section: the total, by phase, by engine and the costliest plans, with tokens, turns and attempts', () => {
    const uses = new Map([
      ['01-01', { usage: { costUsd: 0.42, turns: 12, inputTokens: 9000, outputTokens: 800 }, attempts: 1, engines: ['claude'] }],
      ['01-02', { usage: { costUsd: 1.1, turns: 30, inputTokens: 30000, outputTokens: 2000 }, attempts: 2, engines: ['claude', 'codex'] }],
    ]);
    const text = statusDocument(template, spec, analyzeGraph(spec), { ...snapshot, uses });
    const section = text.slice(text.indexOf('## Spend'), text.indexOf('## Blocked'));
    expect(section).toContain('**$1.52** in all over 2 plans and 3 attempts, as the agents reported it.');
    expect(section).toContain('| 01 | $1.52 | 42 | 39,000 | 2,800 | 3 |');
    expect(section).toContain('| 01-02 | claude → codex | $1.10 | 30 | 30,000 | 2,000 | 2 |');
    expect(parseAnyDocument('status', 'STATUS.md', text).problems).toEqual([]);
  });

  it('says nothing of cost when no agent reported one (the script agent)', () => {
    const text = statusDocument(template, spec, analyzeGraph(spec), snapshot);
    expect(text).not.toContain('cost');
    expect(text).not.toContain('Cost so far');
  });
});
