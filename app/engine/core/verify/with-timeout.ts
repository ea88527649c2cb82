import type { Clock } from '../clock.js';
import { HarnessError } from '../error.js';

/** A port that took longer than its check allows. */
export class CheckTimeoutError extends HarnessError {
  constructor(
    readonly what: string,
    readonly ms: number,
  ) {
    super(`${what} timed out after ${formatMs(ms)}`);
  }
}

export function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${Math.round(ms)} ms`;
}

/**
 * Ports promise to honour their own timeouts, but a check must never hang even when one
 * does not: this races the work against a timer. The work is not cancelled (a port cannot
 * be forced), only abandoned, so ports still need their own limits.
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string, clock: Clock): Promise<T> {
  let cancel: (() => void) | undefined;
  const timeout = new Promise<never>((_, reject) => {
    cancel = clock.after(ms, () => reject(new CheckTimeoutError(what, ms)));
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    cancel?.();
  }
}
