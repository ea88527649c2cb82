import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../../app/engine/core/spec/load.js';
import { statusComment } from '../../../app/engine/forge/status-comment.js';
import { formatRuns, type RunRecord } from '../../../app/engine/forge/run-record.js';
import { ISSUE_BODY_LIMIT } from '../../../app/gateway/limits.js';
import { specOf, type PlanOptions } from '../../helpers/spec.js';
import { ganttProblems } from '../core/analysis/gantt-grammar.js';

/**
 * Where the time and the money went, on the spec PR itself: the status comment draws the runs
 * each worker recorded on its plan issue (`runs=`) as a gantt and adds up their spend. A
 * newcomer reads both from the PR alone; the comment still changes only when a record does.
 */

const T0 = Date.parse('2026-12-05T09:00:00Z') / 1000;

function runOf(n: number, extra: Partial<RunRecord> = {}): RunRecord {
  return {
    run: `${500 + n}.1`,
    start: T0 + n * 60,
    seconds: 600,
    agent: [30, 480],
    verification: [480, 590],
    end: 'verified',
    engines: ['claude'],
    usage: { costUsd: 0.25 * (n + 1), turns: 10, inputTokens: 1000, outputTokens: 200 },
    ...extra,
  };
}

function issuesOf(spec: ReturnType<typeof specWith>, runs: Record<string, RunRecord[]>, statuses: Record<string, string> = {}) {
  return new Map(
    spec.plans.map((p, i) => {
      const status = statuses[p.id] ?? (runs[p.id] ? 'verified' : undefined);
      const records = `${status === undefined ? '' : status === 'verified' ? ' verified=7 status=verified' : ` status=${status}`}${runs[p.id] ? ` runs=${formatRuns({ runs: runs[p.id]! })}` : ''}`;
      return [p.id, { number: 10 + i, labels: ['harness:plan'], body: `<!-- harness:plan SPC-001/${p.id}${records} -->\nThe plan.` }];
    }),
  );
}

function specWith(plans: PlanOptions[]) {
  return loadSpec(specOf(plans)).spec!;
}

const gantt = (comment: string) => /#### Where the time went\n\n```mermaid\n([\s\S]*?)```/.exec(comment)?.[1];

describe('the status comment: where the time and the money went', () => {
  const spec = specWith([
    { id: '01-01', title: 'Reset tokens' },
    { id: '01-02', title: 'Mail template' },
    { id: '02-01', title: 'Endpoint', dependsOn: ['01-01'] },
  ]);

  it('draws every recorded run by stage, the wait for a person between runs, and adds up the spend by phase, engine and plan', () => {
    const issues = issuesOf(
      spec,
      {
        '01-01': [runOf(0, { end: 'checkpoint', verification: undefined, agent: [30, 300], seconds: 310 }), runOf(20)],
        '01-02': [runOf(1, { engines: ['codex', 'gemini'], usage: { costUsd: 1.1, turns: 4 } })],
      },
      { '02-01': 'running' },
    );

    const comment = statusComment(spec, issues, ISSUE_BODY_LIMIT);
    const chart = gantt(comment)!;

    expect(chart.split('\n').slice(4, -1)).toEqual([
      '  section 01 Phase',
      '  01-01 set-up :done, 2026-12-05T09:00:00, 2026-12-05T09:00:30',
      '  01-01 Reset tokens :crit, done, 2026-12-05T09:00:30, 2026-12-05T09:05:00',
      '  01-01 waiting for a person :done, 2026-12-05T09:05:10, 2026-12-05T09:20:00',
      '  01-01 set-up :done, 2026-12-05T09:20:00, 2026-12-05T09:20:30',
      '  01-01 Reset tokens :crit, done, 2026-12-05T09:20:30, 2026-12-05T09:28:00',
      '  01-01 verification :done, 2026-12-05T09:28:00, 2026-12-05T09:29:50',
      '  01-02 set-up :done, 2026-12-05T09:01:00, 2026-12-05T09:01:30',
      '  01-02 Mail template :done, 2026-12-05T09:01:30, 2026-12-05T09:09:00',
      '  01-02 verification :done, 2026-12-05T09:09:00, 2026-12-05T09:10:50',
    ]);
    expect(ganttProblems(chart)).toEqual([]);
    // The plan still running has no ended run: it is not drawn (the comment has no clock).
    expect(chart).not.toContain('02-01');

    expect(comment).toContain('#### Where the money went\n\n**$6.60** in all over 2 plans and 2 attempts, as the agents reported it.');
    expect(comment).toContain('| 01 | $6.60 | 24 | 2,000 | 400 | 2 |');
    // A plan a fallback took over counts under the engine that ended it.
    expect(comment).toContain('| gemini | $1.10 | 4 | — | — | 1 |');
    expect(comment).toContain('| 01-01 | claude | $5.50 | 20 | 2,000 | 400 | 1 |');
    expect(comment).toContain('| 01-02 | codex → gemini | $1.10 | 4 | — | — | 1 |');
  });

  it('says nothing of time or money before a run has ended, and reads the same for the same records (no clock)', () => {
    const none = statusComment(spec, issuesOf(spec, {}, { '01-01': 'running' }), ISSUE_BODY_LIMIT);
    expect(none).not.toContain('Where the time went');
    expect(none).not.toContain('Where the money went');

    const issues = issuesOf(spec, { '01-01': [runOf(0)] });
    expect(statusComment(spec, issues, ISSUE_BODY_LIMIT)).toBe(statusComment(spec, issuesOf(spec, { '01-01': [runOf(0)] }), ISSUE_BODY_LIMIT));
  });

  it('ignores a runs record that does not parse, and draws the plans whose record does', () => {
    const issues = issuesOf(spec, { '01-01': [runOf(0)] });
    issues.set('01-02', { number: 11, labels: ['harness:plan'], body: '<!-- harness:plan SPC-001/01-02 status=verified verified=7 runs=1:2:3,<script>:x -->' });
    const chart = gantt(statusComment(spec, issues, ISSUE_BODY_LIMIT))!;
    expect(chart).toContain('01-01 Reset tokens');
    expect(chart).not.toContain('01-02');
  });

  it("leaves out the plan table, then the graph, then the timeline, rather than go over a comment's size; the spend stays", () => {
    const issues = issuesOf(spec, { '01-01': [runOf(0)], '01-02': [runOf(1)] });
    const full = statusComment(spec, issues, ISSUE_BODY_LIMIT);
    const noTable = statusComment(spec, issues, full.length - 1);
    expect(noTable).not.toContain('| Plan | Issue | Status | Needs |');
    expect(noTable).toContain('flowchart');
    const noGraph = statusComment(spec, issues, noTable.length - 1);
    expect(noGraph).not.toContain('flowchart');
    expect(noGraph).toContain('#### Where the time went');
    const noTimeline = statusComment(spec, issues, noGraph.length - 1);
    expect(noTimeline).not.toContain('#### Where the time went');
    expect(noTimeline).toContain('#### Where the money went');
    expect(noTimeline).toContain('the timeline');
  });

  it("at 1,000 plans, each run recorded, keeps a timeline of one bar per phase within the comment and Mermaid's limits", () => {
    const plans: PlanOptions[] = Array.from({ length: 1000 }, (_, i) => ({
      id: `${String(Math.floor(i / 100) + 1).padStart(2, '0')}-${String((i % 100) + 1).padStart(2, '0')}`,
    }));
    const big = specWith(plans);
    const runs = Object.fromEntries(big.plans.map((p, i) => [p.id, [runOf(i, { run: `${9000 + i}.1` })]]));

    const comment = statusComment(big, issuesOf(big, runs), ISSUE_BODY_LIMIT);
    const chart = gantt(comment)!;

    expect(comment.length).toBeLessThanOrEqual(ISSUE_BODY_LIMIT);
    expect(chart.split('\n').filter((l) => l.includes(' plans) :'))).toHaveLength(10);
    expect(chart).toContain('  01 Phase (100 of 100 plans) :crit, done, 2026-12-05T09:00:00, 2026-12-05T10:48:50');
    expect(ganttProblems(chart)).toEqual([]);
    expect(comment).toContain('**$125125.00** in all over 1000 plans and 1000 attempts');
  });
});
