import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Octokit } from '@octokit/core';
import { CLIENT_PLUGINS, clientOptions, paceClient } from '../../app/gateway/client.js';
import type { Clock } from '../../app/gateway/pacer.js';
import { LIMIT_RETRIES } from '../../app/gateway/limit-model.js';

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

  it('asks a request GitHub refused for its secondary limit again once the retry-after it gave is over, and says the wait', async () => {
    const warnings: string[] = [];
    const { octokit, now } = client(warnings);
    const start = now();
    const api = nock('https://api.github.com')
      .post('/repos/o/r/issues/1/labels', { labels: ['harness:running'] })
      .reply(403, { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' }, { 'retry-after': '30' })
      .post('/repos/o/r/issues/1/labels', { labels: ['harness:running'] })
      .reply(200, [{ name: 'harness:running' }]);
    const answer = await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', {
      owner: 'o',
      repo: 'r',
      issue_number: 1,
      labels: ['harness:running'],
    });
    expect(answer.status).toBe(200);
    expect(now()).toBe(start + 30_000);
    expect(warnings).toEqual(['GitHub asked to wait (retry-after): waiting until 08:00 UTC']);
    api.done();
  });

  it('waits a minute on a 429 that names no wait (GitHub: "at least one minute"), and waits until x-ratelimit-reset on a spent allowance', async () => {
    const { octokit, now } = client([]);
    const start = now();
    const api = nock('https://api.github.com')
      .get('/repos/o/r/issues/1')
      .reply(429, { message: 'Too many requests' })
      .get('/repos/o/r/issues/1')
      .reply(200, { number: 1 });
    await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}', { owner: 'o', repo: 'r', issue_number: 1 });
    expect(now()).toBe(start + 60_000);
    const reset = Math.floor(now() / 1000) + 300;
    api
      .get('/repos/o/r/issues/2')
      .reply(403, { message: 'API rate limit exceeded for installation ID 1.' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) })
      .get('/repos/o/r/issues/2')
      .reply(200, { number: 2 });
    await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}', { owner: 'o', repo: 'r', issue_number: 2 });
    expect(now()).toBe(reset * 1000);
    api.done();
  });

  it('never asks again a 403 for a permission, nor a refusal whose wait is longer than a job should sit out, nor one refused a fourth time', async () => {
    const { octokit, now } = client([]);
    const start = now();
    const ask = () => octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}', { owner: 'o', repo: 'r', issue_number: 1 });
    nock('https://api.github.com').get('/repos/o/r/issues/1').reply(403, { message: 'Resource not accessible by integration' });
    await expect(ask()).rejects.toMatchObject({ status: 403 });
    expect(now()).toBe(start);
    nock('https://api.github.com').get('/repos/o/r/issues/1').reply(403, { message: 'You have exceeded a secondary rate limit.' }, { 'retry-after': '3600' });
    await expect(ask()).rejects.toMatchObject({ status: 403 });
    expect(nock.pendingMocks()).toEqual([]);
    const refusals = nock('https://api.github.com')
      .get('/repos/o/r/issues/1')
      .times(LIMIT_RETRIES + 1)
      .reply(429, { message: 'Too many requests' }, { 'retry-after': '10' });
    await expect(ask()).rejects.toMatchObject({ status: 429 });
    refusals.done();
  });

  it('is not paced when throttling is off (a GHES without rate limits, HARNESS_GITHUB_THROTTLE=off)', () => {
    expect(paceClient({}, { warn: () => undefined, unthrottled: true })).toBeUndefined();
  });
});
