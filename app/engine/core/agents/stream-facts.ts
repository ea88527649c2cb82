import type { AgentFacts } from '../protocol/messages.js';
import type { ClaudeEvent } from './claude-stream.js';

/**
 * The facts of an agent's work counted from Claude Code's stream-json as it goes: tool calls,
 * the ones that failed, the ones repeated after failing (a retry), and the model the session
 * reported. They travel to the orchestrator on task_completed / task_failed.
 */
export class StreamFacts {
  #calls = 0;
  #errors = 0;
  #retries = 0;
  #model: string | undefined;
  /** Tool-use id → the call as name and input, until its result arrives. */
  readonly #pending = new Map<string, string>();
  /** Calls (name and input) that came back as errors. */
  readonly #failed = new Set<string>();

  add(event: ClaudeEvent): void {
    switch (event.type) {
      case 'init':
        if (event.model !== undefined) this.#model = event.model;
        return;
      case 'tool_use': {
        this.#calls++;
        const call = `${event.name}\u0000${JSON.stringify(event.input)}`;
        if (this.#failed.has(call)) this.#retries++;
        this.#pending.set(event.id, call);
        return;
      }
      case 'tool_result': {
        const call = this.#pending.get(event.toolUseId);
        this.#pending.delete(event.toolUseId);
        if (!event.isError) return;
        this.#errors++;
        if (call !== undefined) this.#failed.add(call);
        return;
      }
      default:
        return;
    }
  }

  /** What was counted; undefined when the stream carried nothing to count. */
  facts(): AgentFacts | undefined {
    if (this.#calls === 0 && this.#model === undefined) return undefined;
    return { toolCalls: this.#calls, toolErrors: this.#errors, retries: this.#retries, ...(this.#model === undefined ? {} : { model: this.#model }) };
  }
}
