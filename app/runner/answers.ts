import type { Checkpoint } from '../engine/core/protocol/messages.js';
import type { Answers } from '../engine/lifecycle/ports.js';
import { humanCheckpointId, type GivenAnswer } from '../engine/lifecycle/answers.js';
import type { Phase } from '../engine/core/spec/model.js';
import { AttemptStoppedError } from '../engine/lifecycle/run-agent.js';
import type { RunContext } from './context.js';
import type { CheckpointRecord } from './store.js';

/**
 * Wait `ms`, or less when `signal` aborts. The abort listener goes when the timer fires: a
 * checkpoint polls every half second on one signal, and listeners left behind piled up into
 * Node's MaxListenersExceededWarning after a few seconds of waiting for a person.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Wait for a person to answer a checkpoint. The question goes to checkpoint.json; the
 * answer comes from checkpoint_response.json (`harness respond`, from any terminal, even
 * while this run is stopped) or from the run's own prompt when it has a terminal. An
 * answer already on file (given while the run was down) is taken at once.
 */
export async function awaitAnswer(ctx: RunContext, session: string, checkpoint: Checkpoint, origin: CheckpointRecord['origin']): Promise<string> {
  const { store } = ctx;
  const early = await store.readResponse(session);
  if (early && early.checkpoint === checkpoint.id) {
    await store.clearCheckpoint(session);
    return early.answer;
  }
  const record: CheckpointRecord = { ...checkpoint, plan: session, origin, askedAt: ctx.now().toISOString() };
  await store.writeCheckpoint(record);
  ctx.state.checkpoints.set(session, record);
  const isPlan = ctx.spec.planById.has(session);
  if (isPlan) ctx.schedule.setPlan(session, 'checkpoint');
  ctx.reporter.event({
    kind: 'plan-checkpoint',
    plan: session,
    checkpoint,
    respond: `harness respond ${ctx.options.specArg} ${session} <answer>${checkpoint.options?.length ? ` (one of: ${checkpoint.options.join(', ')})` : ''}`,
  });

  const done = new AbortController();
  const stop = () => done.abort();
  ctx.abort.signal.addEventListener('abort', stop, { once: true });
  try {
    const fromFile = (async () => {
      while (!done.signal.aborted) {
        const response = await store.readResponse(session);
        if (response && response.checkpoint === checkpoint.id) return response.answer;
        await sleep(ctx.options.pollMs ?? 500, done.signal);
      }
      return undefined;
    })();
    const fromPrompt = ctx.options.ask
      ? ctx.options.ask(record, done.signal).then((a) => (a === undefined ? new Promise<undefined>(() => {}) : a))
      : new Promise<undefined>(() => {});
    const answer = await Promise.race([fromFile, fromPrompt]);
    if (answer === undefined) throw new AttemptStoppedError('the run was stopped while waiting for an answer');
    await store.clearCheckpoint(session);
    ctx.state.checkpoints.delete(session);
    if (isPlan) ctx.schedule.setPlan(session, 'running');
    return answer;
  } finally {
    done.abort();
    ctx.abort.signal.removeEventListener('abort', stop);
  }
}

/**
 * The answers port of a local run: nothing is known before it is asked (an answer given while
 * the run was down is on file, and awaitAnswer takes it at once), and every question is waited for.
 */
export function localAnswers(ctx: RunContext, session: string, standing: ReadonlyMap<string, GivenAnswer> = new Map()): Answers {
  return {
    given: (id) => standing.get(id),
    ask: async (checkpoint, origin) => ({ answer: await awaitAnswer(ctx, session, checkpoint, origin === 'agent' ? 'worker' : 'verification') }),
  };
}

/**
 * The approvals a phase's plans got for their human checks, as answers the phase's own
 * verification takes without asking again: a person who approved 01-01's "looks" has
 * answered the phase's 01-01/looks too (as on GitHub, where the plan issue's answer stands).
 */
export async function planApprovals(ctx: RunContext, phase: Phase): Promise<Map<string, GivenAnswer>> {
  const approvals = new Map<string, GivenAnswer>();
  for (const plan of phase.plans) {
    const result = await ctx.store.readResult(plan);
    for (const r of result?.verification?.results ?? []) {
      if (r.type !== 'human' || r.status !== 'pass') continue;
      approvals.set(humanCheckpointId(`${plan}/${r.id}`), { answer: `approve (at plan ${plan}: ${r.evidence})` });
    }
  }
  return approvals;
}
