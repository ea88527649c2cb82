import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { githubApi, testProbot, webhookExample } from '../helpers/probot.js';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('the harness App', () => {
  it('loads, and receives a real webhook payload without calling GitHub for an event it does not handle', async () => {
    const probot = testProbot();
    const scope = githubApi();
    await probot.receive({ id: 'delivery-1', name: 'issues', payload: webhookExample('issues') } as never);
    expect(scope.pendingMocks()).toEqual([]);
  });
});
