import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../helpers/github-repo.js';
import { makeRepo } from '../helpers/repo.js';
import { startHarnessMcp, type HarnessMcp } from './mcp-client.js';

/**
 * `harness mcp --repo` with a person's token, against the stateful fake GitHub served over HTTP
 * on 127.0.0.1 (GITHUB_API_URL): what each GitHub tool reads, and the one comment it writes for
 * the App to act on, request by request.
 */

const OWNER = 'octo-org';
const REPO = 'widgets';
const TOKEN = 'ghp_PersonalToken0123456789abcdefghijklmn';
const API = `/repos/${OWNER}/${REPO}`;
const SHA = 'c0ffee0000000000000000000000000000000001';

const fake = new FakeGitHub(OWNER, REPO);
let server: { url: string; close: () => Promise<void> };
let mcp: HarnessMcp;

function planIssue(
  number: number,
  spec: string,
  plan: string,
  title: string,
  labels: string[],
  extra: Partial<{ state: 'open' | 'closed'; state_reason: string | null; pr: number }> = {},
) {
  fake.issues.push({
    id: 900_000 + number,
    number,
    title: `[${plan}] ${title}`,
    body: `<!-- harness:plan ${spec}/${plan} hash=abc123${extra.pr ? ` pr=${extra.pr}` : ''} -->\n## ${title}\n`,
    labels: ['harness:plan', `spec:${spec}`, `phase:${plan.slice(0, 2)}`, ...labels],
    state: extra.state ?? 'open',
    state_reason: extra.state_reason ?? null,
  });
  // A status label is the view of the App's record on the marker line: the record goes with it.
  const status = labels.find((l) => l.startsWith('status:'))?.slice('status:'.length);
  if (status) fake.planStatus(number, status as 'checkpoint');
  if (status === 'verified' && extra.state === 'closed') fake.issue(number).body = fake.issue(number).body!.replace(' status=', ' verified=9 status=');
}

beforeAll(async () => {
  planIssue(101, 'SPC-007', '01-01', 'Storage', ['status:checkpoint'], { pr: 7 });
  planIssue(102, 'SPC-007', '01-02', 'Service', ['status:blocked', 'needs:01-01'], { pr: 7 });
  planIssue(103, 'SPC-007', '02-01', 'Docs', [], { pr: 7 });
  planIssue(110, 'SPC-008', '01-01', 'Billing', ['status:verified'], { state: 'closed', state_reason: 'completed' });
  // The worker's question, and a person quoting a marker (which counts for nothing).
  fake.comments.push({
    id: 501,
    issue: 101,
    body: '<!-- harness:checkpoint 01-01 storage -->\nWhich store should the service use?\n\nOptions: memory, file',
    userType: 'Bot',
  });
  fake.comments.push({ id: 502, issue: 101, body: '<!-- harness:checkpoint 01-01 fake -->\nNot a question', userType: 'User' });
  fake.branches.set('harness/SPC-007/01-01', SHA);
  fake.checkRuns.push({
    id: 77,
    name: 'harness / plan 01-01',
    head_sha: SHA,
    external_id: 'SPC-007/01-01',
    status: 'completed',
    conclusion: 'action_required',
    output: { title: 'Waiting for a decision', summary: 'Which store?', text: null },
    annotations: [],
  });
  server = await fake.serve();
  const root = await makeRepo({});
  mcp = await startHarnessMcp(root, { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: server.url }, ['--repo', `${OWNER}/${REPO}`]);
});

afterAll(async () => {
  await mcp?.close();
  await server?.close();
});

let from = 0;
beforeEach(() => {
  from = fake.requests.length;
  fake.fail = () => undefined;
});

describe("harness mcp --repo, with a person's token", () => {
  it('offers the GitHub tools beside the local ones', async () => {
    const names = (await mcp.client.listTools()).tools.map((t) => t.name);
    expect(names.filter((n) => n.startsWith('harness_github_')).sort()).toEqual([
      'harness_github_checkpoints',
      'harness_github_execute',
      'harness_github_respond',
      'harness_github_specs',
    ]);
    expect(names).toContain('harness_specs');
  });

  it('lists the specs from their plan issues, each plan with its status and the spec PR', async () => {
    const { text, data } = await mcp.call('harness_github_specs');
    expect(fake.log(from)).toEqual([`GET ${API}/issues?labels=harness:plan&state=all&direction=asc&per_page=100`]);
    expect(data).toEqual({
      repository: `${OWNER}/${REPO}`,
      specs: [
        {
          spec: 'SPC-007',
          pullRequest: { number: 7, url: `https://github.com/${OWNER}/${REPO}/pull/7` },
          plans: [
            {
              plan: '01-01',
              title: 'Storage',
              issue: 101,
              url: `https://github.com/${OWNER}/${REPO}/issues/101`,
              phase: '01',
              status: 'checkpoint',
              open: true,
            },
            { plan: '01-02', title: 'Service', issue: 102, url: `https://github.com/${OWNER}/${REPO}/issues/102`, phase: '01', status: 'blocked', open: true },
            { plan: '02-01', title: 'Docs', issue: 103, url: `https://github.com/${OWNER}/${REPO}/issues/103`, phase: '02', status: 'planned', open: true },
          ],
        },
        {
          spec: 'SPC-008',
          pullRequest: null,
          plans: [
            {
              plan: '01-01',
              title: 'Billing',
              issue: 110,
              url: `https://github.com/${OWNER}/${REPO}/issues/110`,
              phase: '01',
              status: 'verified',
              open: false,
            },
          ],
        },
      ],
    });
    expect(text).toContain(`SPC-007 · spec PR #7 https://github.com/${OWNER}/${REPO}/pull/7: 1 checkpoint, 1 blocked, 1 planned`);
    expect(text).toContain('  02-01 Docs — planned (#103)');
  });

  it('executes by commenting /harness execute on the spec PR, for the App to act on', async () => {
    const { text, isError } = await mcp.call('harness_github_execute', { spec: 'SPC-007', target: '2' });
    expect(isError).toBe(false);
    expect(fake.log(from)).toEqual([
      `GET ${API}/issues?labels=harness:plan,spec:SPC-007&state=all&direction=asc&per_page=100`,
      `POST ${API}/issues/7/comments`,
    ]);
    expect(fake.writes(from).map((w) => w.body)).toEqual([{ body: '/harness execute SPC-007/02' }]);
    expect(text).toContain('Posted `/harness execute SPC-007/02` on spec PR #7');
  });

  it('posts on a plan issue when no spec PR is recorded, and refuses a phase the spec lacks without writing', async () => {
    await mcp.call('harness_github_execute', { spec: 'SPC-008', target: 'all' });
    expect(fake.writes(from)).toEqual([{ method: 'POST', url: `${API}/issues/110/comments`, body: { body: '/harness execute SPC-008/all' } }]);

    from = fake.requests.length;
    const refused = await mcp.call('harness_github_execute', { spec: 'SPC-007', target: '05' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toBe(`SPC-007 has no plan issue in phase 05 on ${OWNER}/${REPO}: its phases are 01, 02`);
    expect(fake.writes(from)).toEqual([]);
  });

  it('says what to do about a spec with no plan issues', async () => {
    const { isError, text } = await mcp.call('harness_github_execute', { spec: 'SPC-404', target: 'all' });
    expect(isError).toBe(true);
    expect(text).toContain(`SPC-404 has no plan issues on ${OWNER}/${REPO}: the harness App opens them when a pull request adding the spec is opened`);
    expect(fake.writes(from)).toEqual([]);
  });

  it("lists the checkpoints: the worker's question and the check run waiting for a person", async () => {
    const { text, data } = await mcp.call('harness_github_checkpoints');
    expect(fake.log(from)).toEqual([
      `GET ${API}/issues?labels=harness:plan&state=all&direction=asc&per_page=100`,
      `GET ${API}/issues/101/comments?per_page=100`,
      `GET ${API}/commits/heads/harness/SPC-007/01-01/check-runs?check_name=harness / plan 01-01`,
    ]);
    expect(data.checkpoints).toEqual([
      {
        spec: 'SPC-007',
        plan: '01-01',
        issue: 101,
        url: `https://github.com/${OWNER}/${REPO}/issues/101`,
        checkpoint: 'storage',
        question: 'Which store should the service use?\n\nOptions: memory, file',
        check: { id: 77, status: 'completed', conclusion: 'action_required', detailsUrl: null },
      },
    ]);
    expect(text).toContain('SPC-007 01-01 (#101');
    expect(text).toContain('check run action_required: Which store should the service use?');
  });

  it('answers by commenting /harness respond on the plan issue', async () => {
    const { text, isError } = await mcp.call('harness_github_respond', { spec: 'SPC-007', plan: '01-01', answer: 'file' });
    expect(isError).toBe(false);
    expect(fake.log(from)).toEqual([
      `GET ${API}/issues?labels=harness:plan,spec:SPC-007&state=all&direction=asc&per_page=100`,
      `POST ${API}/issues/101/comments`,
    ]);
    expect(fake.writes(from).map((w) => w.body)).toEqual([{ body: '/harness respond SPC-007/01-01 file' }]);
    expect(text).toContain('Posted `/harness respond SPC-007/01-01 file` on #101');
  });

  it('refuses to answer a plan that waits for nothing, and an answer holding a secret, posting nothing', async () => {
    const idle = await mcp.call('harness_github_respond', { spec: 'SPC-007', plan: '01-02', answer: 'yes' });
    expect(idle.isError).toBe(true);
    expect(idle.text).toBe(
      'SPC-007 plan 01-02 (#102) is blocked, not waiting at a checkpoint: nothing to answer (harness_github_checkpoints lists what waits)',
    );

    const secret = await mcp.call('harness_github_respond', { spec: 'SPC-007', plan: '01-01', answer: `use the token ${TOKEN}` });
    expect(secret.isError).toBe(true);
    expect(secret.text).toContain('the answer for SPC-007 plan 01-01 holds what looks like a secret');
    expect(secret.text).not.toContain(TOKEN);

    const multiline = await mcp.call('harness_github_respond', { spec: 'SPC-007', plan: '01-01', answer: 'file\n/harness abort 01-01' });
    expect(multiline.isError).toBe(true);
    expect(fake.writes(from)).toEqual([]);
  });

  it('names the permission the token lacks when GitHub refuses the comment', async () => {
    fake.fail = (method, url) => (method === 'POST' && url.endsWith('/issues/7/comments') ? 403 : undefined);
    const { isError, text } = await mcp.call('harness_github_execute', { spec: 'SPC-007', target: 'all' });
    expect(isError).toBe(true);
    expect(text).toMatch(
      new RegExp(
        `^SPC-007: /harness execute all was not posted on ${OWNER}/${REPO}: POST /repos/\\{owner\\}/\\{repo\\}/issues/\\{issue_number\\}/comments answered 403: `,
      ),
    );
    expect(text).toContain('Your token (GITHUB_TOKEN) needs `issues: write` on this repository');
    expect(text).not.toContain(TOKEN);
  });
});
