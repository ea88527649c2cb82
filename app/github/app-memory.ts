import type { SpecFile } from '../engine/core/spec/text.js';
import { ConditionalCache } from '../gateway/conditional.js';
import { HOUR_MS, realClock, requestsPerHour, RollingWindow, type Clock } from '../gateway/pacer.js';

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
 * - `paces`: each installation's requests in the last hour (gateway/pacer.ts), so that the App
 *   keeps under `requestsPerHour` (HARNESS_APP_REQUESTS_PER_HOUR; 0: no pacing) on its `clock`.
 */
export const appMemory = {
  reads: new ConditionalCache(),
  logins: new Map<string, Promise<string>>(),
  statusComments: new Map<string, { id: number; body: string; at: number }>(),
  paces: new Map<string, RollingWindow>(),
  /** What the secret scan found in each blob the knowledge check read (knowledge-check-run.ts): a blob never changes. */
  scannedBlobs: new Map<string, readonly { rule: string; line: number }[]>(),
  /** A large spec's files by its directory's Git tree (schedule/issue-window.ts): a tree never changes; the last few kept. */
  specTrees: new Map<string, readonly SpecFile[]>(),
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
export function paceOf(scope: string): RollingWindow | undefined {
  if (appMemory.requestsPerHour === 0) return undefined;
  let pace = appMemory.paces.get(scope);
  if (!pace) appMemory.paces.set(scope, (pace = new RollingWindow(appMemory.requestsPerHour, HOUR_MS, appMemory.clock)));
  return pace;
}

/** Forget everything (a test starting from a new App, as a restarted process does). */
export function forgetAppMemory(): void {
  appMemory.reads.clear();
  appMemory.logins.clear();
  appMemory.statusComments.clear();
  appMemory.paces.clear();
  appMemory.scannedBlobs.clear();
  appMemory.specTrees.clear();
  appMemory.clock = realClock;
}
