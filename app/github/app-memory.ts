import type { SpecFile } from '../engine/core/spec/text.js';
import type { Context, Probot } from 'probot';
import { ConditionalCache } from '../gateway/conditional.js';
import { LimitPacer, type LimitWait } from '../gateway/limit-model.js';
import type { RoundOrder, SpecOrder } from '../engine/forge/round-order.js';
import { realClock, requestsPerHour, type Clock } from '../gateway/pacer.js';

/**
 * What the App remembers between deliveries in one process: never state (everything the App
 * decides from lives in Git and GitHub, and a restart loses nothing but requests), only what
 * saves asking GitHub again. One is made with the App (app.ts) and handed to every delivery
 * (withMemory, memoryOf); a new one is a restarted process.
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
export class AppMemory {
  readonly reads = new ConditionalCache();
  readonly logins = new Map<string, Promise<string>>();
  readonly statusComments = new Map<string, { id: number; body: string; at: number }>();
  readonly paces = new Map<string, LimitPacer>();
  readonly limitWaits = new Map<string, LimitWait>();
  /** What the secret scan found in each blob the knowledge check read (knowledge-check-run.ts): a blob never changes. */
  readonly scannedBlobs = new Map<string, readonly { rule: string; line: number }[]>();
  /** The priorities a round starts plans by (engine/forge/round-order.ts), by what they depend on: searched once per window of issues; the last few kept. */
  readonly roundOrders = new Map<string, RoundOrder | undefined>();
  /** A windowed spec's whole order (round-order.ts, specOrder) by spec, slots and tree (schedule/issue-window.ts): a tree never changes; the last few kept. */
  readonly specOrders = new Map<string, SpecOrder | undefined>();
  /** A large spec's files by its directory's Git tree (schedule/issue-window.ts): a tree never changes; the last few kept. */
  readonly specTrees = new Map<string, readonly SpecFile[]>();
  /** Labels' GraphQL node ids per installation and repository (gateway/node-ids.ts): a status write batched in one GraphQL request names labels by them. */
  readonly labelIds = new Map<string, Map<string, string>>();
  /** Small blobs read through GraphQL, by installation and sha (gateway/blobs.ts): a blob never changes, so a spec read again costs nothing. */
  readonly blobs = new Map<string, Uint8Array>();
  readonly requestsPerHour: number;
  readonly clock: Clock;

  constructor(options: { requestsPerHour?: number; clock?: Clock } = {}) {
    this.requestsPerHour = options.requestsPerHour ?? requestsPerHour();
    this.clock = options.clock ?? realClock;
  }

  /** The pace of one installation's requests; undefined when pacing is off. */
  paceOf(scope: string): LimitPacer | undefined {
    if (this.requestsPerHour === 0) return undefined;
    let pace = this.paces.get(scope);
    if (!pace) {
      pace = new LimitPacer({ primaryPerHour: this.requestsPerHour, clock: this.clock, onWait: (wait) => this.limitWaits.set(scope, wait) });
      this.paces.set(scope, pace);
    }
    return pace;
  }

  /** The wait on a limit `scope`'s requests are in, or were in until a moment from now; undefined once it is over. */
  limitWaitOf(scope: string): LimitWait | undefined {
    const wait = this.limitWaits.get(scope);
    if (wait && wait.until <= this.clock.now()) this.limitWaits.delete(scope);
    return this.limitWaits.get(scope);
  }
}

/** Entries a remembered map keeps at most (statusComments, scannedBlobs): the least recently set go first. */
export const REMEMBERED_MAX = 5_000;

/** Set `key` in one of the App's remembered maps, as the most recent, and drop the oldest past REMEMBERED_MAX. */
export function rememberBounded<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > REMEMBERED_MAX) map.delete(map.keys().next().value!);
}

/** Each delivery's context, to the memory of the App that handles it (withMemory). */
const memories = new WeakMap<Context, AppMemory>();

/**
 * `app`, its handlers told of `memory`: each delivery's context is tied to it before the
 * handler runs, and memoryOf(context) finds it wherever the context goes. Probot makes a
 * context per handler, so this is where the App hands its memory down.
 */
export function withMemory(app: Probot, memory: AppMemory): Pick<Probot, 'on' | 'log'> {
  const on = (events: unknown, handler: (context: Context) => unknown) =>
    (app.on as (events: unknown, handler: (context: Context) => unknown) => void)(events, (context) => {
      memories.set(context, memory);
      return handler(context);
    });
  return { on: on as Probot['on'], log: app.log };
}

/** The memory of the App handling this delivery (withMemory). */
export function memoryOf(context: Context): AppMemory {
  const memory = memories.get(context);
  if (!memory) throw new Error("a delivery's context without the App's memory: register its handler through withMemory (app/github/app.ts), not on Probot directly");
  return memory;
}
