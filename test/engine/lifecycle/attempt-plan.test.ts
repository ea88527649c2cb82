import { describe, expect, it } from 'vitest';
import type { Agent, WorkerContext } from '../../../app/engine/core/agents/agent.js';
import type { Plan } from '../../../app/engine/core/spec/model.js';
import { parsePlan } from '../../../app/engine/core/spec/plan.js';
import type { GivenAnswer } from '../../../app/engine/lifecycle/answers.js';
import { attemptPlan, type AttemptInput } from '../../../app/engine/lifecycle/attempt-plan.js';
import { AttemptStoppedError } from '../../../app/engine/lifecycle/run-agent.js';
import { manualClock, memoryVerifyPorts, memoryWorkspace, recordingProgress, START, tableAnswers, testAgent } from '../../helpers/lifecycle.js';

function planOf(lines: { autonomous?: boolean; human?: boolean } = {}): Plan {
  const text = [
    '---',
    'plan_id: "01-02"',
    'title: Greeting',
    'files_modified: ["out/**"]',
    'timeout_minutes: 30',
    ...(lines.autonomous === false ? ['autonomous: false', 'checkpoints: [decision, verification]'] : []),
    'must_pass:',
    '  - { id: greeting, type: file_contains, path: out/greeting.txt, contains: hello }',
    ...(lines.human ? ['  - { id: looks, type: visual_quality, prompt: "The greeting reads well" }'] : []),
    '---',
    '# Greeting',
    '',
  ].join('\n');
  const parsed = parsePlan('planning/plans/01-core/01-02-PLAN.md', text, '01');
  if (!parsed.plan) throw new Error(`test plan does not parse: ${JSON.stringify(parsed.problems)}`);
  return parsed.plan;
}

type Workspace = ReturnType<typeof memoryWorkspace>;

interface Setup {
  plan?: Plan;
  /** The agent, given the checkout it works in. */
  agent: (workspace: Workspace) => Agent & { contexts: WorkerContext[] };
  given?: Record<string, GivenAnswer>;
  /** A person who answers at once (a runtime that can wait); none: a job on a runner. */
  person?: (question: { id: string }) => string;
  input?: Partial<AttemptInput>;
}

async function run(s: Setup) {
  const clock = manualClock();
  const workspace = memoryWorkspace(clock);
  const agent = s.agent(workspace);
  const verify = memoryVerifyPorts(workspace, clock);
  const answers = tableAnswers(s.given, s.person);
  const progress = recordingProgress();
  const asked: string[] = [];
  const outcome = await attemptPlan(
    {
      spec: 'SPC-007',
      plan: s.plan ?? planOf(),
      agent: agent.name,
      session: 'SPC-007-01-02',
      base: 'base',
      resume: false,
      prompt: async () => '# Greeting\n',
      env: { GREETING: 'hello' },
      logDir: '/logs/01-02',
      attempt: 2,
      ...s.input,
    },
    {
      agent: (name) => {
        asked.push(name);
        if (name !== agent.name) throw new Error(`unknown agent "${name}"`);
        return agent;
      },
      workspace,
      verifyPorts: verify.open,
      answers,
      progress,
      clock,
    },
  );
  return { outcome, agent, workspace, verify, answers, progress, asked };
}

/** The agent most plans get here: it writes the greeting in one task (and, if told, a file it should not). */
const greeter =
  (extra: { outside?: boolean; usage?: { turns?: number; costUsd?: number } } = {}) =>
  (workspace: Workspace) =>
    testAgent('greeter', async (context, say) => {
      await say.ready();
      await say.started(1, 1, 'Write the greeting');
      await say.progress('writing out/greeting.txt');
      workspace.commit('01-02: Write the greeting', {
        'out/greeting.txt': `${context.env.GREETING} world\n`,
        ...(extra.outside ? { 'src/elsewhere.ts': 'x\n' } : {}),
      });
      await say.completed({ summary: 'wrote the greeting', ...(extra.usage ? { usage: extra.usage } : {}) });
    });

describe('attemptPlan: an attempt that passes', () => {
  it('gives the agent its assignment, verifies its work, and returns the report, the commits and the facts', async () => {
    const { outcome, agent, progress, verify, workspace } = await run({ agent: greeter({ outside: true, usage: { turns: 4, costUsd: 0.12 } }) });

    expect(agent.contexts).toHaveLength(1);
    const [context] = agent.contexts;
    expect(context!.task).toEqual({
      type: 'assign_task',
      session: 'SPC-007-01-02',
      at: START.toISOString(),
      spec: 'SPC-007',
      plan: '01-02',
      resume: false,
      worktree: '/checkout',
      prompt: '# Greeting\n',
      timeout_minutes: 30,
    });
    expect(context).toMatchObject({ spec: 'SPC-007', base: 'base', logDir: '/logs/01-02', env: { GREETING: 'hello' } });

    expect(outcome.kind).toBe('verified');
    if (outcome.kind !== 'verified') return;
    expect(outcome.report).toMatchObject({ level: 'plan', id: '01-02', spec: 'SPC-007', status: 'pass' });
    expect(outcome.commits.map((c) => c.subject)).toEqual(['01-02: Write the greeting']);
    expect(outcome.summary).toBe('wrote the greeting');
    expect(outcome.facts).toEqual({
      attempt: 2,
      agent: 'greeter',
      timedOut: false,
      usage: { turns: 4, costUsd: 0.12 },
      undeclaredWrites: [
        {
          description: 'Changed a file outside files_modified: src/elsewhere.ts.',
          reason: 'Not declared in the plan; parallel plans are kept apart only by their declared files.',
          impact: 'medium',
          files: ['src/elsewhere.ts'],
        },
      ],
    });
    // One verification, its ports closed; the checkout asked once for its commits and changes, never for its head's date.
    expect([verify.opened(), verify.closed()]).toEqual([1, 1]);
    expect(workspace.calls).toEqual({ commits: 1, changedFiles: 1, headDate: 0 });

    expect(progress.stages).toEqual(['agent greeter: 01-02 Greeting', 'plan-level verification of 01-02']);
    expect(progress.events.map((e) => e.kind)).toEqual(['agent-started', 'task-started', 'progress', 'agent-finished', 'verifying', 'check-started', 'check']);
    expect(progress.events[1]).toEqual({ kind: 'task-started', task: 1, total: 1, title: 'Write the greeting' });
    expect(progress.messages.map((m) => m.type)).toEqual(['session_ready', 'task_started', 'progress_update', 'task_completed']);
  });

  it('reports no usage the agent did not report, and no attempt number the runtime does not count', async () => {
    const { outcome } = await run({ agent: greeter(), input: { attempt: undefined } });
    expect(outcome.facts).toEqual({ agent: 'greeter', timedOut: false, undeclaredWrites: [] });
  });

  it('only verifies when the agent finished in an earlier run of the attempt', async () => {
    const { outcome, agent, asked, progress } = await run({ agent: greeter(), input: { agentDone: true } });
    expect(asked).toEqual([]);
    expect(agent.contexts).toEqual([]);
    expect(progress.stages).toEqual(['plan-level verification of 01-02']);
    // Nothing was written, so the check fails: what was done earlier is verified like any work.
    expect(outcome).toMatchObject({
      kind: 'failed',
      reason: 'plan 01-02 did not pass verification: 1 check failed: greeting (out/greeting.txt does not exist)',
    });
  });
});

describe('attemptPlan: an attempt that fails', () => {
  it("fails with the agent's own words, verifies nothing, and keeps the time-out and the usage it reported", async () => {
    const agent = (workspace: Workspace) =>
      testAgent('script', async (_context, say) => {
        await say.ready();
        workspace.commit('01-02: Half', { 'out/half.txt': 'half\n' });
        await say.failed('step 2/2 "Wait" was stopped: plan 01-02 used up its timeout_minutes (30)', { timedOut: true, usage: { turns: 9 } });
      });
    const { outcome, progress, verify } = await run({ agent });
    expect(outcome).toMatchObject({
      kind: 'failed',
      reason: 'the script agent failed: step 2/2 "Wait" was stopped: plan 01-02 used up its timeout_minutes (30)',
      facts: { timedOut: true, usage: { turns: 9 }, undeclaredWrites: [] },
    });
    expect(outcome.commits.map((c) => c.subject)).toEqual(['01-02: Half']);
    expect(outcome.kind === 'failed' && outcome.report).toBe(undefined);
    expect(verify.opened()).toBe(0);
    expect(progress.events.at(-1)).toEqual({ kind: 'agent-failed', error: 'step 2/2 "Wait" was stopped: plan 01-02 used up its timeout_minutes (30)' });
  });

  it('fails when the agent cannot be had, throws, or ends without a word', async () => {
    const unknown = await run({ agent: greeter(), input: { agent: 'codex' } });
    expect(unknown.outcome).toMatchObject({ kind: 'failed', reason: 'the codex agent failed: unknown agent "codex"' });

    const thrown = await run({
      agent: () =>
        testAgent('claude', async () => {
          throw new Error('spawn claude ENOENT');
        }),
    });
    expect(thrown.outcome).toMatchObject({ kind: 'failed', reason: 'the claude agent failed: spawn claude ENOENT', facts: { timedOut: false } });

    const silent = await run({ agent: () => testAgent('command', async (_context, say) => say.ready()) });
    expect(silent.outcome).toMatchObject({ kind: 'failed', reason: 'the command agent failed: it ended without saying it completed' });
  });

  it('fails with every failed check and its evidence when verification does not pass', async () => {
    const agent = (workspace: Workspace) =>
      testAgent('greeter', async (_context, say) => {
        workspace.commit('01-02: Wrong greeting', { 'out/greeting.txt': 'goodbye\n' });
        await say.completed();
      });
    const { outcome } = await run({ agent });
    expect(outcome).toMatchObject({
      kind: 'failed',
      reason: 'plan 01-02 did not pass verification: 1 check failed: greeting (out/greeting.txt does not contain "hello")',
    });
    expect(outcome.kind === 'failed' && outcome.report?.status).toBe('fail');
  });

  it('stops, deciding nothing, when the runtime stops while the agent works', async () => {
    const stop = new AbortController();
    let seen: AbortSignal | undefined;
    const agent = () =>
      testAgent('greeter', async (context, say) => {
        seen = context.signal;
        stop.abort(new Error('Ctrl-C'));
        await say.failed('aborted during step 1/1: Ctrl-C');
      });
    await expect(run({ agent, input: { signal: stop.signal } })).rejects.toThrow(AttemptStoppedError);
    expect(seen?.aborted).toBe(true);
  });
});

describe('attemptPlan: checkpoints', () => {
  const decision = { id: 'storage', kind: 'decision' as const, prompt: 'Which store?\nmemory or file', options: ['memory', 'file'] };
  const asker = () => (workspace: Workspace) =>
    testAgent('script', async (_context, say) => {
      await say.ready();
      const reply = await say.ask(decision);
      if (reply.type !== 'decision_made') return say.failed(`aborted at checkpoint "storage": ${reply.type === 'abort_task' ? reply.reason : reply.type}`);
      workspace.commit('01-02: Store', { 'out/greeting.txt': `hello from ${reply.answer}\n` });
      await say.completed();
    });

  it('replies with an answer given before, without asking anyone', async () => {
    const { outcome, answers, progress } = await run({
      plan: planOf({ autonomous: false }),
      agent: asker(),
      given: { storage: { answer: 'file', by: 'ada', at: '2024-05-02T09:00:00Z' } },
    });
    expect(outcome.kind).toBe('verified');
    expect(answers.asked).toEqual([]);
    expect(progress.events).toContainEqual({ kind: 'agent-waiting', checkpoint: decision });
    expect(progress.events).toContainEqual({ kind: 'agent-answered', checkpoint: decision, answer: { answer: 'file', by: 'ada', at: '2024-05-02T09:00:00Z' } });
  });

  it('asks a person and waits where the runtime can wait', async () => {
    const { outcome, answers } = await run({ plan: planOf({ autonomous: false }), agent: asker(), person: () => 'memory' });
    expect(outcome.kind).toBe('verified');
    expect(answers.asked).toEqual([{ checkpoint: decision, origin: 'agent' }]);
  });

  it('where nobody can wait, stops the agent at the question and ends at the checkpoint with the work so far', async () => {
    let signal: AbortSignal | undefined;
    let reply: unknown;
    const agent = (workspace: Workspace) =>
      testAgent('script', async (context, say) => {
        signal = context.signal;
        workspace.commit('01-02: Prepare', { 'out/prepared.txt': 'ok\n' });
        reply = await say.ask(decision);
        await say.failed('aborted at checkpoint "storage"', { retryable: true });
      });
    const { outcome, progress, verify } = await run({ plan: planOf({ autonomous: false }), agent });
    expect(reply).toEqual({ type: 'abort_task', session: 'SPC-007-01-02', at: START.toISOString(), reason: 'waiting for an answer to checkpoint "storage"' });
    expect(signal?.aborted).toBe(true);
    expect(outcome).toMatchObject({ kind: 'checkpoint', checkpoint: decision });
    expect(outcome.commits.map((c) => c.subject)).toEqual(['01-02: Prepare']);
    expect(verify.opened()).toBe(0);
    // The agent's task_failed is the stop it was asked for, not a failure of the plan.
    expect(progress.events.map((e) => e.kind)).not.toContain('agent-failed');
  });

  it("tells an autonomous plan's agent that nobody can answer, and lets it decide", async () => {
    const agent = () =>
      testAgent('script', async (_context, say) => {
        const reply = await say.ask(decision);
        await say.failed(reply.type === 'abort_task' ? reply.reason : 'answered');
      });
    const { outcome } = await run({ agent });
    expect(outcome).toMatchObject({
      kind: 'failed',
      reason: 'the script agent failed: plan 01-02 is autonomous: true, and nobody can answer checkpoint "storage" in a run',
    });
  });

  it('replies to a verification checkpoint with whether the answer approves', async () => {
    const replies: unknown[] = [];
    const agent = (workspace: Workspace) =>
      testAgent('script', async (_context, say) => {
        replies.push(await say.ask({ id: 'colour', kind: 'verification', prompt: 'Blue enough?' }));
        replies.push(await say.ask({ id: 'deploy', kind: 'action', prompt: 'Deploy it' }));
        workspace.commit('01-02: Greeting', { 'out/greeting.txt': 'hello\n' });
        await say.completed();
      });
    await run({ plan: planOf({ autonomous: false }), agent, person: (q) => (q.id === 'colour' ? 'LGTM, ship it' : 'deployed to staging') });
    expect(replies).toEqual([
      { type: 'verification_result', session: 'SPC-007-01-02', at: START.toISOString(), checkpoint: 'colour', passed: true, details: 'LGTM, ship it' },
      { type: 'action_completed', session: 'SPC-007-01-02', at: START.toISOString(), checkpoint: 'deploy', note: 'deployed to staging' },
    ]);
  });
});

describe('attemptPlan: human checks', () => {
  const question = {
    id: 'check-looks',
    kind: 'verification',
    prompt: 'Visual quality: The greeting reads well',
    options: ['approve', 'reject'],
    source: 'looks',
  };

  it('asks a person after the machine checks pass, then verifies again with the answer', async () => {
    const { outcome, answers, verify } = await run({ plan: planOf({ human: true }), agent: greeter(), person: () => 'approve' });
    expect(answers.asked).toEqual([{ checkpoint: question, origin: 'verification' }]);
    expect(verify.opened()).toBe(2);
    expect(outcome.kind).toBe('verified');
    expect(outcome.kind === 'verified' && outcome.report.results.find((r) => r.id === 'looks')).toMatchObject({
      status: 'pass',
      evidence: 'answered pass: approve',
    });
  });

  it('fails the plan when the person rejects it', async () => {
    const { outcome } = await run({ plan: planOf({ human: true }), agent: greeter(), person: () => 'reject: too loud' });
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'plan 01-02 did not pass verification: 1 check failed: looks (answered fail: reject: too loud)' });
  });

  it('where nobody can wait, ends at the question with the report so far', async () => {
    const { outcome, answers } = await run({ plan: planOf({ human: true }), agent: greeter() });
    expect(answers.asked).toEqual([{ checkpoint: question, origin: 'verification' }]);
    expect(outcome).toMatchObject({ kind: 'checkpoint', checkpoint: question });
    expect(outcome.kind === 'checkpoint' && outcome.report?.status).toBe('human');
  });

  it('takes an approval given after the work without asking; one older than the work is of other work', async () => {
    // The greeter commits at START; the approvals are an hour after it and a day before.
    const later = await run({
      plan: planOf({ human: true }),
      agent: greeter(),
      given: { 'check-looks': { answer: 'approve', by: 'ada', at: '2024-05-01T13:00:00Z' } },
    });
    expect(later.outcome.kind).toBe('verified');
    expect(later.answers.asked).toEqual([]);
    expect(later.verify.opened()).toBe(1);
    expect(later.outcome.kind === 'verified' && later.outcome.report.results.find((r) => r.id === 'looks')?.evidence).toBe('answered pass by ada: approve');

    const stale = await run({
      plan: planOf({ human: true }),
      agent: greeter(),
      given: { 'check-looks': { answer: 'approve', by: 'ada', at: '2024-04-30T09:00:00Z' } },
    });
    expect(stale.outcome).toMatchObject({ kind: 'checkpoint', checkpoint: { id: 'check-looks' } });
    expect(stale.workspace.calls.headDate).toBe(1);
  });
});

describe("attemptPlan: the model's usage limit", () => {
  const limited =
    (error: string, extra: { timedOut?: boolean; environment?: boolean } = {}) =>
    (workspace: Workspace) =>
      testAgent('limited', async (_context, say) => {
        await say.ready();
        workspace.commit('01-02: half the greeting', { 'out/greeting.txt': 'half\n' });
        await say.failed(error, { retryable: true, usage: { turns: 3, costUsd: 0.05 }, ...extra });
      });
  const words = "codex stopped at the model's usage limit: You’ve hit your usage limit. Try again at 7:34 PM. (resets 2030-01-02T20:00:00.000Z)";

  it('pauses the attempt, for both runtimes: the reset, no failure, no signal, the usage and the commits kept', async () => {
    const history = async () => undefined;
    const { outcome, verify } = await run({ agent: limited(words), input: { history } });

    expect(outcome.kind).toBe('paused');
    if (outcome.kind !== 'paused') return;
    expect(outcome.pause).toEqual({
      resetsAt: new Date('2030-01-02T20:00:00.000Z'),
      evidence: 'You’ve hit your usage limit. Try again at 7:34 PM.',
      reason: words,
    });
    expect(outcome.signals).toEqual([]);
    expect(outcome.facts.failure).toBeUndefined();
    expect(outcome.facts.usage).toEqual({ turns: 3, costUsd: 0.05 });
    expect(outcome.commits.map((c) => c.subject)).toEqual(['01-02: half the greeting']);
    // Nothing is verified of work the agent has not finished.
    expect(verify.opened()).toBe(0);
  });

  it('is a failure when the limit words come with a time-out or a machine that could not start the agent', async () => {
    for (const extra of [{ timedOut: true }, { environment: true }]) {
      const { outcome } = await run({ agent: limited(words, extra) });
      expect(outcome.kind).toBe('failed');
    }
  });
});
