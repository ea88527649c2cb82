import { readFileSync } from 'node:fs';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from './github-repo.js';
import { GENERIC_STATUSES, openApiProblems, takeOpenApiViolations, UNDOCUMENTED_STATUSES } from './github-openapi.js';
import { testOctokit } from './octokit.js';

/**
 * The check that holds the REST fakes to GitHub's OpenAPI description (github-openapi.ts): a
 * documented request passes; an undocumented path or method, a body field the schema does not
 * name, a wrong enum, a missing required field, an undocumented query parameter and an
 * undocumented status each fail, naming what is wrong and where the description says so.
 */

const R = '/repos/octo-org/widgets';
/** The description's version, as the installed package carries it. */
const VERSION = (JSON.parse(readFileSync(new URL('../../node_modules/@octokit/openapi/package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('a request GitHub documents', () => {
  it('passes: method, path, query, body and status as the description has them', () => {
    expect(openApiProblems({ method: 'PATCH', url: `${R}/issues/7`, body: { body: 'text', state: 'closed', state_reason: 'completed' }, status: 200 })).toEqual(
      [],
    );
    expect(openApiProblems({ method: 'GET', url: `${R}/issues?labels=harness:plan,spec:SPC-1&state=all&direction=asc&per_page=100`, status: 200 })).toEqual([]);
    expect(openApiProblems({ method: 'POST', url: `${R}/issues`, body: { title: 'x', body: 'text', labels: ['a'] }, status: 201 })).toEqual([]);
    expect(openApiProblems({ method: 'DELETE', url: `${R}/issues/7/labels/status%3Arunning`, status: 200 })).toEqual([]);
  });

  it('matches the most literal template, and lets only a multi-segment parameter (a ref, a file path) take slashes', () => {
    expect(openApiProblems({ method: 'PATCH', url: `${R}/issues/comments/5`, body: { body: 'x' }, status: 200 })).toEqual([]);
    expect(openApiProblems({ method: 'GET', url: `${R}/git/ref/heads/harness/SPC-1/01-01`, status: 200 })).toEqual([]);
    expect(openApiProblems({ method: 'GET', url: `${R}/commits/heads/harness/SPC-1/01-01/check-runs?check_name=harness%20%2F%20plan`, status: 200 })).toEqual(
      [],
    );
    expect(openApiProblems({ method: 'GET', url: `${R}/compare/abc...def`, status: 200 })).toEqual([]);
    // {issue_number} is one segment, and an integer.
    expect(openApiProblems({ method: 'GET', url: `${R}/issues/seven`, status: 200 }).join('\n')).toContain('the path parameters/issue_number must be integer');
  });

  it('allows the statuses GitHub gives any endpoint, and 304 only to a conditional GET; each documented exception is one the description lacks', () => {
    for (const status of GENERIC_STATUSES) expect(openApiProblems({ method: 'POST', url: `${R}/issues/7/comments`, body: { body: 'x' }, status })).toEqual([]);
    expect(openApiProblems({ method: 'GET', url: `${R}/issues/7`, status: 304 })).toEqual([]);
    expect(openApiProblems({ method: 'POST', url: `${R}/issues/7/comments`, body: { body: 'x' }, status: 304 })).toHaveLength(1);
    for (const u of UNDOCUMENTED_STATUSES) {
      const url = u.template
        .replace('{owner}', 'o')
        .replace('{repo}', 'r')
        .replace(/\{[a-z_]+\}/g, '1');
      const body = u.method === 'POST' ? { ref: 'main' } : undefined;
      expect(openApiProblems({ method: u.method, url, body, status: u.status })).toEqual([]);
      // Were GitHub to document it, the exception would go: the description alone would allow it.
      expect(openApiProblems({ method: u.method, url, body, status: 299 })[0]).toMatch(/answered 299, which the operation does not document/);
      expect(openApiProblems({ method: u.method, url, body, status: 299 })[0]).not.toMatch(new RegExp(`answer one of [^(]*\\b${u.status}\\b`));
    }
  });
});

describe('a request GitHub does not document', () => {
  it('an undocumented path fails', () => {
    expect(openApiProblems({ method: 'GET', url: `${R}/issues/7/plans`, status: 200 })).toEqual([
      `GET ${R}/issues/7/plans: no operation in GitHub's OpenAPI description (api.github.com ${VERSION}) has this path: use a documented endpoint (docs.github.com/rest)`,
    ]);
  });

  it('an undocumented method fails, naming the ones the path has', () => {
    const [problem] = openApiProblems({ method: 'PUT', url: `${R}/issues/comments/5`, body: { body: 'x' }, status: 200 });
    expect(problem).toContain(`PUT ${R}/issues/comments/5: GitHub's OpenAPI description (api.github.com ${VERSION}) has no PUT for this path, only`);
    expect(problem).toContain('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}');
  });

  it('an extra body field fails, with the schema path and the fix', () => {
    expect(openApiProblems({ method: 'PATCH', url: `${R}/issues/7`, body: { body: 'x', status: 'running' }, status: 200 })).toEqual([
      `PATCH ${R}/issues/7: the body has \`status\`, which the schema does not name (#/paths/~1repos~1{owner}~1{repo}~1issues~1{issue_number}/patch/requestBody/content/application~1json/schema/additionalProperties): leave it out, or name the field the description has. See GitHub's OpenAPI description (api.github.com ${VERSION}) of issues/update, PATCH /repos/{owner}/{repo}/issues/{issue_number} (https://docs.github.com/rest/issues/issues#update-an-issue).`,
    ]);
    // Nested too: a check run's output.
    const [nested] = openApiProblems({
      method: 'POST',
      url: `${R}/check-runs`,
      body: { name: 'n', head_sha: 'abc', output: { title: 't', summary: 's', body: 'x' } },
      status: 201,
    });
    expect(nested).toContain('the body/output has `body`, which the schema does not name');
  });

  it('a wrong enum fails, naming the values allowed', () => {
    const [problem] = openApiProblems({ method: 'POST', url: `${R}/check-runs`, body: { name: 'n', head_sha: 'abc', status: 'done' }, status: 201 });
    expect(problem).toContain(`POST ${R}/check-runs: the body/status must be one of "queued", "in_progress", "completed"`);
    expect(problem).toContain('/post/requestBody/content/application~1json/schema/properties/status/enum');
  });

  it('a missing required field, a wrong type and a body where none is taken fail', () => {
    expect(openApiProblems({ method: 'POST', url: `${R}/issues`, body: { body: 'no title' }, status: 201 })[0]).toContain(
      'the body lacks `title`, which is required',
    );
    expect(openApiProblems({ method: 'POST', url: `${R}/issues/7/labels`, body: { labels: 'one' }, status: 200 }).join('\n')).toContain(
      'the body/labels must be array',
    );
    expect(openApiProblems({ method: 'DELETE', url: `${R}/git/refs/heads/x`, body: { force: true }, status: 204 })[0]).toContain(
      'the request has a body, and the operation takes none',
    );
  });

  it('an undocumented query parameter, or one of the wrong type, fails', () => {
    expect(openApiProblems({ method: 'GET', url: `${R}/issues?labels=a&status=open`, status: 200 })[0]).toContain(
      'the query has `status`, which the schema does not name (#/paths/~1repos~1{owner}~1{repo}~1issues/get/parameters): it is not a query parameter of this operation; documented are milestone, state,',
    );
    expect(openApiProblems({ method: 'GET', url: `${R}/issues?state=shut`, status: 200 })[0]).toContain(
      'the query/state must be one of "open", "closed", "all"',
    );
    expect(openApiProblems({ method: 'GET', url: `${R}/issues?per_page=many`, status: 200 })[0]).toContain('the query/per_page must be integer');
  });

  it('an undocumented status fails, naming the documented ones', () => {
    expect(openApiProblems({ method: 'PATCH', url: `${R}/issues/7`, body: { body: 'x' }, status: 201 })).toEqual([
      `PATCH ${R}/issues/7: answered 201, which the operation does not document (#/paths/~1repos~1{owner}~1{repo}~1issues~1{issue_number}/patch/responses): answer one of 200, 301, 403, 404, 410, 422, 503, or one GitHub gives any endpoint (401, 403, 404, 429, 500, 502, 503, 504, and 304 to a conditional GET). See GitHub's OpenAPI description (api.github.com ${VERSION}) of issues/update, PATCH /repos/{owner}/{repo}/issues/{issue_number} (https://docs.github.com/rest/issues/issues#update-an-issue).`,
    ]);
  });
});

describe('the requests the tests make are checked', () => {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => nock.cleanAll());

  it('through the fake GitHub: a violation is kept for the test that made it (test/setup.ts fails it)', async () => {
    const github = new FakeGitHub('octo-org', 'widgets');
    github.issues.push({ id: 900_007, number: 7, title: 'x', body: '', labels: [], state: 'open', state_reason: null });
    github.install();
    const octokit = testOctokit();
    await octokit.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', { owner: 'octo-org', repo: 'widgets', issue_number: 7, body: 'y' });
    expect(takeOpenApiViolations()).toEqual([]);
    await octokit.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', { owner: 'octo-org', repo: 'widgets', issue_number: 7, body: 'y', stat: 'x' });
    // Checked once, by the fake: its answer tells the tests' Octokit so.
    expect(takeOpenApiViolations()).toEqual([
      expect.stringMatching(
        /^the fake GitHub \(test\/helpers\/github-repo\.ts\): PATCH \/repos\/octo-org\/widgets\/issues\/7: the body has `stat`, which the schema does not name/,
      ),
    ]);
  });

  it("through a test's own nock interceptors: the request and the status they answered", async () => {
    nock('https://api.github.com').post(`${R}/issues/7/comments`).reply(200, { id: 1 });
    await testOctokit().request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      owner: 'octo-org',
      repo: 'widgets',
      issue_number: 7,
      body: 'x',
    });
    expect(takeOpenApiViolations()).toEqual([
      expect.stringMatching(
        /^a test’s Octokit \(test\/helpers\/octokit\.ts\): POST \/repos\/octo-org\/widgets\/issues\/7\/comments: answered 200, which the operation does not document .*answer one of 201, 403, 404, 410, 422/,
      ),
    ]);
  });
});

/**
 * Every route the fake GitHub answers, read from its source (`route === 'GET /issues'`, or a
 * pattern such as `/^GET \/issues\/(\d+)$/`), each with a sample path its pattern accepts.
 */
function fakeRoutes(): { route: string; sample: string }[] {
  const source = readFileSync(new URL('./github-repo.ts', import.meta.url), 'utf8');
  const exact = [...source.matchAll(/route === '([A-Z]+ \/[^']*)'/g)].map((m) => ({ route: m[1]!, sample: m[1]! }));
  // What each capture group of a pattern is given: a number, a sha, a name; a ref outside refs/heads a tag's.
  const groups: [string, string][] = [
    ['((?!heads\\/).+)', 'tags/v1'],
    ['((?!heads\\/).*)', 'tags/v1'],
    ['([0-9a-f]{40})', '6dcb09b5b57875f334f61aebed695e2e4193db5e'],
    ['([0-9a-f]+)', '6dcb09b5b57875f334f61aebed695e2e4193db5e'],
    ['(\\d+)', '7'],
    ['([^/]+)', 'octocat'],
    ['(.+)', 'x'],
    ['(.*)', 'x'],
  ];
  const patterns = [...source.matchAll(/\/\^((?:GET|POST|PATCH|PUT|DELETE) \\\/.*?)\$\/\.exec\(route\)/g)].map((m) => {
    let sample = m[1]!;
    for (const [group, value] of groups) sample = sample.split(group).join(value);
    if (sample.includes('(')) throw new Error(`no sample for a group of /^${m[1]}$/: add one to fakeRoutes`);
    sample = sample.replace(/\\(.)/g, '$1');
    expect(new RegExp(`^${m[1]}$`).test(sample), `the sample ${sample} fits /^${m[1]}$/`).toBe(true);
    return { route: m[1]!, sample };
  });
  return [...exact, ...patterns];
}

describe("the fake GitHub's routes", () => {
  it('are each an operation of GitHub\u2019s description (method and path template)', () => {
    const routes = fakeRoutes();
    expect(routes.length).toBeGreaterThan(50);
    const undocumented = routes.flatMap(({ route, sample }) => {
      const [method, path] = sample.split(' ') as [string, string];
      // Only whether the operation exists: the route's bodies and statuses are checked as the tests use them.
      const problems = openApiProblems({ method, url: `/repos/o/r${path}` }).filter((p) => /no operation|has no [A-Z]+ for this path/.test(p));
      return problems.map((p) => `${route}: ${p}`);
    });
    expect(undocumented).toEqual([]);
  });
});
