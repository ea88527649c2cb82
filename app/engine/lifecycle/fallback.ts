import type { Usage } from '../core/protocol/messages.js';
import { addUsage } from '../core/run/spend.js';
import type { AttemptPorts } from './ports.js';
import { runAgent, type AgentResult, type AgentRun } from './run-agent.js';
import { usagePauseOf } from './usage-pause.js';

/** One engine's part in an attempt: what it used, and why it stopped when another took over. */
export interface EngineShare {
  agent: string;
  usage?: Usage;
  /** Why it handed the plan on: its usage limit, or (a fallback) that it could not start here. */
  stopped?: string;
}

export interface EnginesRun {
  result: AgentResult;
  /** The engine whose result this is. */
  agent: string;
  /** Every engine that worked on the attempt, in order, the last one included; one entry when no fallback ran. */
  engines: EngineShare[];
}

type AgentPorts = Parameters<typeof runAgent>[1];

/**
 * The plan's agent, and at its usage limit the fallback engines in turn (`agents.fallback`):
 * the next takes the plan over in a new session whose brief says what the earlier one committed
 * and where it stopped; its uncommitted work stays in the checkout. A fallback that cannot start
 * here (no credential: the machine's failure, `environment`) is passed over for the next. Only
 * the usage limit hands a plan on: any other failure is the plan's, as without fallbacks. When
 * every engine is at its limit or cannot start, the result is the first engine's pause, so the
 * plan waits for its reset and resumes that engine's session.
 */
export async function runEngines(
  input: AgentRun & { fallback?: readonly string[] },
  ports: AgentPorts & Pick<AttemptPorts, 'clock' | 'progress'>,
  run: typeof runAgent = runAgent,
): Promise<EnginesRun> {
  const queue = (input.fallback ?? []).filter((name) => name !== input.agent);
  let agent = input.agent;
  let result = await run(input, ports);
  const engines: EngineShare[] = [];
  let firstPause: { result: AgentResult; agent: string } | undefined;
  while (result.kind === 'failed' && queue.length > 0) {
    const pause = usagePauseOf(result, ports.clock.now());
    // A fallback that cannot start on this machine is passed over; the plan's own agent failing so is its failure.
    const cannotStart = engines.length > 0 && result.environment === true;
    if (!pause && !cannotStart) break;
    engines.push(shareOf(agent, result, pause?.reason));
    firstPause ??= pause ? { result, agent } : undefined;
    const next = queue.shift()!;
    await ports.progress.event({
      kind: 'progress',
      message: `${agent} ${pause ? "stopped at the model's usage limit" : 'could not start'}: ${next} takes the plan over (agents.fallback)`,
    });
    // Where it was: its last word before the stop (the stop itself, said again as progress, is no news).
    const stop = pause?.evidence.slice(0, 40) ?? result.error.slice(0, 40);
    const handoff = handoffNote(
      engines,
      result.seen?.recent?.findLast((line) => !line.includes(stop)),
    );
    agent = next;
    result = await run({ ...input, agent, handoff }, ports);
  }
  // Every engine at its limit, or none of the rest able to start: the plan waits for the first one's reset, and the last one stopped too.
  const lastPause = result.kind === 'failed' ? usagePauseOf(result, ports.clock.now()) : undefined;
  if (firstPause && result.kind === 'failed' && (lastPause || result.environment === true)) {
    engines.push(shareOf(agent, result, lastPause?.reason));
    return { ...firstPause, engines };
  }
  const usage = result.kind === 'checkpoint' ? undefined : result.usage;
  engines.push({ agent, ...(usage ? { usage } : {}) });
  return { result, agent, engines };
}

/** A failed engine's part: what it used, and why it handed on (its usage limit, else that it could not start). */
function shareOf(agent: string, result: Extract<AgentResult, { kind: 'failed' }>, limit: string | undefined): EngineShare {
  return { agent, ...(result.usage ? { usage: result.usage } : {}), stopped: limit ?? `could not start: ${result.error.split('\n')[0]}` };
}

/** What the engine taking over is told: who worked before it, why they stopped, and their last word. */
function handoffNote(before: readonly EngineShare[], last: string | undefined): string {
  const lines = before.map((e) => `- ${e.stopped?.startsWith(`${e.agent} `) ? e.stopped : `${e.agent}: ${e.stopped}`}`);
  return [
    'Other engines worked on this plan before you, in this order, and stopped:',
    ...lines,
    ...(last ? ['', `Where the last one was: ${JSON.stringify(last.slice(0, 500))}`] : []),
    '',
    'Their commits are on the branch (listed under Commits), and what they left uncommitted is still in the checkout. ' +
      'Review both, keep what is right, and finish the plan; do not start over.',
  ].join('\n');
}

/** What the engines of an attempt used together: turns, tokens and cost summed where each reported them. */
export function totalOf(engines: readonly EngineShare[]): Usage | undefined {
  const used = engines.flatMap((e) => (e.usage ? [e.usage] : []));
  return used.length === 0 ? undefined : used.reduce<Usage>((sum, u) => addUsage(sum, u), {});
}
