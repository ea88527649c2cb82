import { describe, expect, it } from 'vitest';
import { findInsightLines } from '../../../app/engine/core/agents/insight-line.js';
import { parseClaudeLine } from '../../../app/engine/core/agents/claude-stream.js';
import { StreamFacts } from '../../../app/engine/core/agents/stream-facts.js';
import type { Plan } from '../../../app/engine/core/spec/model.js';
import { loadSpec } from '../../../app/engine/core/spec/load.js';
import type { VerificationReport } from '../../../app/engine/core/verify/levels.js';
import { attemptPlan } from '../../../app/engine/lifecycle/attempt-plan.js';
import { historyOf } from '../../../app/engine/lifecycle/history.js';
import {
  agentErrorLine,
  attemptFailure,
  attemptSignals,
  interruptedSignal,
  phaseCompletion,
  type AttemptRecord,
} from '../../../app/engine/lifecycle/signals.js';
import { parseKnowledge } from '../../../app/engine/knowledge/documents/parse.js';
import { renderSignal } from '../../../app/engine/knowledge/signals/signal-file.js';
import { loadTemplate } from '../../../app/machine/templates.js';
import { manualClock, memoryVerifyPorts, memoryWorkspace, recordingProgress, tableAnswers, testAgent } from '../../helpers/lifecycle.js';
import { specOf } from '../../helpers/spec.js';

/**
 * Capture at the source (engine/lifecycle/signals.ts): each type of signal from the facts that
 * give it, nothing from facts that do not, and attemptPlan's outcome carrying them.
 */

const SPEC = loadSpec(
  specOf([
    {
      id: '01-01',
      title: 'SQLite store',
      filesModified: ['src/store/sqlite-store.ts', 'migrations/**'],
      mustPass: 'must_pass:\n  - { id: tests, type: tests_pass, command: "npm test" }\n  - { id: schema, type: file_exists, path: migrations/001.sql }',
    },
    { id: '01-02', title: 'HTTP routes', filesModified: ['src/http/**'] },
  ]),
).spec!;
const PLAN = SPEC.planById.get('01-01')!;

function record(over: Partial<AttemptRecord> = {}): AttemptRecord {
  return { spec: 'SPC-042', plan: PLAN, agent: 'claude', attempt: 1, failedBefore: 0, end: 'verified', timedOut: false, undeclaredWrites: [], ...over };
}

function report(failed: string[]): VerificationReport {
  return {
    level: 'plan',
    id: '01-01',
    status: failed.length > 0 ? 'fail' : 'pass',
    results: ['tests', 'schema'].map((id) => ({
      id,
      type: id === 'tests' ? 'tests_pass' : 'file_exists',
      status: failed.includes(id) ? 'fail' : 'pass',
      evidence: `${id} evidence`,
      durationMs: 5,
    })),
    problems: [],
    startedAt: '',
    finishedAt: '',
  } as VerificationReport;
}

const types = (r: AttemptRecord) => attemptSignals(r).map((s) => s.type);

describe("signals from an attempt's facts", () => {
  it('a first attempt that passed cleanly gives none', () => {
    expect(attemptSignals(record())).toEqual([]);
  });

  it('deviation: files written outside files_modified, tagged by those files', () => {
    const [s] = attemptSignals(
      record({
        undeclaredWrites: [{ description: 'd', reason: 'Not declared in the plan.', impact: 'medium', files: ['src/http/routes.ts', 'package.json'] }],
      }),
    );
    expect(s).toMatchObject({
      type: 'deviation',
      severity: 'medium',
      spec: 'SPC-042',
      phase: '01',
      plan: '01-01',
      agent: 'claude',
      metadata: { attempt: 1, files: ['src/http/routes.ts', 'package.json'] },
    });
    expect(s!.tags).toEqual(expect.arrayContaining(['npm', 'http', 'routes']));
    expect(s!.happened).toContain('changed 2 files outside its files_modified: `src/http/routes.ts`, `package.json`');
  });

  it('struggle: an attempt that failed, with how (the failing checks), which reflection clusters on', () => {
    const failure = attemptFailure({ timedOut: false, report: report(['tests']) });
    const [s] = attemptSignals(record({ end: 'failed', failure, reason: 'plan 01-01 did not pass verification: 1 check failed: tests (npm test exited 1)' }));
    // The failing check's telling line, and its signature: what reflection groups by and a retry is matched on.
    expect(failure).toEqual({ kind: 'verification', fingerprint: 'checks:tests', checks: ['tests'], said: 'tests evidence', signature: 'tests evidence' });
    expect(s).toMatchObject({
      type: 'struggle',
      severity: 'medium',
      metadata: { attempt: 1, outcome: 'failed', failure: 'checks:tests', checks: ['tests'], signature: 'tests evidence' },
    });
    expect(s!.happened).toMatch(/^Attempt 1 at plan 01-01 \(SQLite store\) of SPC-042 failed: check tests failed\.\n\nplan 01-01 did not pass/);
    // Tagged by the failing check's command and the plan's files.
    expect(s!.tags).toEqual(expect.arrayContaining(['testing', 'npm', 'migrations', 'sqlite']));
  });

  it('stuck: the same failing check (or step) as the attempt before', () => {
    const failure = attemptFailure({ agentError: 'step 2/3 "Run the migration" failed with exit code 1 (log: /tmp/x/step-2.log)', timedOut: false });
    expect(failure).toEqual({
      kind: 'agent',
      fingerprint: 'agent:step:Run the migration',
      step: 'Run the migration',
      said: 'step 2/3 "Run the migration" failed with exit code 1 (log: /tmp/x/step-2.log)',
      // How a step ended names no error a tool's recogniser knows: no signature, the step is the fingerprint.
    });
    const r = record({ end: 'failed', failure, attempt: 2, failedBefore: 1, previous: { attempt: 1, failure } });
    expect(types(r)).toEqual(['stuck']);
    expect(attemptSignals(r)[0]).toMatchObject({ severity: 'high', metadata: { attempt: 2, outcome: 'failed', previous: 1, step: 'Run the migration' } });
    // Failing differently is not being stuck.
    expect(types({ ...r, previous: { attempt: 1, failure: attemptFailure({ timedOut: false, report: report(['schema']) }) } })).toEqual(['struggle']);
  });

  it('an agent error fails the same way however its numbers and paths differ', () => {
    const a = attemptFailure({ agentError: 'claude reported an error (3 turns, $0.04): overloaded at /tmp/run-1/x.ts:12', timedOut: false });
    const b = attemptFailure({ agentError: 'claude reported an error (7 turns, $0.19): overloaded at /tmp/run-2/y.ts:40', timedOut: false });
    expect(a.fingerprint).toBe(b.fingerprint);
  });

  it("an agent's failure is told by its own words: the line of its output that names the error, not how it exited", () => {
    const a = attemptFailure({
      agentError: 'the command exited with code 1\n> vitest run\nRUN v4\nError: SQLITE_BUSY: database is locked (tests/a.db)\n  at open (db.ts:3)',
      timedOut: false,
    });
    const b = attemptFailure({
      agentError: 'the command exited with code 1\n> vitest run\nError: ENOENT: no such file or directory, open fixtures/x.json',
      timedOut: false,
    });
    expect(a).toEqual({
      kind: 'agent',
      fingerprint: 'agent:error: sqlite_busy: database is locked (tests<path>',
      said: 'Error: SQLITE_BUSY: database is locked (tests/a.db)',
      signature: 'Error: SQLITE_BUSY: database is locked (tests/a.db)',
    });
    // Two failures that exit alike but say different things are not the same failure.
    expect(b.fingerprint).not.toBe(a.fingerprint);
    // With no error named, the output's last line; with no output, the one line there is.
    expect(agentErrorLine('the command exited with code 2\nbuilding\ndone in 3s')).toBe('done in 3s');
    expect(agentErrorLine('claude ended: max turns (40) reached')).toBe('claude ended: max turns (40) reached');
    // An error code counts in capitals only: a token's prefix is not one.
    expect(agentErrorLine('the command exited with code 1\nconnecting with ghp_abc123\nSQLITE_BUSY while opening tests/x.db')).toBe(
      'SQLITE_BUSY while opening tests/x.db',
    );
    const [s] = attemptSignals(record({ end: 'failed', failure: a, reason: 'the command agent failed: the command exited with code 1' }));
    expect(s!.happened).toMatch(
      /^Attempt 1 at plan 01-01 \(SQLite store\) of SPC-042 failed: the agent failed: "Error: SQLITE_BUSY: database is locked \(tests\/a\.db\)"\./,
    );
    expect(s!.metadata).toMatchObject({ said: 'Error: SQLITE_BUSY: database is locked (tests/a.db)' });
  });

  it("timeout: the plan's timeout_minutes stopped it", () => {
    const failure = attemptFailure({ agentError: 'step 1/1 "Build" was stopped: plan 01-01 used up its timeout_minutes (30)', timedOut: true });
    const [s] = attemptSignals(record({ end: 'failed', failure, timedOut: true }));
    expect(s).toMatchObject({ type: 'timeout', severity: 'high', metadata: { failure: 'timeout:step:Build' } });
    expect(s!.cause).toContain('step "Build"');
  });

  it('repair: verified after failed attempts; three or more failed ones are a struggle too', () => {
    const last = attemptFailure({ timedOut: false, report: report(['tests']) });
    expect(types(record({ attempt: 2, failedBefore: 1, previous: { attempt: 1, failure: last } }))).toEqual(['repair']);
    expect(attemptSignals(record({ attempt: 2, failedBefore: 1, previous: { attempt: 1, failure: last } }))[0]).toMatchObject({
      severity: 'low',
      metadata: { outcome: 'verified', failedBefore: 1, repaired: 'checks:tests' },
    });
    expect(types(record({ attempt: 3, failedBefore: 2 }))).toEqual(['repair']);
    const hard = attemptSignals(record({ attempt: 4, failedBefore: 3 }));
    expect(hard.map((s) => [s.type, s.severity])).toEqual([
      ['repair', 'medium'],
      ['struggle', 'high'],
    ]);
  });

  it('struggle from the stream: failing tool calls and retries, not one or two errors', () => {
    expect(types(record({ seen: { insights: [], facts: { toolCalls: 20, toolErrors: 2, retries: 1 } } }))).toEqual([]);
    const [s] = attemptSignals(record({ seen: { insights: [], facts: { toolCalls: 20, toolErrors: 4, retries: 2 } } }));
    expect(s).toMatchObject({ type: 'struggle', severity: 'low', metadata: { reason: 'tool-errors', toolCalls: 20, toolErrors: 4, retries: 2 } });
    // A failed attempt's struggle already says so: one signal, not two.
    const failure = attemptFailure({ timedOut: false, report: report(['tests']) });
    expect(types(record({ end: 'failed', failure, seen: { insights: [], facts: { toolCalls: 20, toolErrors: 9, retries: 5 } } }))).toEqual(['struggle']);
  });

  it('config: the model the stream reports is not the configured one (an alias matches its full name)', () => {
    const seen = { insights: [], facts: { model: 'claude-sonnet-4-5-20250929' } };
    expect(types(record({ seen, expects: { model: 'sonnet' } }))).toEqual([]);
    const [s] = attemptSignals(record({ seen, expects: { model: 'opus' } }));
    expect(s).toMatchObject({ type: 'config', severity: 'medium', metadata: { configured: 'opus', reported: 'claude-sonnet-4-5-20250929' } });
    expect(types(record({ seen: { insights: [], agent: 'aider' } }))).toEqual(['config']);
  });

  it('innovation and pattern: what the agent reported through the protocol, tagged with its own words first', () => {
    const seen = {
      insights: [
        { kind: 'pattern' as const, summary: 'SQLite needs a busy timeout under parallel tests', tags: ['SQLite', 'busy-timeout'] },
        { kind: 'innovation' as const, summary: 'An in-memory database per test file' },
      ],
    };
    const signals = attemptSignals(record({ seen }));
    expect(signals.map((s) => [s.type, s.severity])).toEqual([
      ['pattern', 'low'],
      ['innovation', 'low'],
    ]);
    expect(signals[0]!.tags.slice(0, 2)).toEqual(['sqlite', 'busy-timeout']);
    expect(signals[0]!.happened).toBe('SQLite needs a busy timeout under parallel tests');
  });

  it('use: the plan passed with knowledge in its brief; not when it failed', () => {
    const knowledge = [
      { path: 'lessons/testing/sqlite-busy.lesson.md', kind: 'lesson' as const, title: 'SQLite busy', text: '…', score: 1, why: 'tags sqlite' },
    ];
    const [s] = attemptSignals(record({ knowledge }));
    expect(s).toMatchObject({ type: 'use', severity: 'low', metadata: { entries: ['lessons/testing/sqlite-busy.lesson.md'] } });
    expect(types(record({ knowledge, end: 'failed', failure: attemptFailure({ timedOut: false, report: report(['tests']) }) }))).toEqual(['struggle']);
  });

  it('completion: one per verified phase, summing up its plans', () => {
    const phase = SPEC.phases[0]!;
    const s = phaseCompletion({
      spec: 'SPC-042',
      phase,
      plans: SPEC.plans,
      done: [
        { id: '01-01', title: 'SQLite store', attempts: 2, minutes: 3.5 },
        { id: '01-02', title: 'HTTP routes', attempts: 1, minutes: 0 },
      ],
    });
    expect(s).toMatchObject({ type: 'completion', severity: 'low', spec: 'SPC-042', phase: '01', metadata: { plans: 2, attempts: 3, minutes: 3.5 } });
    expect(s.plan).toBeUndefined();
    expect(s.happened).toContain('- 01-01 SQLite store: 2 attempts (3.5 min)\n- 01-02 HTTP routes (<0.1 min)');
  });

  it('interrupted: a person stopped the run, with what was running', () => {
    const s = interruptedSignal({ spec: 'SPC-042', plans: [PLAN], by: 'A person (Ctrl-C)' });
    expect(s).toMatchObject({ type: 'interrupted', severity: 'medium', phase: '01', plan: '01-01', metadata: { plans: ['01-01'] } });
    expect(s.happened).toBe('A person (Ctrl-C) stopped plan 01-01 (SQLite store) of SPC-042 while it was running.');
  });

  it('every signal renders as a valid signal document', async () => {
    const template = await loadTemplate('signal.md');
    const failure = attemptFailure({ timedOut: true, agentError: 'step 1/1 "Build" was stopped' });
    const all = [
      ...attemptSignals(
        record({
          end: 'failed',
          failure,
          timedOut: true,
          attempt: 2,
          failedBefore: 1,
          previous: { attempt: 1, failure },
          undeclaredWrites: [{ description: '', reason: '', impact: 'high', files: ['a', 'b', 'c', 'd'] }],
        }),
      ),
      phaseCompletion({ spec: 'SPC-042', phase: SPEC.phases[0]!, plans: SPEC.plans, done: [] }),
      interruptedSignal({ spec: 'SPC-042', plans: SPEC.plans, by: 'A person' }),
    ];
    expect(all.map((s) => s.type)).toEqual(['timeout', 'stuck', 'deviation', 'completion', 'interrupted']);
    for (const [i, s] of all.entries()) {
      const file = renderSignal(template, s, { project: 'widgets', at: new Date('2026-03-02T09:30:00Z'), key: `0000000${i}` });
      expect(parseKnowledge('signal', file.path, file.text).problems).toEqual([]);
    }
    // A failure signal is what the next attempt learns its history from.
    const parsed = parseKnowledge('signal', 'x-stuck.signal.md', renderSignal(template, all[1]!, { project: 'w', at: new Date(), key: 'k' }).text).data!;
    expect(historyOf(parsed)).toEqual({
      attempt: 2,
      failure: { kind: 'timeout', fingerprint: 'timeout:step:Build', step: 'Build', said: 'step 1/1 "Build" was stopped' },
    });
  });
});

describe('attemptPlan carries its signals, looking back through the history port', () => {
  const plan = (): Plan => PLAN;

  async function attempt(work: 'pass' | 'fail', history?: Parameters<typeof attemptPlan>[0]['history']) {
    const clock = manualClock();
    const workspace = memoryWorkspace(clock);
    // The test agent's session_ready names it `test`: so it is called here, or that would be a config signal.
    const agent = testAgent('test', async (_context, say) => {
      await say.ready();
      workspace.commit('01-01: store', {
        'src/store/sqlite-store.ts': 'x\n',
        ...(work === 'pass' ? { 'migrations/001.sql': 'create table t (x);\n', 'migrations/settings.yml': 'journal_mode: wal\nbusy_timeout: 5000\n' } : {}),
      });
      await say.completed();
    });
    const verify = memoryVerifyPorts(workspace, clock);
    // The tests check cannot run in memory; the schema one can.
    const onlySchema = { ...plan(), mustPass: plan().mustPass.filter((c) => c.id === 'schema') };
    let asked = 0;
    const outcome = await attemptPlan(
      {
        spec: 'SPC-042',
        plan: onlySchema,
        agent: 'test',
        session: 's',
        base: 'base',
        resume: false,
        prompt: async () => '# p\n',
        env: {},
        logDir: '/logs',
        ...(history ? { history: () => (asked++, history()) } : {}),
      },
      { agent: () => agent, workspace, verifyPorts: verify.open, answers: tableAnswers(), progress: recordingProgress(), clock },
    );
    return { outcome, asked: () => asked };
  }

  it('a failed attempt: a struggle with its failure; stuck when the history says it failed the same way', async () => {
    const first = await attempt('fail');
    expect(first.outcome.signals.map((s) => [s.type, s.metadata?.attempt, s.metadata?.failure])).toEqual([['struggle', 1, 'checks:schema']]);
    // With the commit it ended on: what a later repair's diff is read from.
    expect(first.outcome.facts.failure).toEqual({
      kind: 'verification',
      fingerprint: 'checks:schema',
      checks: ['schema'],
      said: 'migrations/001.sql does not exist',
      signature: 'migrations/<n>.sql does not exist',
      head: 'c1',
    });

    const again = await attempt('fail', async () => ({ attempt: 1, failure: first.outcome.facts.failure! }));
    expect(again.outcome.signals.map((s) => [s.type, s.metadata?.attempt])).toEqual([['stuck', 2]]);
    expect(again.asked()).toBe(1);
  });

  it('a verified attempt after two failed ones: a repair, numbered from the history', async () => {
    // The failed attempt's head is not in this checkout (a branch made afresh): its diff is read from the base.
    const { outcome } = await attempt('pass', async () => ({
      attempt: 2,
      failure: { kind: 'verification', fingerprint: 'checks:schema', checks: ['schema'], head: 'gone' },
    }));
    expect(outcome.kind).toBe('verified');
    expect(outcome.signals.map((s) => [s.type, s.metadata?.attempt, s.metadata?.failedBefore])).toEqual([['repair', 3, 2]]);
    // The settings the diff adds; the SQL is no setting.
    expect((outcome.signals[0]!.metadata?.fix as { added?: unknown }).added).toEqual([
      { file: 'migrations/settings.yml', line: 'journal_mode: wal' },
      { file: 'migrations/settings.yml', line: 'busy_timeout: 5000' },
    ]);
  });
});

describe('what agents say of themselves', () => {
  it("counts tool calls, failed ones, retries of a failed call and the model from Claude's stream", () => {
    const facts = new StreamFacts();
    const lines = [
      '{"type":"system","subtype":"init","session_id":"s","model":"claude-opus-4-1"}',
      '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"1","name":"Bash","input":{"command":"npm test"}}]}}',
      '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"1","is_error":true,"content":"fail"}]}}',
      '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"2","name":"Bash","input":{"command":"npm test"}}]}}',
      '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"2","is_error":true,"content":"fail"}]}}',
      '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"3","name":"Edit","input":{"file_path":"a.ts"}}]}}',
      '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"3","content":"ok"}]}}',
    ];
    for (const line of lines) for (const event of parseClaudeLine(line)) facts.add(event);
    expect(facts.facts()).toEqual({ toolCalls: 3, toolErrors: 2, retries: 1, model: 'claude-opus-4-1' });
    expect(new StreamFacts().facts()).toBeUndefined();
  });

  it('reads HARNESS_INSIGHT lines out of a final text, and says which it could not read', () => {
    const found = findInsightLines(
      [
        'Done: the store works.',
        'HARNESS_INSIGHT {"kind":"pattern","summary":"Busy timeouts","tags":["sqlite"]}',
        '`HARNESS_INSIGHT {"kind":"innovation","summary":"Per-test databases"}`',
        'HARNESS_INSIGHT {"kind":"idea"}',
        'HARNESS_INSIGHT not json',
      ].join('\n'),
    );
    expect(found.insights).toEqual([
      { kind: 'pattern', summary: 'Busy timeouts', tags: ['sqlite'] },
      { kind: 'innovation', summary: 'Per-test databases' },
    ]);
    expect(found.problems).toHaveLength(2);
    expect(found.text).toBe('Done: the store works.');
  });
});
