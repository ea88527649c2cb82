import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Octokit } from '@octokit/core';
import { CLIENT_PLUGINS, clientOptions, paceClient } from '../../app/gateway/client.js';
import type { Clock } from '../../app/gateway/pacer.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

/** The worker's and harness mcp's client, throttled as on a runner, on a clock that moves when something waits on it. */
function client(warnings: string[]) {
  let now = Date.parse('2026-11-02T08:00:00Z');
  const clock: Clock = { now: () => now, sleep: async (ms) => void (now += ms) };
  const Client = Octokit.plugin(...CLIENT_PLUGINS);
  const octokit = new Client(clientOptions({ token: 'ghs_test', userAgent: 'harness-test', warn: (m) => warnings.push(m) }));
  const pacer = paceClient(octokit, { warn: (m) => warnings.push(m), clock });
  return { octokit, pacer, now: () => now };
}

describe('the client every part of harness builds outside the App', () => {
  it('waits for x-ratelimit-reset before spending the last of the allowance, and says until when', async () => {
    const warnings: string[] = [];
    const { octokit, now } = client(warnings);
    const start = now();
    const reset = Math.floor(start / 1000) + 600;
    const api = nock('https://api.github.com')
      .get('/repos/o/r/issues/1')
      .reply(200, { number: 1 }, { 'x-ratelimit-remaining': '20', 'x-ratelimit-reset': String(reset) })
      .get('/repos/o/r/issues/2')
      .reply(200, { number: 2 }, { 'x-ratelimit-remaining': '4999', 'x-ratelimit-reset': String(reset + 3600) });
    await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}', { owner: 'o', repo: 'r', issue_number: 1 });
    expect(now()).toBe(start);
    await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}', { owner: 'o', repo: 'r', issue_number: 2 });
    expect(now()).toBe(reset * 1000);
    expect(warnings).toEqual(["GitHub's hourly request allowance is nearly spent: waiting until 08:10 UTC"]);
    api.done();
  });

  it('is not paced when throttling is off (a GHES without rate limits, HARNESS_GITHUB_THROTTLE=off)', () => {
    expect(paceClient({}, { warn: () => undefined, unthrottled: true })).toBeUndefined();
  });
});
