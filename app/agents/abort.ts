/** Waiting that an abort can cut short: a checkpoint may wait for hours, an abort must not. */

export type Raced<T> = { aborted: false; value: T } | { aborted: true; reason: string };

export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return reason === undefined ? 'aborted' : String(reason);
}

export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<Raced<T>> {
  if (signal.aborted) {
    // The losing promise may still reject later; that must not become an unhandled rejection.
    promise.catch(() => undefined);
    return Promise.resolve({ aborted: true, reason: abortReason(signal) });
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined);
      resolve({ aborted: true, reason: abortReason(signal) });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve({ aborted: false, value });
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
