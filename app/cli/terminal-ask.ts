import { createInterface } from 'node:readline/promises';

export interface AskedCheckpoint {
  plan: string;
  prompt: string;
  options?: string[];
}

/** What the asker needs of the live area: that it stop redrawing while a question is on screen. */
export interface Holdable {
  hold(): () => void;
}

/**
 * Questions at the terminal, one at a time: two plans at checkpoints together would otherwise
 * share one input line. While a question is on screen the live area is held, so that its
 * redraw does not erase the question; `harness respond` from another terminal still answers
 * (the signal then withdraws the question).
 */
export function terminalAsker(
  area: Holdable | undefined,
  streams: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream } = { input: process.stdin, output: process.stderr },
) {
  let queue: Promise<unknown> = Promise.resolve();
  return (checkpoint: AskedCheckpoint, signal: AbortSignal): Promise<string | undefined> => {
    const turn = queue.then(() => ask(checkpoint, signal));
    queue = turn.catch(() => undefined);
    return turn;
  };

  async function ask(checkpoint: AskedCheckpoint, signal: AbortSignal): Promise<string | undefined> {
    if (signal.aborted) return undefined;
    const release = area?.hold();
    const rl = createInterface({ input: streams.input, output: streams.output, terminal: true });
    // In raw mode Ctrl-C reaches readline, not the process: passed on, it stops the run as it does elsewhere.
    rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
    try {
      const options = checkpoint.options?.length ? ` [${checkpoint.options.join('/')}]` : '';
      const answer = await rl.question(`\n? ${checkpoint.plan} asks: ${checkpoint.prompt}${options}\n> `, { signal });
      return answer.trim() || undefined;
    } catch (e) {
      if (signal.aborted) return undefined;
      throw e;
    } finally {
      rl.close();
      release?.();
    }
  }
}
