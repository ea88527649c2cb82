/**
 * Conditional requests (GitHub's REST docs, "Best practices: use conditional requests if
 * appropriate"): a GET whose answer carried an `etag` is asked again with `If-None-Match`,
 * and GitHub answers 304 Not Modified when nothing changed, a response that does not count
 * against the rate limit. The App reads the same things delivery after delivery (a spec's
 * plan issues, page by page; `.github/harness.yml`; the spec PR's comments; a branch's head),
 * so most of those reads become free.
 *
 * The cache only ever hands back what GitHub said is still current: every read still goes to
 * GitHub, and a 304 is GitHub's word that the copy is the answer. It holds no state of its
 * own: lost (a restart), each read is a full one again. It is scoped by whoever the token
 * belongs to (an installation), so one installation is never answered with another's data,
 * and bounded (lru-cache): the least recently used entries go past `maxEntries` or `maxBytes`,
 * and an answer larger than a quarter of `maxBytes` is not kept.
 */

import { LRUCache } from 'lru-cache';
import { classify, limitRefusal, LIMIT_RETRIES, LONGEST_LIMIT_WAIT_MS, type LimitPacer } from './limit-model.js';

/** The part of an Octokit instance this needs: its `request` hook (before-after-hook). */
export interface HookedOctokit {
  hook: {
    wrap(name: 'request', wrapper: (request: (options: RequestOptions) => Promise<Response>, options: RequestOptions) => Promise<Response>): void;
  };
  request: { endpoint: { parse(options: RequestOptions): { method: string; url: string; headers?: Record<string, string | undefined>; body?: unknown } } };
}

interface RequestOptions {
  method?: string;
  url?: string;
  headers?: Record<string, string | number | undefined>;
  [key: string]: unknown;
}

interface Response {
  status: number;
  url: string;
  headers: Record<string, string | number | undefined>;
  data: unknown;
}

interface Entry {
  etag: string;
  response: Response;
  bytes: number;
}

/** Git objects by sha: `/repos/{owner}/{repo}/git/{blobs,trees,commits}/{sha}` (a tree's `?recursive=1` included). */
const IMMUTABLE = /\/repos\/[^/]+\/[^/]+\/git\/(?:blobs|trees|commits)\/[0-9a-f]{40}(?:\?recursive=1)?$/;

export interface ConditionalStats {
  /** Git objects named by their sha, read before: answered from the cache with no request (they cannot change). */
  immutable: number;
  /** Reads GitHub answered 304: served from the cache, not counted against the rate limit. */
  notModified: number;
  /** Reads answered in full (200). */
  full: number;
}

export class ConditionalCache {
  private readonly entries: LRUCache<string, Entry>;
  readonly stats: ConditionalStats = { immutable: 0, notModified: 0, full: 0 };

  constructor(
    readonly maxEntries = 5_000,
    readonly maxBytes = 64 * 1024 * 1024,
  ) {
    // An answer over a quarter of the whole is not kept: it would push out most of the rest.
    this.entries = new LRUCache<string, Entry>({ max: maxEntries, maxSize: maxBytes, maxEntrySize: maxBytes / 4, sizeCalculation: (entry) => entry.bytes });
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry, as the most recently used. */
  lookup(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  store(key: string, etag: string, response: Response): void {
    const bytes = approximateBytes(response);
    this.entries.delete(key);
    if (!Number.isFinite(bytes)) return;
    this.entries.set(key, { etag, response, bytes: Math.max(1, bytes) });
  }

  clear(): void {
    this.entries.clear();
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}

/** What an answer holds, by GitHub's `content-length` when it sent one (no second serialisation), else measured. */
function approximateBytes(response: Response): number {
  const length = Number(response.headers['content-length']);
  if (Number.isFinite(length) && length > 0) return length * 2;
  const data = response.data;
  if (typeof data === 'string') return data.length * 2;
  try {
    return JSON.stringify(data ?? null).length * 2;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function statusOf(e: unknown): number | undefined {
  const status = (e as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

const wrapped = new WeakSet<object>();

/**
 * Make every GET `octokit` sends conditional, through `cache`, for the token's owner `scope`
 * (an installation id), and keep every request within GitHub's limits through `pacer`
 * (limit-model.ts): a write or a first read waits for room before it goes, a conditional
 * read is counted after, unless GitHub answered 304; what each answer says of the limits
 * (`retry-after`, `x-ratelimit-*`) is the pacer's to heed. Once per Octokit instance: a second
 * call does nothing. A response without an `etag` passes through untouched.
 */
export function conditionalRequests(octokit: HookedOctokit, cache: ConditionalCache, scope: string, pacer?: LimitPacer): void {
  if (wrapped.has(octokit)) return;
  wrapped.add(octokit);
  octokit.hook.wrap('request', async (request, options) => {
    const parsed = octokit.request.endpoint.parse(options);
    const kind = classify(parsed.method, parsed.url, parsed.body);
    if (kind.write) return paced(pacer, kind, () => request(options));
    const key = `${scope} ${parsed.headers?.accept ?? ''} ${parsed.url}`;
    const cached = cache.lookup(key);
    // A blob, tree or commit named by its sha never changes: what was read once is the answer, with no request at all.
    if (cached && IMMUTABLE.test(parsed.url)) {
      cache.stats.immutable++;
      return structuredClone(cached.response);
    }
    // On the options object itself: before-after-hook hands the same one to every wrapper inside this one.
    if (cached) options.headers = { ...options.headers, 'if-none-match': cached.etag };
    let response: Response;
    try {
      // A conditional read is counted once GitHub answered in full: a 304 costs nothing.
      response = await paced(pacer, kind, () => request(options), cached !== undefined);
    } catch (e) {
      if (cached && statusOf(e) === 304) {
        cache.stats.notModified++;
        // A copy: a caller that changes what it was handed must not change the cache.
        return structuredClone(cached.response);
      }
      if (statusOf(e) === 404) cache.forget(key);
      throw e;
    }
    cache.stats.full++;
    const etag = response.headers.etag;
    if (typeof etag === 'string' && etag !== '' && response.status === 200) cache.store(key, etag, structuredClone(response));
    else cache.forget(key);
    return response;
  });
}

/**
 * One request through the pacer: a place among those in flight, room in every limit it counts
 * in (or, `countAfter`, counted once answered other than 304), and what its answer says of
 * the limits heeded. A request GitHub refused for a limit all the same is asked again once the
 * wait it gave is over (limitRefusal, LIMIT_RETRIES, LONGEST_LIMIT_WAIT_MS): a refused request
 * was not carried out, so sending it again cannot make a second of anything.
 */
export async function paced(
  pacer: LimitPacer | undefined,
  kind: ReturnType<typeof classify>,
  send: () => Promise<Response>,
  countAfter = false,
): Promise<Response> {
  if (!pacer) return send();
  for (let refusals = 0; ; refusals++) {
    // A request asked again waits out the refusal's pause before it goes, conditional or not.
    const after = countAfter && refusals === 0;
    const leave = await pacer.enter();
    try {
      if (!after) await pacer.take(kind);
      const response = await send();
      if (after) pacer.record(kind);
      pacer.observe(response.headers);
      return response;
    } catch (e) {
      const status = statusOf(e);
      if (after && status !== 304) pacer.record(kind);
      const headers = (e as { response?: { headers?: Record<string, string | number | undefined> } }).response?.headers;
      if (!limitRefusal(e)) {
        pacer.observe(headers);
        throw e;
      }
      const wait = pacer.refused(headers);
      if (refusals >= LIMIT_RETRIES || wait > LONGEST_LIMIT_WAIT_MS) throw e;
    } finally {
      leave();
    }
  }
}

/** Keep every request `octokit` sends within GitHub's limits through `pacer` (the worker, harness mcp): conditional reads are the App's. */
export function limitedRequests(octokit: HookedOctokit, pacer: LimitPacer): void {
  if (wrapped.has(octokit)) return;
  wrapped.add(octokit);
  octokit.hook.wrap('request', async (request, options) => {
    const parsed = octokit.request.endpoint.parse(options);
    return paced(pacer, classify(parsed.method, parsed.url, parsed.body), () => request(options));
  });
}
