import { describe, expect, it } from 'vitest';
import { commandEvidence } from '../../../app/engine/core/verify/evidence.js';
import type { VerificationReport } from '../../../app/engine/core/verify/levels.js';
import { evidenceErrorLine } from '../../../app/engine/lifecycle/failure-reason.js';
import { agentErrorSignature, attemptFailure } from '../../../app/engine/lifecycle/signals.js';
import { output } from '../core/verify/telling/tool-output.js';

/** A failure's signature comes only from an error a tool's recogniser knows (telling/), never from how something exited. */

function failing(evidence: string, problems: string[] = []): VerificationReport {
  return {
    level: 'plan',
    id: '01-01',
    status: 'fail',
    results: [{ id: 'tests', type: 'tests_pass', status: 'fail', evidence, durationMs: 5 }],
    problems,
    startedAt: '',
    finishedAt: '',
  } as unknown as VerificationReport;
}

const agentError = (file: string) => ['the command exited with code 1', ...output(file)].join('\n');

describe("an agent's failure", () => {
  it('is signed by the error its output names, the same for the same error in two plans', () => {
    const orders = attemptFailure({ agentError: agentError('go/pq-undefined-table-orders.txt'), timedOut: false });
    const users = attemptFailure({ agentError: agentError('go/pq-undefined-table-users.txt'), timedOut: false });
    expect(orders).toMatchObject({ said: 'pq: relation "orders" does not exist', signature: 'pq: relation "<name>" does not exist' });
    expect(users.signature).toBe(orders.signature);
    expect(attemptFailure({ agentError: agentError('go/assert-order.txt'), timedOut: false }).signature).toBe('CreateOrder status = <n>, want <n>');
  });

  it('has no signature when its output names no error a tool prints: not FAIL, not its exit', () => {
    for (const out of [['FAIL'], ['--- FAIL: TestX (0.00s)', 'FAIL', 'FAIL\texample.com/x\t0.01s'], ['building', 'done'], []]) {
      const failure = attemptFailure({ agentError: ['the command exited with code 1', ...out].join('\n'), timedOut: false });
      expect(failure.signature).toBeUndefined();
      // What a person reads is still there.
      expect(failure.said).toBeDefined();
    }
    expect(agentErrorSignature('the command exited with code 1\n> npm test\n\n> shop@1.0.0 test\n> node -e "process.exit(3)"')).toBeUndefined();
    expect(attemptFailure({ agentError: 'step 2/3 "Migrate" failed with exit code 1', timedOut: false })).toEqual({
      kind: 'agent',
      fingerprint: 'agent:step:Migrate',
      step: 'Migrate',
      said: 'step 2/3 "Migrate" failed with exit code 1',
    });
  });
});

describe("a failing check's failure", () => {
  it("is recognised the same way as an agent's: the command's evidence names the recognised error", () => {
    const out = output('pytest/psycopg2-undefined-table-users.txt').join('\n');
    const evidence = commandEvidence('exit 1', out, '', true);
    expect(evidence).toMatch(/^exit 1\nfirst error: psycopg2\.errors\.UndefinedTable: relation "users" does not exist\noutput ends:\n/);
    const check = attemptFailure({ timedOut: false, report: failing(evidence) });
    const agent = attemptFailure({ agentError: `the command exited with code 1\n${out}`, timedOut: false });
    expect(check.signature).toBe('psycopg2.errors.UndefinedTable: relation "<name>" does not exist');
    expect(check.signature).toBe(agent.signature);
  });

  it("has no signature when the command's output names no recognised error and its verdict is only how it exited", () => {
    const evidence = commandEvidence('exit 1, expected exit 0', 'step 3 of 4 failed\nFAIL', '', true);
    expect(evidence).not.toContain('first error:');
    const failure = attemptFailure({ timedOut: false, report: failing(evidence) });
    expect(failure).toMatchObject({ kind: 'verification', checks: ['tests'], said: 'exit 1, expected exit 0: FAIL' });
    expect(failure.signature).toBeUndefined();
    expect(evidenceErrorLine('exit 2; no output')).toBeUndefined();
    expect(evidenceErrorLine('timed out after 30s and was killed; output ends:\nwaiting')).toBeUndefined();
  });

  it("keeps harness's own words about a check that ran no command, or what a verdict adds, and the level's problems", () => {
    expect(attemptFailure({ timedOut: false, report: failing('missing: src/orders.ts') }).signature).toBe('missing: src/orders.ts');
    expect(evidenceErrorLine('exit 0 but the output does not contain "ready"; output ends:\nstarting')).toBe('exit 0 but the output does not contain "ready"');
    const problems = attemptFailure({
      timedOut: false,
      report: { ...failing('x', ['phase 01 wrote outside its plans: src/x.ts']), results: [] } as VerificationReport,
    });
    expect(problems.signature).toBe('phase <n> wrote outside its plans: <name>');
  });
});
