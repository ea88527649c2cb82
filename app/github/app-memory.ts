import { LRUCache } from 'lru-cache';
import type { SpecFile } from '../engine/core/spec/text.js';
import type { Context, Probot } from 'probot';
import { ConditionalCache } from '../gateway/conditional.js';
import type { LabelIds } from '../gateway/node-ids.js';
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
/**
 * Entries each of the App's remembered caches keeps at most, the least recently used going first
 * (lru-cache, the one bounded cache harness uses: docs/dependencies.md): status comments, scanned
 * blobs and small blobs by the thousand; a few specs' trees and orders, which are large.
 */
export const REMEMBERED_MAX = 5_000;
/** Orders the App keeps searched (roundOrders): a few specs' current windows. */
export const ROUND_ORDERS_KEPT = 8;
/** Spec trees and whole-spec orders the App keeps (specTrees, specOrders): a few large specs moving their windows at once. */
export const SPEC_TREES_KEPT = 4;

export class AppMemory {
  readonly reads = new ConditionalCache();
  readonly logins = new Map<string, Promise<string>>();
  readonly statusComments = new LRUCache<string, { id: number; body: string; at: number }>({ max: REMEMBERED_MAX });
  readonly paces = new Map<string, LimitPacer>();
  readonly limitWaits = new Map<string, LimitWait>();
  /** What the secret scan found in each blob the knowledge check read (knowledge-check-run.ts): a blob never changes. */
  readonly scannedBlobs = new LRUCache<string, readonly { rule: string; line: number }[]>({ max: REMEMBERED_MAX });
  /** The priorities a round starts plans by (engine/forge/round-order.ts), by what they depend on: searched once per window of issues; the last few kept. */
  readonly roundOrders = new LRUCache<string, { order?: RoundOrder }>({ max: ROUND_ORDERS_KEPT });
  /** A windowed spec's whole order (round-order.ts, specOrder) by spec, slots and tree (schedule/issue-window.ts): a tree never changes; the last few kept. */
  readonly specOrders = new LRUCache<string, { order?: SpecOrder }>({ max: SPEC_TREES_KEPT });
  /** A large spec's files by its directory's Git tree (schedule/issue-window.ts): a tree never changes; the last few kept. */
  readonly specTrees = new LRUCache<string, readonly SpecFile[]>({ max: SPEC_TREES_KEPT });
  /** Labels' GraphQL node ids per installation and repository (gateway/node-ids.ts): a status write batched in one GraphQL request names labels by them. */
  readonly labelIds = new Map<string, LabelIds>();
  /** Small blobs read through GraphQL, by installation and sha (gateway/blobs.ts): a blob never changes, so a spec read again costs nothing. */
  readonly blobs = new LRUCache<string, Uint8Array>({ max: REMEMBERED_MAX });
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
  if (!memory)
    throw new Error("a delivery's context without the App's memory: register its handler through withMemory (app/github/app.ts), not on Probot directly");
  return memory;
}
