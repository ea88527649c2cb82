import { describe, expect, it } from 'vitest';
import { classify, CONCURRENT_SHARE, describeWait, LimitPacer, routeOf, type LimitWait } from '../../app/gateway/limit-model.js';
import { requestsPerHour, type Clock } from '../../app/gateway/pacer.js';
import { notificationEndpoints, sampleUrl, throttlingNotificationPaths } from '../helpers/openapi-notifications.js';

/** A clock that moves only when someone sleeps on it. */
function manualClock(start = 0): Clock & { slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

const PATCH_CHECK = classify('PATCH', '/repos/o/r/check-runs/41');
const CREATE_ISSUE = classify('POST', '/repos/o/r/issues');
const READ = classify('GET', '/repos/o/r/issues/12');

describe("how a request counts against GitHub's limits", () => {
  it('names the endpoint by its route, whatever the ids, shas and names in it', () => {
    expect(routeOf('/repos/Codertocat/Hello-World/issues/12/labels/status%3Aready?x=1')).toBe('/repos/{owner}/{repo}/issues/{n}/labels/{name}');
    expect(routeOf('https://api.github.com/repos/o/r/commits/6dcb09b5b57875f334f61aebed695e2e4193db5e/check-runs')).toBe(
      '/repos/{owner}/{repo}/commits/{ref}/check-runs',
    );
    expect(routeOf('https://ghe.example/api/v3/repos/o/r/git/refs/heads/harness/SPC-1/01-01')).toBe('/repos/{owner}/{repo}/git/refs/{ref}');
    expect(routeOf('/repos/o/r/commits/heads%2Fharness%2FSPC-1%2F01-01/check-runs?check_name=x')).toBe('/repos/{owner}/{repo}/commits/{ref}/check-runs');
    expect(routeOf('/repos/o/r/commits/heads/harness/SPC-1/01-01/check-runs')).toBe('/repos/{owner}/{repo}/commits/{ref}/check-runs');
    expect(classify('PATCH', '/repos/o/r/check-runs/41').endpoint).toBe(classify('patch', '/repos/x/y/check-runs/9').endpoint);
  });

  it('costs a read 1 point and a write 5, as GitHub counts them', () => {
    expect(READ).toEqual({ endpoint: 'GET /repos/{owner}/{repo}/issues/{n}', points: 1, write: false, content: false });
    expect(PATCH_CHECK).toEqual({ endpoint: 'PATCH /repos/{owner}/{repo}/check-runs/{n}', points: 5, write: true, content: false });
    expect(classify('DELETE', '/repos/o/r/issues/3/labels/status%3Aready')).toMatchObject({ points: 5, content: false });
  });

  it('counts as content-generating what GitHub marks so, and a sub-issue or a commit made through the API to be safe', () => {
    for (const [m, u] of [
      ['POST', '/repos/o/r/issues'],
      ['POST', '/repos/o/r/issues/3/comments'],
      ['POST', '/repos/o/r/pulls'],
      ['PUT', '/repos/o/r/pulls/4/merge'],
      ['POST', '/repos/o/r/issues/3/sub_issues'],
      ['PUT', '/repos/o/r/contents/a/b.md'],
      ['POST', '/repos/o/r/git/commits'],
    ] as const) {
      expect(classify(m, u).content, `${m} ${u}`).toBe(true);
    }
  });

  it('reads a GraphQL request by its document: a query reads, a mutation writes, and one that creates an issue or a comment is content', () => {
    expect(classify('POST', '/graphql', { query: 'query Blobs($owner: String!) { repository(owner: $owner, name: "r") { id } }' })).toEqual({
      endpoint: 'POST /graphql',
      points: 1,
      write: false,
      content: false,
    });
    expect(
      classify('POST', '/graphql', {
        query: 'mutation SetStatuses($i0: ID!) {\n  add0: addLabelsToLabelable(input: {labelableId: $i0, labelIds: []}) { clientMutationId }\n}',
      }),
    ).toEqual({ endpoint: 'POST /graphql', points: 5, write: true, content: false });
    expect(
      classify('POST', '/graphql', { query: 'mutation CreatePlanIssue($input: CreateIssueInput!) { createIssue(input: $input) { issue { number } } }' }),
    ).toMatchObject({ write: true, content: true });
    expect(classify('POST', '/graphql', { query: 'mutation { addComment(input: {subjectId: "I_1", body: "x"}) { clientMutationId } }' })).toMatchObject({
      content: true,
    });
  });

  it('paces every other write as a write on its endpoint, not as content: labels, links, check runs, refs, dispatches', () => {
    for (const [m, u] of [
      ['POST', '/repos/o/r/issues/3/labels'],
      ['DELETE', '/repos/o/r/issues/3/labels/status%3Aready'],
      ['PATCH', '/repos/o/r/issues/3'],
      ['POST', '/repos/o/r/issues/3/dependencies/blocked_by'],
      ['POST', '/repos/o/r/check-runs'],
      ['POST', '/repos/o/r/git/refs'],
      ['POST', '/repos/o/r/actions/workflows/harness-worker.yml/dispatches'],
      ['POST', '/app/installations/1/access_tokens'],
      ['POST', '/graphql'],
    ] as const) {
      expect(classify(m, u), `${m} ${u}`).toMatchObject({ content: false, write: true, points: 5 });
    }
  });

  it("counts every endpoint GitHub's REST description says triggers notifications, in every copy of @octokit/openapi-types installed", () => {
    const marked = notificationEndpoints();
    // The description has them (issues, comments, pull requests, reviews, merges, releases, ...): a parse that found none proves nothing.
    expect(marked.length).toBeGreaterThanOrEqual(15);
    expect(marked).toContainEqual(['POST', '/repos/{owner}/{repo}/issues']);
    for (const [method, path] of marked) expect(classify(method, sampleUrl(path)).content, `${method} ${path}`).toBe(true);
  });

  it('counts the writes @octokit/plugin-throttling spaces as notifications', () => {
    const paths = throttlingNotificationPaths();
    expect(paths.length).toBeGreaterThanOrEqual(15);
    for (const path of paths) {
      const url = sampleUrl(path);
      // The list names paths, not methods: the ones that create (or remove, or reorder) there.
      const writes = ['POST', 'PUT', 'DELETE', 'PATCH'].filter((m) => classify(m, url).content);
      expect(writes.length, path).toBeGreaterThan(0);
    }
  });
});

describe('the pacer', () => {
  it('lets requests through at once while every limit has room', async () => {
    const clock = manualClock();
    const pacer = new LimitPacer({ clock, primaryPerHour: 3 });
    for (let i = 0; i < 3; i++) await pacer.take(READ);
    expect(clock.slept).toEqual([]);
    expect(pacer.usedThisHour).toBe(3);
  });

  it('keeps its own share of the hour: the next request waits until the oldest leaves the window', async () => {
    const clock = manualClock();
    const pacer = new LimitPacer({ clock, primaryPerHour: 2 });
    const at: number[] = [];
    for (let i = 0; i < 6; i++) {
      await pacer.take(READ);
      at.push(clock.now());
    }
    expect(at).toEqual([0, 0, 3_600_000, 3_600_000, 7_200_000, 7_200_000]);
    expect(pacer.waited).toEqual({ requests: 2, ms: 7_200_000 });
  });

  it('keeps one endpoint under 80% of 900 points a minute: 144 writes, then the next waits for the minute to roll', async () => {
    const clock = manualClock();
    const pacer = new LimitPacer({ clock });
    const at: number[] = [];
    for (let i = 0; i < 145; i++) {
      await pacer.take(PATCH_CHECK);
      at.push(clock.now());
    }
    expect(at.slice(0, 144).every((t) => t === 0)).toBe(true);
    expect(at[144]).toBe(60_000);
    // Another endpoint is not held by this one.
    const before = clock.now();
    await pacer.take(classify('PATCH', '/repos/o/r/issues/3'));
    expect(clock.now()).toBe(before);
  });

  it('keeps content-generating requests under 64 a minute and 400 an hour (80% of 80 and 500), and says each wait once with its limit and end', async () => {
    const clock = manualClock();
    const waits: LimitWait[] = [];
    const pacer = new LimitPacer({ clock, onWait: (w) => waits.push(w) });
    const at: number[] = [];
    for (let i = 0; i < 401; i++) {
      await pacer.take(CREATE_ISSUE);
      at.push(clock.now());
    }
    for (const t of at) {
      expect(at.filter((u) => u > t - 60_000 && u <= t).length).toBeLessThanOrEqual(64);
      expect(at.filter((u) => u > t - 3_600_000 && u <= t).length).toBeLessThanOrEqual(400);
    }
    expect(at[64]).toBe(60_000);
    expect(at[400]).toBe(3_600_000);
    expect(waits[0]).toEqual({ limit: 'content per minute', until: 60_000 });
    expect(waits.at(-1)).toEqual({ limit: 'content per hour', until: 3_600_000 });
    expect(describeWait(waits.at(-1)!)).toBe("GitHub's content per hour limit: waiting until 01:00 UTC");
    // A read is not content: it goes at once while writes wait.
    const before = clock.now();
    await pacer.take(READ);
    expect(clock.now()).toBe(before);
  });

  it('counts the content its workers will create in its hour: booked PRs leave the App that much less', async () => {
    const clock = manualClock();
    const pacer = new LimitPacer({ clock });
    // 64 workers dispatched: 64 plan PRs to come, under the same token.
    pacer.bookContent(64);
    const at: number[] = [];
    for (let i = 0; i < 337; i++) {
      await pacer.take(CREATE_ISSUE);
      at.push(clock.now());
    }
    // 336 of the App's own fit the hour beside the 64 booked (400 in all); the next waits for the booking to age out.
    expect(at[335]).toBeLessThan(3_600_000);
    expect(at[336]).toBe(3_600_000);
    // The minute is not booked: the App's first 64 went in the first minute.
    expect(at[63]).toBe(0);
  });

  it('honours retry-after, and an allowance nearly spent until x-ratelimit-reset', async () => {
    const clock = manualClock(1_000_000);
    const pacer = new LimitPacer({ clock });
    pacer.observe({ 'retry-after': '30' });
    await pacer.take(READ);
    expect(clock.now()).toBe(1_030_000);
    pacer.observe({ 'x-ratelimit-remaining': '4000', 'x-ratelimit-reset': '2000' });
    await pacer.take(READ);
    expect(clock.now()).toBe(1_030_000);
    pacer.observe({ 'x-ratelimit-remaining': '12', 'x-ratelimit-reset': '2000' });
    await pacer.take(READ);
    expect(clock.now()).toBe(2_000_000);
    expect(pacer.waited).toEqual({ requests: 2, ms: 30_000 + 970_000 });
  });

  it('serves concurrent callers in the order they asked', async () => {
    const clock = manualClock();
    const pacer = new LimitPacer({ clock, primaryPerHour: 1 });
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => pacer.take(READ).then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
    expect(clock.now()).toBe(7_200_000);
  });

  it('counts a request recorded after the fact (a conditional read GitHub answered in full)', async () => {
    const clock = manualClock();
    const pacer = new LimitPacer({ clock, primaryPerHour: 1 });
    pacer.record(READ);
    await pacer.take(READ);
    expect(clock.now()).toBe(3_600_000);
  });

  it(`holds no more than ${CONCURRENT_SHARE} requests in flight: the next enters when one leaves`, async () => {
    const pacer = new LimitPacer({ clock: manualClock() });
    const leaves = await Promise.all(Array.from({ length: CONCURRENT_SHARE }, () => pacer.enter()));
    let entered = false;
    const next = pacer.enter().then((leave) => {
      entered = true;
      return leave;
    });
    await Promise.resolve();
    expect(entered).toBe(false);
    leaves[0]!();
    (await next)();
    expect(entered).toBe(true);
    for (const leave of leaves) leave();
  });

  it('refuses a share of the hour that is not a whole number', () => {
    expect(() => new LimitPacer({ primaryPerHour: 1.5 })).toThrow('primaryPerHour is 1.5: give a whole number of requests an hour (0: none of its own)');
  });
});

describe('HARNESS_APP_REQUESTS_PER_HOUR', () => {
  it('is 2,400 unless set, 0 turns pacing off, and anything else is refused with the fix', () => {
    expect(requestsPerHour({})).toBe(2_400);
    expect(requestsPerHour({ HARNESS_APP_REQUESTS_PER_HOUR: '4000' })).toBe(4_000);
    expect(requestsPerHour({ HARNESS_APP_REQUESTS_PER_HOUR: '0' })).toBe(0);
    expect(() => requestsPerHour({ HARNESS_APP_REQUESTS_PER_HOUR: 'lots' })).toThrow(
      'HARNESS_APP_REQUESTS_PER_HOUR is "lots": give a whole number of requests an hour (0 turns pacing off)',
    );
  });
});
