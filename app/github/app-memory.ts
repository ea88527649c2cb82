import { ConditionalCache } from '../gateway/conditional.js';

/**
 * What the App remembers between deliveries in one process: never state (everything the App
 * decides from lives in Git and GitHub, and a restart loses nothing but requests), only what
 * saves asking GitHub again.
 *
 * - `reads`: the answers to its GETs with their ETags, asked again conditionally (a 304 costs
 *   nothing from the installation's allowance; gateway/conditional.ts);
 * - `logins`: who each installation's token belongs to (its bot's login never changes);
 * - `statusComments`: where each spec PR's status comment is and what the App last wrote in it
 *   (spec-pr/status-comment.ts).
 */
export const appMemory = {
  reads: new ConditionalCache(),
  logins: new Map<string, Promise<string>>(),
  statusComments: new Map<string, { id: number; body: string }>(),
};

/** Forget everything (a test starting from a new App, as a restarted process does). */
export function forgetAppMemory(): void {
  appMemory.reads.clear();
  appMemory.logins.clear();
  appMemory.statusComments.clear();
}
