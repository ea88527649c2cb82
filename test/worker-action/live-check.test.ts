import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CheckRun, CheckRunUpdate, NewCheckRun } from '../../app/gateway/check-runs.js';
import { LiveCheck, type CheckForge } from '../../app/worker-action/live-check.js';
import { testLog } from '../helpers/worker-github.js';

/** A forge that keeps the writes, with the time of each (fake timers' clock). */
function recordingForge(existing: CheckRun[] = []) {
  const writes: { at: number; kind: 'create' | 'update'; id?: number; body: NewCheckRun | CheckRunUpdate }[] = [];
  const forge: CheckForge = {
    checkRuns: () => Promise.resolve(existing),
    createCheckRun: (run) => {
      writes.push({ at: Date.now(), kind: 'create', body: run });
      return Promise.resolve({
        id: 77,
        name: run.name,
        headSha: run.head_sha,
        externalId: run.external_id ?? null,
        status: run.status,
        conclusion: null,
        output: { title: null, summary: null, annotationsCount: 0 },
      });
    },
    updateCheckRun: (id, update) => {
      writes.push({ at: Date.now(), kind: 'update', id, body: update });
      return Promise.resolve();
    },
  };
  return { forge, writes };
}

const options = (forge: CheckForge, owner: 'app' | 'actions' = 'actions') => ({
  forge,
  owner,
  name: 'harness / plan 01-01',
  externalId: 'SPC-007/01-01',
  log: testLog(),
  now: () => Date.now(),
});

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the live check run', () => {
  it('writes at most once per 3 s however often the agent reports, never loses the last state, and always writes the final one', async () => {
    const { forge, writes } = recordingForge();
    const live = new LiveCheck(options(forge));
    await live.start('abc123', 'SPC-007 / 01-01 Greeting');
    // 1,000 reports, one every 10 ms: 10 s of reporting.
    for (let i = 1; i <= 1000; i++) {
      live.event(i === 1 ? { kind: 'task-started', task: 1, total: 2, title: 'Write' } : { kind: 'progress', message: `step ${i}` });
      await vi.advanceTimersByTimeAsync(10);
    }
    await vi.advanceTimersByTimeAsync(3000);
    await live.finish({ conclusion: 'success', title: 'Verified', summary: 'done' });

    const progress = writes.filter((w) => w.kind === 'update' && (w.body as CheckRunUpdate).status === undefined);
    // 10 s of reporting: at most one write per 3 s of it (the last one lands after the reports end).
    expect(progress.length).toBeLessThanOrEqual(Math.ceil(10_000 / 3000));
    expect(progress.length).toBeGreaterThanOrEqual(3);
    const times = [0, ...progress.map((w) => w.at)];
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(3000);
    // The last paced write shows the last report.
    expect((progress.at(-1)!.body as CheckRunUpdate).output!.text).toContain('- step 1000');
    expect((progress.at(-1)!.body as CheckRunUpdate).output!.title).toBe('Task 1 of 2: Write');
    expect(writes[0]).toMatchObject({ kind: 'create', body: { status: 'in_progress', head_sha: 'abc123', external_id: 'SPC-007/01-01' } });
    expect(writes.at(-1)).toMatchObject({ kind: 'update', id: 77, body: { status: 'completed', conclusion: 'success', actions: [] } });
    expect(writes).toHaveLength(1 + progress.length + 1);
  });

  it('shares the limits with the plans running beside it: 64 workers write their progress at most once per 3.2 min each, within 90 a minute and 1,200 an hour together', async () => {
    const { forge, writes } = recordingForge();
    const live = new LiveCheck({ ...options(forge), sharing: 64 });
    expect(live.intervalMs).toBe(192_000);
    expect(64 * (60_000 / live.intervalMs)).toBeLessThanOrEqual(90);
    expect(64 * (3_600_000 / live.intervalMs)).toBeLessThanOrEqual(1_200);
    await live.start('abc123', 'SPC-007 / 01-01 Greeting');
    // An agent reporting every 20 s for 10 minutes.
    for (let i = 1; i <= 30; i++) {
      live.event({ kind: 'progress', message: `step ${i}` });
      await vi.advanceTimersByTimeAsync(20_000);
    }
    const progress = writes.filter((w) => w.kind === 'update');
    expect(progress.map((w) => w.at)).toEqual([192_000, 384_000, 576_000]);
    expect(new LiveCheck({ ...options(forge), sharing: 1 }).intervalMs).toBe(3_000);
    expect(() => new LiveCheck({ ...options(forge), sharing: 0 })).toThrow('sharing is 0: give how many workers share the token, 1 or more');
  });

  it("writes a checkpoint's question and its answer at once, whatever the pace", async () => {
    const { forge, writes } = recordingForge();
    const live = new LiveCheck({ ...options(forge), sharing: 64 });
    await live.start('abc123', 'SPC-007 / 01-01 Greeting');
    live.event({ kind: 'progress', message: 'step 1' });
    await vi.advanceTimersByTimeAsync(1_000);
    live.event({ kind: 'agent-waiting', checkpoint: { id: 'cp-1', kind: 'decision', prompt: 'Which database?\nPostgres or SQLite' } });
    await vi.advanceTimersByTimeAsync(0);
    expect(writes.filter((w) => w.kind === 'update').map((w) => [w.at, (w.body as CheckRunUpdate).output!.text])).toEqual([
      [1_000, expect.stringContaining('- asks (decision): Which database?')],
    ]);
    // The write it made in place of the paced one: nothing more until the interval from it has passed.
    await vi.advanceTimersByTimeAsync(200_000);
    expect(writes.filter((w) => w.kind === 'update')).toHaveLength(1);
  });

  it("once the agent finished, the title is the worker's stage, not the agent's last task", async () => {
    const { forge, writes } = recordingForge();
    const live = new LiveCheck(options(forge));
    await live.start('abc123', 'SPC-007 / 01-01 Greeting');
    live.event({ kind: 'task-started', task: 3, total: 3, title: 'Task number 3' });
    await vi.advanceTimersByTimeAsync(3_000);
    live.event({ kind: 'agent-finished' });
    await vi.advanceTimersByTimeAsync(3_000);
    live.event({ kind: 'verifying', level: 'plan' });
    await vi.advanceTimersByTimeAsync(3_000);

    expect(writes.map((w) => (w.body as { output?: { title: string } }).output?.title)).toEqual([
      'The agent is starting',
      'Task 3 of 3: Task number 3',
      'The agent finished',
      'Verifying the plan',
    ]);
  });

  it("takes over the App's unfinished check run instead of making another, and shows the final state on a pushed head too", async () => {
    const app: CheckRun = {
      id: 5,
      name: 'harness / plan 01-01',
      headSha: 'abc123',
      externalId: 'SPC-007/01-01',
      status: 'queued',
      conclusion: null,
      output: { title: 'Worker dispatched', summary: '', annotationsCount: 0 },
    };
    const { forge, writes } = recordingForge([app]);
    const live = new LiveCheck(options(forge, 'app'));
    await live.start('abc123', 'SPC-007 / 01-01 Greeting');
    live.event({ kind: 'agent-started', agent: 'claude' });
    // The final write comes before the paced one is due: the paced one is dropped.
    await live.finish(
      {
        conclusion: 'action_required',
        title: 'Waiting',
        summary: 'asks',
        actions: [{ label: 'formal', description: 'Answer: formal', identifier: 'option-1' }],
      },
      'def456',
    );
    await vi.advanceTimersByTimeAsync(10_000);

    expect(writes.map((w) => [w.kind, w.id, (w.body as { status?: string }).status])).toEqual([
      ['update', 5, 'in_progress'],
      ['update', 5, 'completed'],
      ['create', undefined, 'completed'],
    ]);
    expect(writes[2]!.body).toMatchObject({ head_sha: 'def456', conclusion: 'action_required', actions: [{ identifier: 'option-1' }] });
  });
});
