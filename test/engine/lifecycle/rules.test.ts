import { describe, expect, it } from 'vitest';
import { parsePlan } from '../../../app/engine/core/spec/plan.js';
import type { VerificationReport } from '../../../app/engine/core/verify/levels.js';
import { humanAnswer, humanCheckQuestion, isApproval, responseTo } from '../../../app/engine/lifecycle/answers.js';
import { agentName, assignTask } from '../../../app/engine/lifecycle/assignment.js';
import { agentFailure, verificationFailure } from '../../../app/engine/lifecycle/failure-reason.js';

const FENCE = '```';

function plan(extra: string[], body = '') {
  const text = [
    '---',
    'plan_id: "02-03"',
    'title: Login',
    'files_modified: [src/login.ts]',
    ...extra,
    'must_pass:',
    '  - { id: built, type: file_exists, path: src/login.ts }',
    '---',
    '# Login',
    '',
    body,
  ].join('\n');
  const parsed = parsePlan('planning/plans/02-auth/02-03-PLAN.md', text, '02');
  if (!parsed.plan) throw new Error(JSON.stringify(parsed.problems));
  return parsed.plan;
}

describe('agentName: who does a plan', () => {
  const withSteps = plan([], `${FENCE}sh step Build\ntouch src/login.ts\n${FENCE}`);
  const prose = plan([]);
  const named = plan(['agent: command'], `${FENCE}sh step Build\ntouch src/login.ts\n${FENCE}`);

  it("takes the person's override first, then the plan's own agent, then the repository's", () => {
    expect(agentName(named, { override: 'script', configured: 'claude' })).toBe('script');
    expect(agentName(named, { configured: 'claude' })).toBe('command');
    expect(agentName(prose, { configured: 'command' })).toBe('command');
    expect(agentName(withSteps, { configured: 'claude' })).toBe('claude');
  });

  it('with nothing configured, gives a plan of steps to the script agent and any other to claude', () => {
    expect(agentName(withSteps)).toBe('script');
    expect(agentName(prose)).toBe('claude');
    expect(agentName(withSteps, { override: undefined, configured: undefined })).toBe('script');
  });
});

describe('assignTask', () => {
  it("carries the plan's brief, checkout and timeout to the agent", () => {
    const p = plan(['timeout_minutes: 45']);
    expect(
      assignTask({ session: 's-1', spec: 'SPC-002', plan: p, resume: true, worktree: '/w', prompt: '# Login', at: new Date('2024-05-01T00:00:00Z') }),
    ).toEqual({
      type: 'assign_task',
      session: 's-1',
      at: '2024-05-01T00:00:00.000Z',
      spec: 'SPC-002',
      plan: '02-03',
      resume: true,
      worktree: '/w',
      prompt: '# Login',
      timeout_minutes: 45,
    });
  });
});

describe("a person's answers", () => {
  it('approve in the words people use, and only at the start', () => {
    for (const yes of ['yes', 'Y', 'ok', 'approve', 'Approved!', 'LGTM', 'pass', ' done ']) expect(isApproval(yes)).toBe(true);
    for (const no of ['no', 'reject', 'not ok', 'fail', 'yesterday was better', '']) expect(isApproval(no)).toBe(false);
  });

  it("reply to an agent as the checkpoint's kind needs", () => {
    const at = '2024-05-01T00:00:00.000Z';
    expect(responseTo({ id: 'db', kind: 'decision', prompt: 'Which?' }, 'postgres', 's', at)).toEqual({
      type: 'decision_made',
      session: 's',
      at,
      checkpoint: 'db',
      answer: 'postgres',
    });
    expect(responseTo({ id: 'ui', kind: 'verification', prompt: 'Good?' }, 'no, too dark', 's', at)).toEqual({
      type: 'verification_result',
      session: 's',
      at,
      checkpoint: 'ui',
      passed: false,
      details: 'no, too dark',
    });
    expect(responseTo({ id: 'dns', kind: 'action', prompt: 'Point DNS' }, 'done', 's', at)).toEqual({
      type: 'action_completed',
      session: 's',
      at,
      checkpoint: 'dns',
      note: 'done',
    });
  });

  it('make a human check a question with its own checkpoint id, and an answer a verdict', () => {
    const check = { id: 'looks', type: 'human' as const, kind: 'visual_quality' as const, prompt: 'The form is tidy' };
    expect(humanCheckQuestion({ key: '02-03/looks', check, plan: '02-03' })).toEqual({
      id: 'check-02-03/looks',
      kind: 'verification',
      prompt: 'Visual quality: The form is tidy',
      options: ['approve', 'reject'],
      source: 'looks',
    });
    expect(humanAnswer({ answer: 'reject: misaligned', by: 'ada', at: '2024-05-01T00:00:00Z' })).toEqual({
      passed: false,
      by: 'ada',
      note: 'reject: misaligned',
    });
    expect(humanAnswer({ answer: 'approve' })).toEqual({ passed: true, note: 'approve' });
  });
});

describe('failure reasons', () => {
  const report = (results: Partial<VerificationReport['results'][number]>[], problems: string[] = []): VerificationReport => ({
    level: 'plan',
    id: '02-03',
    status: 'fail',
    results: results.map((r) => ({ id: 'x', type: 'file_exists', status: 'pass', evidence: '', durationMs: 0, ...r })),
    problems,
    startedAt: '',
    finishedAt: '',
  });

  it('say which agent failed and how', () => {
    expect(agentFailure('claude', 'claude stopped at its turn limit (3 turns)')).toBe('the claude agent failed: claude stopped at its turn limit (3 turns)');
  });

  it("list each failed check with the first line of its evidence, then the level's problems", () => {
    const r = report(
      [
        { id: 'built', status: 'fail', evidence: 'src/login.ts does not exist\nlisting: src/' },
        { id: 'tests', status: 'fail', evidence: 'npm test exited 1' },
        { id: 'lint', status: 'pass', evidence: 'clean' },
      ],
      ['the server http://127.0.0.1:4000 did not stop: timed out'],
    );
    expect(verificationFailure(r)).toBe(
      'plan 02-03 did not pass verification: 2 checks failed: built (src/login.ts does not exist); tests (npm test exited 1); the server http://127.0.0.1:4000 did not stop: timed out',
    );
  });

  it('name the human checks still waiting when nothing failed, and say so when there is no reason at all', () => {
    expect(verificationFailure({ ...report([{ id: 'looks', status: 'human', plan: '02-03' }]), level: 'phase', id: '02' })).toBe(
      'phase 02 did not pass verification: 1 human check not approved: 02-03/looks',
    );
    expect(verificationFailure(report([]))).toBe('plan 02-03 did not pass verification: no reason given');
  });
});
