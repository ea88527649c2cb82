import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseKnowledge } from '../../../app/engine/knowledge/documents/parse.js';
import { FakeGitHub, spoken } from '../../helpers/github-repo.js';
import { holdoutStore, W } from '../../helpers/holdout-store.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';

/**
 * `/harness retrospective` through the App, on the stateful fake GitHub: the holdout report of
 * the store as merged on the default branch, the same as `harness retrospective` gives on a
 * checkout, and a pull request for each retirement it proposes, which only a person's merge
 * makes.
 */

const BASE = 'ba5e00000000000000000000000000000000000a';
const R = '/repos/Codertocat/Hello-World';
const ISSUE = 11;
const BRANCH = 'harness/knowledge/lesson/retire-testing-worse';
const BLOB = expect.stringMatching(new RegExp(`^GET ${R}/git/blobs/[0-9a-f]{40}$`));
const TREE = expect.stringMatching(new RegExp(`^GET ${R}/git/trees/[0-9a-f]{40}\\?recursive=1$`));

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

async function repository(): Promise<FakeGitHub> {
  const github = new FakeGitHub();
  github.config = 'knowledge:\n  holdout: 0.3\n';
  github.commit(BASE, { 'README.md': '# Hello\n', ...(await holdoutStore()) });
  github.branches.set('master', BASE);
  github.roles.set('Codertocat', 'write');
  github.install();
  return github;
}

async function say(body: string): Promise<void> {
  const payload = webhookExample<{ comment: { id: number; body: string; user: { login: string } }; sender: { login: string }; issue: Record<string, unknown> }>(
    'issue_comment',
    (p) => p.action === 'created',
  );
  payload.comment.body = body;
  payload.comment.id = 9100 + Math.floor(Math.random() * 1000);
  payload.comment.user.login = 'Codertocat';
  payload.sender.login = 'Codertocat';
  Object.assign(payload.issue, { number: ISSUE, comments: 0, pull_request: undefined });
  await testProbot().receive({ id: `d-${payload.comment.id}`, name: 'issue_comment', payload } as never);
}

/** What the App asks of GitHub to open one knowledge PR (gateway/knowledge-pr.ts). */
function opening(number: number): unknown[] {
  return [
    `GET ${R}/pulls?head=Codertocat:${BRANCH}&state=all&per_page=100`,
    `GET ${R}/git/ref/heads/master`,
    `GET ${R}/git/commits/${BASE}`,
    `POST ${R}/git/trees`,
    `POST ${R}/git/commits`,
    `POST ${R}/git/refs`,
    `POST ${R}/pulls`,
    `POST ${R}/issues/${number}/labels`,
  ];
}

describe('/harness retrospective: the holdout', () => {
  it('answers the comparison of the store as merged, and opens one pull request for the lesson that did no better', async () => {
    const github = await repository();
    await say('/harness retrospective SPC-002');

    expect(github.log()).toEqual([
      expect.stringMatching(new RegExp(`^POST ${R}/issues/comments/\\d+/reactions$`)),
      `GET ${R}/contents/.github/harness.yml`,
      `GET ${R}/collaborators/Codertocat/permission`,
      // The skill retrospective, as before: the spec's signals branch (none), the store's failures, its lessons and skills.
      `GET ${R}/git/ref/heads/harness/knowledge/signal/SPC-002`,
      `GET ${R}/contents/.harness/knowledge?ref=master`,
      TREE,
      ...Array.from({ length: 4 }, () => BLOB),
      `GET ${R}/contents/.harness/knowledge?ref=master`,
      TREE,
      BLOB,
      // The holdout: the store's signals as merged, the four completions (the failures were read just now), then the lesson to retire.
      `GET ${R}/contents/.harness/knowledge?ref=master`,
      ...Array.from({ length: 4 }, () => BLOB),
      `GET ${R}/contents/.harness/knowledge/lessons/testing/worse.lesson.md?ref=master`,
      ...opening(100),
      `POST ${R}/issues/${ISSUE}/comments`,
    ]);

    const pull = github.pullRequests.find((p) => p.head === BRANCH)!;
    expect(pull).toMatchObject({ number: 100, base: 'master', state: 'open', title: `harness: retire lesson ${W}`, labels: ['harness:knowledge', 'lesson'] });
    expect(pull.body).toMatch(
      new RegExp(
        `^<!-- harness:retire lesson ${W} -->\nThe holdout comparison \\(\`knowledge.holdout\`\\) proposes to retire the lesson \`${W.replace(/\./g, '\\.')}\`: surfaced into 10 plans, of which 4 passed on their first attempt \\(40%\\)`,
      ),
    );
    expect(pull.body).toContain('Merge this pull request to retire it. Close it to keep it: it is not proposed again.');
    const retired = parseKnowledge('lesson', W, github.fileAt(BRANCH, `.harness/knowledge/${W}`)!);
    expect(retired.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(retired.data!.metadata).toMatchObject({
      retired: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      'retired-reason': expect.stringContaining('retired by the holdout comparison: surfaced into 10 plans'),
    });
    // Nothing is retired before a person merges: the default branch's lesson is as it was.
    expect(parseKnowledge('lesson', W, github.fileAt('master', `.harness/knowledge/${W}`)!).data!.metadata).toBeUndefined();

    const answer = spoken(github.comments.at(-1)!.body);
    expect(answer).toContain('The holdout (knowledge.holdout 0.3, seed "harness"): 34 plans on record, 10 held out.');
    expect(answer).toContain('  with knowledge     24  17 (71%)            1.25           $0.51 (10 of them)');
    expect(answer).toContain('  difference             −0.19 (−0.41 to +0.14) +0.15 (−0.13 to +0.43) +$0.10 (−$0.12 to +$0.32)');
    expect(answer).toContain('  10 held-out plans: too few to tell; the interval is −0.41 to +0.14.');
    expect(answer).toContain(
      `Retirement pull requests (merge to retire; close to keep it, and it is not proposed again):\n- \`${W}\`: https://github.com/Codertocat/Hello-World/pull/100`,
    );

    // Asked again: the pull request is found, not opened twice.
    const again = github.requests.length;
    await say('/harness retrospective SPC-002');
    expect(github.log(again).filter((l) => l.startsWith('POST') && !l.endsWith('/reactions') && !l.endsWith(`/issues/${ISSUE}/comments`))).toEqual([]);
    expect(github.pullRequests.filter((p) => p.head === BRANCH)).toHaveLength(1);
    expect(spoken(github.comments.at(-1)!.body)).toContain(`- \`${W}\`: https://github.com/Codertocat/Hello-World/pull/100`);

    // A person closes it: the lesson stays, and it is proposed no more.
    pull.state = 'closed';
    await say('/harness retrospective SPC-002');
    const last = spoken(github.comments.at(-1)!.body);
    expect(last).not.toContain('Retirement pull requests');
    expect(last).not.toContain('Proposed for retirement');
    expect(github.pullRequests.filter((p) => p.head === BRANCH)).toHaveLength(1);
  });
});
