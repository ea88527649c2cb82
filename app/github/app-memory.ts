import { ConditionalCache } from '../gateway/conditional.js';
import { LimitPacer, type LimitWait } from '../gateway/limit-model.js';
import { realClock, requestsPerHour, type Clock } from '../gateway/pacer.js';

/**
 * What the App remembers between deliveries in one process: never state (everything the App
 * decides from lives in Git and GitHub, and a restart loses nothing but requests), only what
 * saves asking GitHub again.
 *
 * - `reads`: the answers to its GETs with their ETags, asked again conditionally (a 304 costs
 *   nothing from the installation's allowance; gateway/conditional.ts);
 * - `logins`: who each installation's token belongs to (its bot's login never changes);
 * - `statusComments`: where each spec PR's status comment is, what the App last wrote in it and
 *   when (spec-pr/status-comment.ts);
 * - `scannedBlobs`: what the secret scan found in each blob the knowledge check read;
 * - `paces`: each installation's pacer (gateway/limit-model.ts): its requests in the last hour,
 *   so that the App keeps under `requestsPerHour` (HARNESS_APP_REQUESTS_PER_HOUR; 0: no pacing)
 *   on its `clock`, and within GitHub's secondary limits;
 * - `limitWaits`: the last wait on a limit each installation's requests had, and until when,
 *   which the spec PR's status comment shows while it lasts.
 */
export const appMemory = {
  reads: new ConditionalCache(),
  logins: new Map<string, Promise<string>>(),
  statusComments: new Map<string, { id: number; body: string; at: number }>(),
  paces: new Map<string, LimitPacer>(),
  limitWaits: new Map<string, LimitWait>(),
  /** What the secret scan found in each blob the knowledge check read (knowledge-check-run.ts): a blob never changes. */
  scannedBlobs: new Map<string, readonly { rule: string; line: number }[]>(),
  requestsPerHour: requestsPerHour(),
  clock: realClock as Clock,
};

/** Entries a remembered map keeps at most (statusComments, scannedBlobs): the least recently set go first. */
export const REMEMBERED_MAX = 5_000;

/** Set `key` in one of the App's remembered maps, as the most recent, and drop the oldest past REMEMBERED_MAX. */
export function rememberBounded<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBERED_MAX) map.delete(map.keys().next().value!);
}

/** The pace of one installation's requests; undefined when pacing is off. */
export function paceOf(scope: string): LimitPacer | undefined {
  if (appMemory.requestsPerHour === 0) return undefined;
  let pace = appMemory.paces.get(scope);
  if (!pace) {
    pace = new LimitPacer({ primaryPerHour: appMemory.requestsPerHour, clock: appMemory.clock, onWait: (wait) => appMemory.limitWaits.set(scope, wait) });
    appMemory.paces.set(scope, pace);
  }
  return pace;
}

/** The wait on a limit `scope`'s requests are in, or were in until a moment from now; undefined once it is over. */
export function limitWaitOf(scope: string): LimitWait | undefined {
  const wait = appMemory.limitWaits.get(scope);
  if (wait && wait.until <= appMemory.clock.now()) appMemory.limitWaits.delete(scope);
  return appMemory.limitWaits.get(scope);
}

/** Forget everything (a test starting from a new App, as a restarted process does). */
export function forgetAppMemory(): void {
  appMemory.reads.clear();
  appMemory.logins.clear();
  appMemory.statusComments.clear();
  appMemory.paces.clear();
  appMemory.limitWaits.clear();
  appMemory.scannedBlobs.clear();
  appMemory.clock = realClock;
}
