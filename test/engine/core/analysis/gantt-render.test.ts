import { accessSync, constants } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import { formatRuns, type RunRecord } from '../../../../app/engine/forge/run-record.js';
import { statusComment } from '../../../../app/engine/forge/status-comment.js';
import { chromiumPath } from '../../../../app/machine/verify-browser.js';
import { ISSUE_BODY_LIMIT } from '../../../../app/gateway/limits.js';
import { mermaidBlock, renderMermaid } from '../../../../scripts/render-mermaid.js';
import { specOf, type PlanOptions } from '../../../helpers/spec.js';

/**
 * The timeline as GitHub draws it: the status comment's gantt given to Mermaid's own renderer in
 * headless Chromium (scripts/render-mermaid.ts). Every task harness writes must become a bar,
 * with its name as written, at the size of a small spec and of a 1,000-plan one. Skipped with a
 * message where no Chromium is installed, except on CI, which installs it (.ci/run).
 */

function browserMissing(): string | undefined {
  try {
    accessSync(chromiumPath(), constants.X_OK);
    return undefined;
  } catch {
    return `no Chromium at ${chromiumPath()} (apt-get install chromium, or set HARNESS_CHROMIUM)`;
  }
}
const missing = process.env.CI ? undefined : browserMissing();
if (missing) console.warn(`gantt-render: skipping: ${missing}`);

const T0 = Date.parse('2026-12-05T09:00:00Z') / 1000;
const runOf = (n: number, extra: Partial<RunRecord> = {}): RunRecord => ({
  run: `${700 + n}.1`,
  start: T0 + n * 90,
  seconds: 600,
  agent: [30, 480],
  verification: [480, 590],
  end: 'verified',
  engines: ['claude'],
  usage: { costUsd: 0.3 },
  ...extra,
});

function commentOf(plans: PlanOptions[], runs: (id: string, i: number) => RunRecord[]): string {
  const spec = loadSpec(specOf(plans)).spec!;
  const issues = new Map(
    spec.plans.map((p, i) => [
      p.id,
      {
        number: 10 + i,
        labels: ['harness:plan'],
        body: `<!-- harness:plan SPC-001/${p.id} verified=7 status=verified runs=${formatRuns({ runs: runs(p.id, i) })} -->`,
      },
    ]),
  );
  return statusComment(spec, issues, ISSUE_BODY_LIMIT);
}

const tasks = (chart: string) =>
  chart
    .split('\n')
    .filter((l) => / :(?:crit, |done, |active, )*\d{4}-/.test(l))
    .map((l) => l.slice(2, l.lastIndexOf(' :')));

describe.skipIf(missing !== undefined)('the timeline in Mermaid', () => {
  it('draws every bar of a small spec with its name: set-up, agent, verification, the waits between runs', async () => {
    const chart = mermaidBlock(
      commentOf(
        [
          { id: '01-01', title: 'Reset tokens' },
          { id: '01-02', title: '"Mail: the #1 template; short"' },
          { id: '02-01', title: 'Endpoint', dependsOn: ['01-01'] },
        ],
        (id, i) =>
          id === '01-01'
            ? [runOf(0, { end: 'checkpoint', verification: undefined }), runOf(10, { end: 'paused', verification: undefined }), runOf(20)]
            : [runOf(i)],
      ),
    )!;

    const [drawn] = await renderMermaid([chart]);

    expect(drawn!.error).toBeUndefined();
    expect(tasks(chart)).toContain('01-01 waiting for a person');
    expect(tasks(chart)).toContain("01-01 waiting for the model's usage limit");
    expect(drawn!.bars).toBe(tasks(chart).length);
    expect(tasks(chart)).toContain('01-02 Mail the 1 template short');
    // Mermaid lays the bars out by time: the same names, in its order.
    expect([...drawn!.labels].sort()).toEqual([...tasks(chart)].sort());
  });

  it('draws a 1,000-plan spec as one bar per phase', async () => {
    const plans: PlanOptions[] = Array.from({ length: 1000 }, (_, i) => ({
      id: `${String(Math.floor(i / 100) + 1).padStart(2, '0')}-${String((i % 100) + 1).padStart(2, '0')}`,
    }));
    const chart = mermaidBlock(commentOf(plans, (_, i) => [runOf(i)]))!;

    const [drawn] = await renderMermaid([chart]);

    expect(drawn!.error).toBeUndefined();
    expect(drawn!.bars).toBe(10);
    expect(drawn!.labels[0]).toBe('01 Phase (100 of 100 plans)');
  });

  it('says what Mermaid could not draw', async () => {
    const [drawn] = await renderMermaid(['gantt\n  dateFormat YYYY-MM-DD\n  a task :2026-13-45, nonsense\n']);
    expect(drawn!.bars).toBe(0);
    expect(drawn!.error).toBeDefined();
  });
});
