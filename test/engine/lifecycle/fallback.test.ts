import { describe, expect, it } from 'vitest';
import { runEngines } from '../../../app/engine/lifecycle/fallback.js';
import type { AgentResult, AgentRun } from '../../../app/engine/lifecycle/run-agent.js';
import { recordingProgress } from '../../helpers/lifecycle.js';

/**
 * The fallback engines (engine/lifecycle/fallback.ts) with each engine's result given: who works
 * on the attempt, in what order, and what the attempt's records say of each.
 */

const LIMIT = "codex stopped at the model's usage limit: You've hit your usage limit. Try again at 3:00 PM.";
const limited = (usage = 1): AgentResult => ({ kind: 'failed', error: LIMIT, timedOut: false, usage: { turns: usage } });
const cannotStart: AgentResult = { kind: 'failed', error: 'gemini could not authenticate: set GEMINI_API_KEY', timedOut: false, environment: true };

function engines(results: Record<string, AgentResult>) {
  const asked: string[] = [];
  const run = (input: AgentRun) => {
    asked.push(input.agent);
    return Promise.resolve(results[input.agent]!);
  };
  const ports = {
    clock: { now: () => new Date('2026-12-05T10:00:00Z'), monotonic: () => 0, after: () => () => undefined },
    progress: recordingProgress(),
  } as unknown as Parameters<typeof runEngines>[1];
  const input = { agent: 'codex', fallback: ['gemini', 'claude'] } as unknown as AgentRun & { fallback: string[] };
  return { asked, go: () => runEngines(input, ports, run) };
}

describe('fallback engines', () => {
  it('when every engine is at its limit or cannot start, pauses on the first one and records why each stopped, the last one too', async () => {
    const e = engines({ codex: limited(2), gemini: cannotStart, claude: limited(3) });
    const ran = await e.go();
    expect(e.asked).toEqual(['codex', 'gemini', 'claude']);
    expect(ran.agent).toBe('codex');
    expect(ran.result).toMatchObject({ kind: 'failed', error: LIMIT, usage: { turns: 2 } });
    expect(ran.engines.map((s) => [s.agent, s.stopped?.split(':')[0]])).toEqual([
      ['codex', "codex stopped at the model's usage limit"],
      ['gemini', 'could not start'],
      ['claude', "codex stopped at the model's usage limit"],
    ]);
  });

  it('the engine that finishes is the attempt’s, with no stop recorded for it', async () => {
    const e = engines({ codex: limited(), gemini: { kind: 'completed', usage: { turns: 4 } }, claude: limited() });
    const ran = await e.go();
    expect(e.asked).toEqual(['codex', 'gemini']);
    expect(ran.agent).toBe('gemini');
    expect(ran.engines).toEqual([
      { agent: 'codex', usage: { turns: 1 }, stopped: LIMIT.split('\n')[0] },
      { agent: 'gemini', usage: { turns: 4 } },
    ]);
  });
});
