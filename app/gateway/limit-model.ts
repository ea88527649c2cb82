/**
 * GitHub's rate limits, one model for every client harness builds: the App (Probot's Octokit,
 * through gateway/conditional.ts), the worker on a runner and `harness mcp` (client.ts).
 *
 * GitHub's REST docs ("Rate limits for the REST API"):
 * - primary: requests an hour per token; 5,000 for an App installation and a person's token
 *   (more on Enterprise Cloud), 1,000 an hour per repository for `GITHUB_TOKEN`. What is left is
 *   in every response's `x-ratelimit-remaining`, and when it resets in `x-ratelimit-reset`
 *   (epoch seconds);
 * - secondary, "About secondary rate limits": no more than 100 concurrent requests; no more
 *   than 900 points a minute to one REST endpoint, where a GET, HEAD or OPTIONS costs 1 and a
 *   POST, PATCH, PUT or DELETE costs 5 (so 180 writes a minute to one endpoint); no more than 80
 *   content-generating requests a minute and 500 an hour. A limit hit is answered 403 or 429,
 *   with `retry-after` (seconds) or `x-ratelimit-remaining: 0` and `x-ratelimit-reset`.
 *
 * Which requests generate content, GitHub marks endpoint by endpoint: its REST reference says of
 * each "This endpoint triggers notifications. Creating content too quickly using this endpoint
 * may result in secondary rate limiting" (`x-github.triggersNotification` in its OpenAPI
 * description, which @octokit/openapi-types carries and @octokit/plugin-throttling's
 * notification group follows). Those are CONTENT: an issue, a comment, a pull request, a
 * review or review request, a merge, a release, a commit comment, a collaborator or an
 * invitation, an issue field, a sub-issue removed or reordered. harness counts three more to be
 * safe: a sub-issue added (its removal is marked), a commit made through the API (contents,
 * git commits). Every other write (a label, a dependency link, a check run, a ref, a dispatch)
 * is paced as a write: its 5 points on its endpoint.
 * "One endpoint" is taken as one route (`PATCH /repos/{owner}/{repo}/check-runs/{n}`), whatever
 * the resource: the stricter reading, since every running plan's progress goes to that route.
 *
 * The pacer keeps one process's requests inside every limit with headroom: each request waits,
 * first come first served, until every window it counts in has room, and never more than
 * CONCURRENT_SHARE are in flight. It waits out what GitHub says (`retry-after`, a primary
 * allowance about to run out until `x-ratelimit-reset`), and says each wait once, with the
 * limit and until when, to whoever listens (the App's status comment, the job log, stderr).
 */
import { HOUR_MS, realClock, type Clock } from './pacer.js';

export const MINUTE_MS = 60_000;

/** GitHub's published limits (REST docs, "Rate limits for the REST API"). */
export const GITHUB_LIMITS = {
  /** Primary: an App installation's (and a person's token's) requests an hour. */
  installationPerHour: 5_000,
  /** Primary: `GITHUB_TOKEN`'s requests an hour per repository. */
  actionsTokenPerHour: 1_000,
  concurrent: 100,
  endpointPointsPerMinute: 900,
  readPoints: 1,
  writePoints: 5,
  contentPerMinute: 80,
  contentPerHour: 500,
} as const;

/**
 * A request GitHub refused for a limit anyway (another process spent the allowance, a limit
 * harness does not model) is asked again after the wait GitHub gives, this many times at most,
 * and only when that wait is at most LONGEST_LIMIT_WAIT_MS: a runner costs minutes while it
 * waits, and a limit that resets later is better met by failing with the reason.
 */
export const LIMIT_RETRIES = 3;
export const LONGEST_LIMIT_WAIT_MS = 15 * 60_000;
/** GitHub's docs for a secondary-limit refusal with neither header: "wait for at least one minute before retrying". */
export const UNSAID_LIMIT_WAIT_MS = 60_000;

/** The share of each secondary limit one process allows itself: the rest is headroom (other processes, GitHub's own rounding). */
export const HEADROOM = 0.8;
/** Requests one process has in flight at most. */
export const CONCURRENT_SHARE = Math.floor(GITHUB_LIMITS.concurrent * HEADROOM);
/** Below this many primary requests left, a request waits for `x-ratelimit-reset` rather than spend the last ones. */
export const PRIMARY_RESERVE = 50;

/**
 * The content-generating requests: method and route (routeOf's shape). The first group is the
 * endpoints GitHub's REST description marks as triggering notifications (test/gateway/limit-model.test.ts
 * checks it against every copy of @octokit/openapi-types installed, and against
 * @octokit/plugin-throttling's list); the last three harness adds to be safe.
 */
const CONTENT: readonly (readonly [method: string, route: RegExp])[] = [
  ['POST', /^\/repos\/\{owner\}\/\{repo\}\/issues$/],
  ['POST', /^\/repos\/\{owner\}\/\{repo\}\/issues\/\{n\}\/comments$/],
  ['POST', /^\/repos\/\{owner\}\/\{repo\}\/issues\/\{n\}\/issue-field-values$/],
  ['PUT', /^\/repos\/\{owner\}\/\{repo\}\/issues\/\{n\}\/issue-field-values$/],
  ['DELETE', /^\/repos\/\{owner\}\/\{repo\}\/issues\/\{n\}\/issue-field-values\/\{n\}$/],
  ['DELETE', /^\/repos\/\{owner\}\/\{repo\}\/issues\/\{n\}\/sub_issue$/],
  ['PATCH', /^\/repos\/\{owner\}\/\{repo\}\/issues\/\{n\}\/sub_issues\/priority$/],
  ['POST', /^\/repos\/\{owner\}\/\{repo\}\/pulls$/],
  ['POST', /^\/repos\/\{owner\}\/\{repo\}\/pulls\/\{n\}\/(comments|reviews|requested_reviewers)$/],
  ['POST', /^\/repos\/\{owner\}\/\{repo\}\/pulls\/\{n\}\/comments\/\{n\}\/replies$/],
  ['PUT', /^\/repos\/\{owner\}\/\{repo\}\/pulls\/\{n\}\/merge$/],
  ['POST', /^\/repos\/\{owner\}\/\{repo\}\/releases$/],
  ['POST', /^\/repos\/\{owner\}\/\{repo\}\/commits\/[^/]+\/comments$/],
  ['PUT', /^\/repos\/\{owner\}\/\{repo\}\/collaborators\/[^/]+$/],
  ['POST', /^\/orgs\/[^/]+\/invitations$/],
  ['DELETE', /^\/orgs\/[^/]+\/invitations\/\{n\}$/],
  ['POST', /^\/(orgs\/[^/]+\/teams\/[^/]+|teams\/\{n\})\/discussions(\/\{n\}\/comments)?$/],
  // harness's own, to be safe: a sub-issue added, a commit made through the API.
  ['POST', /^\/repos\/\{owner\}\/\{repo\}\/issues\/\{n\}\/sub_issues$/],
  ['PUT', /^\/repos\/\{owner\}\/\{repo\}\/contents\/\{path\}$/],
  ['POST', /^\/repos\/\{owner\}\/\{repo\}\/git\/commits$/],
];

export interface RequestClass {
  /** The endpoint its points count on: the method and the route, ids and names in braces. */
  endpoint: string;
  /** 1 for a read, 5 for a write. */
  points: number;
  write: boolean;
  content: boolean;
}

/** `/repos/o/r/issues/12/labels/status%3Aready?x=1` → `/repos/{owner}/{repo}/issues/{n}/labels/{name}`. */
export function routeOf(url: string): string {
  const path = url
    .replace(/^https?:\/\/[^/]+/, '')
    .replace(/^\/api\/v3(?=\/)/, '')
    .replace(/[?#].*$/, '');
  return (
    path
      .replace(/^\/repos\/[^/]+\/[^/]+/, '/repos/{owner}/{repo}')
      .replace(/\/[0-9a-f]{40}(?=\/|$)/g, '/{sha}')
      .replace(/\/\d+(?=\/|$)/g, '/{n}')
      .replace(/\/labels\/[^/]+$/, '/labels/{name}')
      .replace(/\/git\/(ref|refs|matching-refs)\/.+$/, '/git/$1/{ref}')
      .replace(/\/contents\/.+$/, '/contents/{path}')
      .replace(/\/branches\/.+$/, '/branches/{branch}')
      // A ref may be a branch with slashes in it (`heads/harness/SPC-1/01-01`), encoded or not.
      .replace(/\/commits\/.+\/(check-runs|status|statuses)$/, '/commits/{ref}/$1')
  );
}

/** What a request counts against: its endpoint's points, and whether it generates content. */
export function classify(method: string, url: string, body?: unknown): RequestClass {
  const m = method.toUpperCase();
  const route = routeOf(url);
  if (m === 'POST' && route === '/graphql') return classifyGraphQL(body);
  const write = !['GET', 'HEAD', 'OPTIONS'].includes(m);
  const content = CONTENT.some(([cm, p]) => cm === m && p.test(route));
  return { endpoint: `${m} ${route}`, points: write ? GITHUB_LIMITS.writePoints : GITHUB_LIMITS.readPoints, write, content };
}

/**
 * The GraphQL mutations that generate content, as their REST twins do (CONTENT): an issue, a
 * comment, a pull request, a review, a merge; and a sub-issue added, which harness counts to be
 * safe as it counts REST's.
 */
const CONTENT_MUTATIONS = /\b(createIssue|addComment|createPullRequest|addPullRequestReview|submitPullRequestReview|mergePullRequest|addSubIssue)\s*\(/;

/**
 * A GraphQL request (POST /graphql), by its document: a query reads (1 point, as GitHub's
 * secondary limits count a GraphQL query), a mutation writes (5), and one that creates content
 * counts as content. GitHub's GraphQL API has its own primary allowance; harness counts it with
 * REST's, the stricter reading.
 */
function classifyGraphQL(body: unknown): RequestClass {
  const query = typeof body === 'string' ? body : String((body as { query?: unknown } | undefined)?.query ?? '');
  // A document it cannot see is taken for a write, the stricter reading.
  const write = query.trim() === '' || /^\s*mutation\b/.test(query);
  return {
    endpoint: 'POST /graphql',
    points: write ? GITHUB_LIMITS.writePoints : GITHUB_LIMITS.readPoints,
    write,
    content: write && CONTENT_MUTATIONS.test(query),
  };
}

export type LimitName = 'primary' | 'endpoint' | 'content per minute' | 'content per hour' | 'concurrency' | 'retry-after';

/** A wait on a limit: which, on what (an endpoint), and until when (epoch ms on the pacer's clock). */
export interface LimitWait {
  limit: LimitName;
  endpoint?: string;
  until: number;
}

/** A wait said in words: "GitHub's content per hour limit: waiting until 14:05 UTC". */
export function describeWait(wait: LimitWait): string {
  const until = new Date(wait.until).toISOString().slice(11, 16);
  const what =
    wait.limit === 'retry-after'
      ? 'GitHub asked to wait (retry-after)'
      : wait.limit === 'primary'
        ? "GitHub's hourly request allowance is nearly spent"
        : `GitHub's ${wait.limit} limit${wait.endpoint ? ` on ${wait.endpoint}` : ''}`;
  return `${what}: waiting until ${until} UTC`;
}

export interface LimitPacerOptions {
  clock?: Clock;
  /**
   * Requests an hour this process keeps to, counted by itself (the App's share of its
   * installation's 5,000: HARNESS_APP_REQUESTS_PER_HOUR); 0 or left out: only what the
   * `x-ratelimit-*` headers say bounds the hour.
   */
  primaryPerHour?: number;
  /** Said once per wait. */
  onWait?: (wait: LimitWait) => void;
}

/** Times (and weights) in a rolling window, oldest first. */
class Window {
  private readonly at: number[] = [];
  private readonly weight: number[] = [];
  private sum = 0;
  constructor(
    readonly limit: number,
    readonly ms: number,
  ) {}
  used(now: number): number {
    this.prune(now);
    return this.sum;
  }
  /** When `points` more fit (now, if they do). */
  roomAt(now: number, points: number): number {
    this.prune(now);
    if (points > this.limit) throw new RangeError(`a request of ${points} points can never fit a window of ${this.limit}`);
    let sum = this.sum;
    let i = 0;
    while (sum + points > this.limit) sum -= this.weight[i++]!;
    return i === 0 ? now : this.at[i - 1]! + this.ms;
  }
  add(now: number, points: number): void {
    this.at.push(now);
    this.weight.push(points);
    this.sum += points;
  }
  empty(now: number): boolean {
    this.prune(now);
    return this.at.length === 0;
  }
  private prune(now: number): void {
    let drop = 0;
    while (drop < this.at.length && this.at[drop]! <= now - this.ms) this.sum -= this.weight[drop++]!;
    if (drop > 0) {
      this.at.splice(0, drop);
      this.weight.splice(0, drop);
    }
  }
}

export class LimitPacer {
  private readonly clock: Clock;
  private readonly hour: Window | undefined;
  private readonly endpoints = new Map<string, Window>();
  private readonly contentMinute = new Window(Math.floor(GITHUB_LIMITS.contentPerMinute * HEADROOM), MINUTE_MS);
  private readonly contentHour = new Window(Math.floor(GITHUB_LIMITS.contentPerHour * HEADROOM), HOUR_MS);
  private pausedUntil = 0;
  private pausedBy: LimitName = 'retry-after';
  private queue: Promise<void> = Promise.resolve();
  private inFlight = 0;
  private readonly slots: (() => void)[] = [];
  /** Requests that waited, and how long in all (ms). */
  readonly waited = { requests: 0, ms: 0 };
  /** The wait in progress, if a request is waiting on a limit now. */
  waiting: LimitWait | undefined;

  constructor(private readonly o: LimitPacerOptions = {}) {
    this.clock = o.clock ?? realClock;
    if (o.primaryPerHour !== undefined && (!Number.isInteger(o.primaryPerHour) || o.primaryPerHour < 0))
      throw new RangeError(`primaryPerHour is ${o.primaryPerHour}: give a whole number of requests an hour (0: none of its own)`);
    this.hour = o.primaryPerHour ? new Window(o.primaryPerHour, HOUR_MS) : undefined;
  }

  /** Requests counted in the last hour against this process's own primary share. */
  get usedThisHour(): number {
    return this.hour?.used(this.clock.now()) ?? 0;
  }

  /** Content-generating requests counted in the last hour, booked ones included. */
  get contentThisHour(): number {
    return this.contentHour.used(this.clock.now());
  }

  /** Wait for room in every limit `c` counts in, then count it. Callers are served in the order they asked. */
  take(c: RequestClass): Promise<void> {
    const turn = this.queue.then(() => this.admit(c));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Count a request made without waiting first (a conditional read GitHub did not answer 304). */
  record(c: RequestClass): void {
    const now = this.clock.now();
    this.hour?.add(now, 1);
    this.endpoint(c.endpoint).add(now, c.points);
    if (c.content) {
      this.contentMinute.add(now, 1);
      this.contentHour.add(now, 1);
    }
  }

  /**
   * Count `requests` content-generating requests another process will make under the same token
   * (the plan PR of each worker the App dispatches) in this process's hour: its later content
   * waits for them. Booked at dispatch and made when the worker ends, each falls in the hour of
   * its booking or of its making; the 20% headroom covers the ones in neither (at most one per
   * running plan). Not in the minute: when a worker ends is not known, and its one request is
   * spread among the others'.
   */
  bookContent(requests: number): void {
    const now = this.clock.now();
    for (let i = 0; i < requests; i++) this.contentHour.add(now, 1);
  }

  /** One of CONCURRENT_SHARE places in flight; call the function it gives when the request is answered. */
  async enter(): Promise<() => void> {
    if (this.inFlight >= CONCURRENT_SHARE) await new Promise<void>((resolve) => this.slots.push(resolve));
    else this.inFlight++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.slots.shift();
      if (next) next();
      else this.inFlight--;
    };
  }

  /**
   * What a response (or an error's response) says of the limits: `retry-after` pauses every
   * request that long; a primary allowance down to PRIMARY_RESERVE pauses them until
   * `x-ratelimit-reset`.
   */
  observe(headers: Record<string, string | number | undefined> | undefined): void {
    if (!headers) return;
    const now = this.clock.now();
    const after = Number(headers['retry-after']);
    if (headers['retry-after'] !== undefined && Number.isFinite(after) && after >= 0) this.pause(now + after * 1000, 'retry-after');
    const remaining = Number(headers['x-ratelimit-remaining']);
    const reset = Number(headers['x-ratelimit-reset']);
    if (
      headers['x-ratelimit-remaining'] !== undefined &&
      Number.isFinite(remaining) &&
      remaining <= PRIMARY_RESERVE &&
      Number.isFinite(reset) &&
      reset * 1000 > now
    )
      this.pause(reset * 1000, 'primary');
  }

  /**
   * A refusal for a limit (limitRefusal): heeded as observe() heeds any answer, and, when GitHub
   * named no wait, a minute. How long every request now waits, in ms.
   */
  refused(headers: Record<string, string | number | undefined> | undefined): number {
    const now = this.clock.now();
    this.observe(headers);
    if (this.pausedUntil <= now) this.pause(now + UNSAID_LIMIT_WAIT_MS, 'retry-after');
    return this.pausedUntil - now;
  }

  /** Hold every request until `until` (epoch ms on the clock). */
  pause(until: number, limit: LimitName): void {
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
    this.pausedBy = limit;
  }

  private endpoint(name: string): Window {
    let w = this.endpoints.get(name);
    if (!w) {
      this.endpoints.set(name, (w = new Window(Math.floor(GITHUB_LIMITS.endpointPointsPerMinute * HEADROOM), MINUTE_MS)));
      // Endpoints not asked for in a minute are forgotten: the map holds only the ones in use.
      if (this.endpoints.size > 200) for (const [k, v] of this.endpoints) if (v.empty(this.clock.now())) this.endpoints.delete(k);
    }
    return w;
  }

  /** The first moment `c` fits every limit, and the one that holds it longest. */
  private room(now: number, c: RequestClass): LimitWait {
    const candidates: LimitWait[] = [{ limit: this.pausedBy, until: this.pausedUntil }];
    if (this.hour) candidates.push({ limit: 'primary', until: this.hour.roomAt(now, 1) });
    candidates.push({ limit: 'endpoint', endpoint: c.endpoint, until: this.endpoint(c.endpoint).roomAt(now, c.points) });
    if (c.content) {
      candidates.push({ limit: 'content per minute', until: this.contentMinute.roomAt(now, 1) });
      candidates.push({ limit: 'content per hour', until: this.contentHour.roomAt(now, 1) });
    }
    return candidates.reduce((a, b) => (b.until > a.until ? b : a));
  }

  private async admit(c: RequestClass): Promise<void> {
    let now = this.clock.now();
    let wait = this.room(now, c);
    let said: LimitWait | undefined;
    if (wait.until > now) this.waited.requests++;
    while (wait.until > now) {
      if (!said || said.limit !== wait.limit || said.until !== wait.until) {
        said = wait;
        this.waiting = wait;
        this.o.onWait?.(wait);
      }
      this.waited.ms += wait.until - now;
      await this.clock.sleep(Math.max(wait.until - now, 1));
      now = this.clock.now();
      wait = this.room(now, c);
    }
    this.waiting = undefined;
    this.record(c);
  }
}

/**
 * Live progress that all running workers share (the worker's check run, live-check.ts). Every
 * progress write is a PATCH to one endpoint (`/check-runs/{n}`) and a request from the
 * installation's allowance: all workers together keep to half the endpoint's writes a minute
 * (90 of 180: the App's and the workers' first and final writes have the rest) and to 1,200 of an
 * installation's 5,000 requests an hour (one write every 3 s for a worker alone): at 1,000 plans on 64 slots the App's requests and the
 * workers' own (PRs, reads, final writes) take about 3,000 an hour of it (docs/github-limits.md),
 * and a limit kept with headroom needs the rest.
 */
export const PROGRESS_WRITES_PER_MINUTE = (GITHUB_LIMITS.endpointPointsPerMinute / GITHUB_LIMITS.writePoints) * 0.5;
export const PROGRESS_WRITES_PER_HOUR = 1_200;
/** A worker alone writes its progress at most this often. */
export const PROGRESS_INTERVAL_MIN_MS = 3_000;

/**
 * The fewest milliseconds between two progress writes of one worker when `sharing` workers
 * (the plans the App may have running under the same token) write theirs: 3 s alone, 24 s
 * for 8, 3.2 min for 64. First and final writes and checkpoints are never held by it.
 */
export function progressIntervalMs(sharing: number): number {
  if (!Number.isInteger(sharing) || sharing < 1) throw new RangeError(`sharing is ${sharing}: give how many workers share the token, 1 or more`);
  return Math.max(
    PROGRESS_INTERVAL_MIN_MS,
    Math.ceil((MINUTE_MS * sharing) / PROGRESS_WRITES_PER_MINUTE),
    Math.ceil((HOUR_MS * sharing) / PROGRESS_WRITES_PER_HOUR),
  );
}

/**
 * Whether an error is GitHub refusing a request for a rate limit rather than for what it asked:
 * a 429, or a 403 that says so (`retry-after`, an allowance at 0, or "rate limit" in its message:
 * "You have exceeded a secondary rate limit", "API rate limit exceeded"). A 403 for a missing
 * permission is none of these, and is never asked again.
 */
export function limitRefusal(e: unknown): boolean {
  const error = e as { status?: unknown; message?: unknown; response?: { headers?: Record<string, string | number | undefined> } } | null;
  if (error?.status === 429) return true;
  if (error?.status !== 403) return false;
  const headers = error.response?.headers ?? {};
  if (headers['retry-after'] !== undefined) return true;
  if (String(headers['x-ratelimit-remaining']) === '0') return true;
  return typeof error.message === 'string' && /\brate limit\b/i.test(error.message);
}
