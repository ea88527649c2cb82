import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gatewayRequest } from '../../app/gateway/request.js';
import { dispatchWorker } from '../../app/gateway/workflows.js';
import { GitHubError } from '../../app/gateway/github-error.js';
import { TestOctokit, testOctokit } from '../helpers/octokit.js';

/**
 * The worker's dispatch asks GitHub for the run it started (`return_run_details`, February 2026).
 * A GitHub Enterprise Server older than that refuses the unknown key: the dispatch is made again
 * without it, and the run is found by its title as before.
 */

const R = '/repos/octo-org/widgets';
const GHES = 'https://github.example.com/api/v3';
const ROUTE = `${R}/actions/workflows/harness-worker.yml/dispatches`;
const INPUTS = { spec: 'SPC-002', plan: '01-01', resume: 'false' };
const repo = { owner: 'octo-org', repo: 'widgets' };
const request = () => gatewayRequest(testOctokit().request, 'app');

let scope: nock.Scope;
beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  expect(scope.pendingMocks()).toEqual([]);
  nock.cleanAll();
});

describe('dispatching the worker', () => {
  it('on github.com: the run as GitHub names it', async () => {
    scope = nock('https://api.github.com')
      .post(ROUTE, { ref: 'main', inputs: INPUTS, return_run_details: true })
      .reply(200, {
        workflow_run_id: 42,
        run_url: `https://api.github.com${R}/actions/runs/42`,
        html_url: 'https://github.com/octo-org/widgets/actions/runs/42',
      });

    expect(await dispatchWorker(request(), repo, 'main', { spec: 'SPC-002', plan: '01-01', resume: false })).toEqual({
      id: 42,
      url: `https://api.github.com${R}/actions/runs/42`,
      htmlUrl: 'https://github.com/octo-org/widgets/actions/runs/42',
    });
  });

  it.each([
    [400, 'Invalid request.\n\n"return_run_details" is not a permitted key.'],
    [422, "Invalid request.\n\nFor 'properties/return_run_details', true is not a permitted key."],
  ])('on an older GHES that answers %i to the parameter: dispatched once more without it', async (status, message) => {
    // A server of its own: GitHub Enterprise Server answers by its own version's description, not api.github.com's.
    scope = nock('https://github.example.com')
      .post(`/api/v3${ROUTE}`, { ref: 'main', inputs: INPUTS, return_run_details: true })
      .reply(status, { message, documentation_url: 'https://docs.github.com/enterprise-server@3.14/rest/actions/workflows#create-a-workflow-dispatch-event' })
      .post(`/api/v3${ROUTE}`, { ref: 'main', inputs: INPUTS })
      .reply(204);

    const ghes = gatewayRequest(new TestOctokit({ auth: { token: 'test-token' }, baseUrl: GHES }).request, 'app');
    expect(await dispatchWorker(ghes, repo, 'main', { spec: 'SPC-002', plan: '01-01', resume: false })).toBeUndefined();
  });

  it('tells the worker how many plans share the token; a workflow written before that input refuses it, and is dispatched once more without it', async () => {
    scope = nock('https://api.github.com')
      .post(ROUTE, { ref: 'main', inputs: { ...INPUTS, running: '64' }, return_run_details: true })
      .reply(422, {
        message: 'Unexpected inputs provided: ["running"]',
        documentation_url: 'https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event',
      })
      .post(ROUTE, { ref: 'main', inputs: INPUTS, return_run_details: true })
      .reply(200, {
        workflow_run_id: 43,
        run_url: `https://api.github.com${R}/actions/runs/43`,
        html_url: 'https://github.com/octo-org/widgets/actions/runs/43',
      });

    expect(await dispatchWorker(request(), repo, 'main', { spec: 'SPC-002', plan: '01-01', resume: false, running: 64 })).toMatchObject({ id: 43 });
  });

  it('any other refusal is not asked again', async () => {
    scope = nock('https://api.github.com')
      .post(ROUTE, { ref: 'main', inputs: INPUTS, return_run_details: true })
      .reply(422, { message: 'Unexpected inputs provided: ["resume"]' });

    await expect(dispatchWorker(request(), repo, 'main', { spec: 'SPC-002', plan: '01-01', resume: false })).rejects.toBeInstanceOf(GitHubError);
  });
});
