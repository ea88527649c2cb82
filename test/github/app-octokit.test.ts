import nock from 'nock';
import { Probot } from 'probot';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppOctokit } from '../../app/github/app-octokit.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

/** The client Probot hands the App's handlers when it runs over AppOctokit (server.ts, actions/app). */
async function appClient() {
  const probot = new Probot({ githubToken: 'ghs_test', Octokit: AppOctokit, logLevel: 'fatal' });
  return probot.auth();
}

describe("the App's Octokit", () => {
  it("leaves GitHub's limits to harness's limiter: Probot's throttling does not ask a refused request again", async () => {
    const octokit = await appClient();
    const api = nock('https://api.github.com')
      .get('/repos/o/r/issues/1')
      .times(2)
      // A spent allowance whose reset has passed: Probot's throttling would ask again at once.
      .reply(
        403,
        { message: 'API rate limit exceeded for installation ID 1.' },
        {
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) - 10),
        },
      );
    await expect(octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}', { owner: 'o', repo: 'r', issue_number: 1 })).rejects.toMatchObject({
      status: 403,
    });
    // One of the two answers is left: the request went once.
    expect(api.pendingMocks()).toHaveLength(1);
  });

  it('keeps the retry plugin off a 429, which the limiter waits out for as long as GitHub says', async () => {
    const octokit = await appClient();
    const api = nock('https://api.github.com').get('/repos/o/r/issues/1').times(2).reply(429, { message: 'Too many requests' });
    await expect(octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}', { owner: 'o', repo: 'r', issue_number: 1 })).rejects.toMatchObject({
      status: 429,
    });
    expect(api.pendingMocks()).toHaveLength(1);
  });
});
