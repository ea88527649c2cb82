import nock from 'nock';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { desiredIssue, withMarkerRecord } from '../../app/engine/forge/plan-issue.js';
import { loadSpec } from '../../app/engine/core/spec/load.js';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { FakeGitHub, spoken } from '../helpers/github-repo.js';
import { testProbot, webhookExample } from '../helpers/probot.js';
import { planMd, specOf } from '../helpers/spec.js';

/**
 * The App's own signals (app/github/commands/signals.ts): a person's frustration read off the thread a
 * command arrives in, and a plan a person aborted, appended to the spec's signals PR that the
 * workers append to. Against the stateful fake, through Probot with real webhook payloads.
 */

const R = '/repos/Codertocat/Hello-World';
const SPEC = 'SPC-042';
const SIGNALS = `harness/knowledge/signal/${SPEC}`;
const BASE = 'c'.repeat(40);
const spec = loadSpec(specOf([{ id: '02-03', title: 'Pick the database' }])).spec!;

type CommentPayload = {
  comment: { id: number; body: string; user: { login: string; type: string }; html_url: string };
  issue: Record<string, unknown> & { number: number; comments: number };
  sender: { login: string; type: string };
};

let github: FakeGitHub;

function planIssue(status: string) {
  const desired = desiredIssue({
    spec,
    plan: spec.planById.get('02-03')!,
    planText: planMd({ id: '02-03' }),
    specPath: `docs/specs/${SPEC}-db`,
    blobBase: 'https://github.com/Codertocat/Hello-World/blob/master',
    issueNumbers: new Map([['02-03', 14]]),
  });
  // The App's record on the marker line, the label its view.
  return { ...desired, body: withMarkerRecord(desired.body, 'status', status), labels: [...desired.labels, `status:${status}`] };
}

/** A `/harness` comment on plan issue #14, the thread having `comments` comments by then (GitHub counts them in the payload). */
function comment(body: string, id: number, comments: number, login = 'Codertocat') {
  const payload = webhookExample<CommentPayload>('issue_comment', (p) => p.action === 'created');
  Object.assign(payload.sender, { login, type: 'User' });
  Object.assign(payload.comment.user, { login, type: 'User' });
  const issue = planIssue(
    github
      .issue(14)
      .labels.find((l) => l.startsWith('status:'))!
      .slice('status:'.length),
  );
  Object.assign(payload.issue, {
    number: 14,
    title: issue.title,
    body: issue.body,
    labels: issue.labels.map((name) => ({ name })),
    state: 'open',
    comments,
    user: { login: 'harness[bot]', type: 'Bot' },
  });
  payload.comment.id = id;
  payload.comment.body = body;
  // The comment is in the thread by the time the App reads it, as on GitHub.
  github.comments.push({ id, issue: 14, body, userType: 'User', login: payload.sender.login, created_at: `2024-05-01T10:0${id}:00Z` });
  return { id: `delivery-${id}`, name: 'issue_comment', payload } as never;
}

beforeAll(() => nock.disableNetConnect());
beforeEach(() => {
  github = new FakeGitHub();
  github.commit(BASE, { 'README.md': '# Hello\n' });
  github.branches.set('master', BASE);
  github.roles.set('Codertocat', 'write');
  const issue = planIssue('failed');
  github.issues.push({ id: 900_014, number: 14, title: issue.title, body: issue.body, labels: issue.labels, state: 'open', state_reason: null });
  github.nextIssue = 100;
  github.install();
});
afterEach(() => nock.cleanAll());

function signalFiles(ref = SIGNALS) {
  return Object.entries(github.files(ref))
    .filter(([p]) => p.endsWith('.signal.md'))
    .map(([path, text]) => ({ path, text, data: parseKnowledge('signal', path, text).data! }));
}

describe("the App's signals", () => {
  it("the same command again is frustration, on the spec's signals PR; the first time costs not one request more", async () => {
    await testProbot().receive(comment('/harness spike "Should notes live in SQLite?"', 1, 0));
    // No thread to read: the payload counted no comment before this one.
    expect(github.log().filter((l) => l.includes('/issues/14/comments') && l.startsWith('GET'))).toEqual([]);
    expect(github.branches.has(SIGNALS)).toBe(false);

    const before = github.requests.length;
    await testProbot().receive(comment('/harness spike "Should notes live in SQLite?"', 3, 2));

    const log = github.log(before);
    const reply = log.indexOf(`POST ${R}/issues/14/comments`);
    expect(log.slice(reply)).toEqual([
      `POST ${R}/issues/14/comments`,
      `GET ${R}/issues/14/comments?per_page=100`,
      `GET ${R}/pulls?head=Codertocat:${SIGNALS}&state=all&per_page=100`,
      `GET ${R}/git/ref/heads/${SIGNALS}`,
      `GET ${R}/git/ref/heads/master`,
      `GET ${R}/contents/.harness/knowledge/index.md?ref=${BASE}`,
      expect.stringMatching(new RegExp(`^GET ${R}/contents/\\.harness/knowledge/trajectory/\\d{4}-\\d\\d-\\d\\d\\.jsonl\\?ref=${BASE}$`)),
      // The base commit the first command read already: a commit named by its sha never changes (app-memory.ts).
      `POST ${R}/git/trees`,
      `POST ${R}/git/commits`,
      `POST ${R}/git/refs`,
      `POST ${R}/pulls`,
      `POST ${R}/issues/${github.pullRequests.find((p) => p.head === SIGNALS)!.number}/labels`,
    ]);
    const [s] = signalFiles();
    expect(s!.data).toMatchObject({
      type: 'frustration',
      severity: 'low',
      project: 'Hello-World',
      spec: SPEC,
      tags: ['frustration', 'spike'],
      metadata: { reason: 'repeated-command', times: 2, comment: 3, earlier: [1] },
    });
    expect(s!.text).toContain('@Codertocat wrote `/harness spike "Should notes live in SQLite?"` on plan issue #14 for the second time.');
    expect(github.pullRequests.find((p) => p.head === SIGNALS)).toMatchObject({ title: `Signals of ${SPEC}`, labels: ['harness:knowledge', 'signal'] });

    // The same delivery again changes nothing: the reaction is there, so the command is not handled twice.
    const head = github.branches.get(SIGNALS);
    await testProbot().receive({ ...(comment('/harness spike "Should notes live in SQLite?"', 3, 2) as object), id: 'delivery-3' } as never);
    expect(github.branches.get(SIGNALS)).toBe(head);
  });

  it("refused people feed no frustration: a stranger's two refused retries do not make a writer's retry the third (issue 24, 9)", async () => {
    const probot = testProbot();
    await probot.receive(comment('/harness retry 02-03', 1, 0, 'mallory'));
    await probot.receive(comment('/harness retry 02-03', 3, 2, 'mallory'));
    // Refused (answered once: the App does not answer the same person's refusal twice in a thread).
    expect(github.comments.filter((c) => c.userType === 'Bot').map((c) => spoken(c.body))).toEqual([
      expect.stringMatching(/^Sorry @mallory, `retry` changes things/),
    ]);

    await probot.receive(comment('/harness retry 02-03', 5, 4));

    expect(github.branches.has(SIGNALS)).toBe(false);
    // One read of who @mallory is, for the thread; the writer's own role was read to let the command through.
    expect(github.log().filter((l) => l.endsWith('/collaborators/mallory/permission'))).toHaveLength(3);
  });

  it("refused people feed no frustration: a reader's refused answer is not one a writer's answer contradicts", async () => {
    github.roles.set('reader', 'read');
    github.planStatus(14, 'checkpoint');
    const probot = testProbot();
    await probot.receive(comment('/harness respond 02-03 postgres', 1, 0, 'reader'));
    await probot.receive(comment('/harness respond 02-03 sqlite', 3, 2));

    expect(github.branches.has(SIGNALS)).toBe(false);
  });

  it('a plan PR a person closed without merging is a review signal, with their last comment before the close; harness closing its own is none', async () => {
    const closed = webhookExample<{
      pull_request: Record<string, unknown> & { number: number; head: { ref: string } };
      sender: { login: string; type: string };
    }>('pull_request', (p) => p.action === 'closed');
    closed.pull_request.head.ref = `harness/${SPEC}/02-03`;
    github.comments.push({
      id: 51,
      issue: 2,
      body: 'This picks SQLite without the migration path we agreed on; closing, please plan the migration first.',
      userType: 'User',
      login: 'Codertocat',
      created_at: '2019-05-15T15:20:00Z',
    });
    github.comments.push({
      id: 52,
      issue: 2,
      body: 'Reopen when the plan is fixed.',
      userType: 'User',
      login: 'Codertocat',
      created_at: '2019-05-15T15:30:00Z',
    });

    const before = github.requests.length;
    await testProbot().receive({ id: 'closed-2', name: 'pull_request', payload: closed } as never);

    expect(github.log(before).slice(0, 2)).toEqual([`GET ${R}/issues/2/comments?per_page=100`, `GET ${R}/contents/.github/harness.yml`]);
    const [s] = signalFiles();
    expect(s!.data).toMatchObject({
      type: 'review',
      severity: 'high',
      spec: SPEC,
      phase: '02',
      plan: '02-03',
      metadata: { review: 'closed-unmerged', by: 'Codertocat', pr: 2 },
    });
    // Their comment before the close, not the one after it.
    expect(s!.text).toContain(
      'Codertocat closed plan 02-03 of SPC-042 (pull request #2, "Update the README with new information.") without merging it:\n\n> This picks SQLite without the migration path we agreed on; closing, please plan the migration first.',
    );
    expect(s!.text).not.toContain('Reopen when');
    expect(github.pullRequests.find((p) => p.head === SIGNALS)).toMatchObject({ title: `Signals of ${SPEC}` });

    // harness closing a plan PR itself (a retry) is no person's review.
    const head = github.branches.get(SIGNALS);
    closed.sender = { login: 'harness[bot]', type: 'Bot' };
    await testProbot().receive({ id: 'closed-3', name: 'pull_request', payload: closed } as never);
    expect(github.branches.get(SIGNALS)).toBe(head);
  });

  it('a review requesting changes on a plan PR is a review signal with what was asked; an approval or a comment is none', async () => {
    type ReviewPayload = { review: Record<string, unknown> & { state: string; body: string | null }; pull_request: { head: { ref: string } } };
    const review = webhookExample<ReviewPayload>('pull_request_review', (p) => p.action === 'submitted');
    review.pull_request.head.ref = `harness/${SPEC}/02-03`;
    review.review.body = 'Keep the SQLite file out of the repository: put it under var/ and ignore it.';

    // A comment-only review, and an approval: nothing is filed, nothing is read.
    const before = github.requests.length;
    await testProbot().receive({ id: 'review-1', name: 'pull_request_review', payload: review } as never);
    await testProbot().receive({
      id: 'review-2',
      name: 'pull_request_review',
      payload: { ...review, review: { ...review.review, state: 'approved' } },
    } as never);
    expect(github.log(before)).toEqual([]);

    review.review.state = 'changes_requested';
    await testProbot().receive({ id: 'review-3', name: 'pull_request_review', payload: review } as never);
    const [s] = signalFiles();
    expect(s!.data).toMatchObject({
      type: 'review',
      severity: 'medium',
      spec: SPEC,
      plan: '02-03',
      metadata: {
        review: 'changes-requested',
        by: 'Codertocat',
        pr: 2,
        id: 237895671,
        asked: 'Keep the SQLite file out of the repository: put it under var/ and ignore it.',
      },
    });
    expect(s!.text).toContain(
      'Codertocat requested changes on plan 02-03 of SPC-042 (pull request #2, "Update the README with new information."):\n\n> Keep the SQLite file out of the repository: put it under var/ and ignore it.',
    );

    // The same review delivered again files nothing twice.
    const head = github.branches.get(SIGNALS);
    await testProbot().receive({ id: 'review-4', name: 'pull_request_review', payload: review } as never);
    expect(signalFiles()).toHaveLength(1);
    expect(github.branches.get(SIGNALS)).toBe(head);
  });

  it('a review comment on a plan PR that a later push answers is a review signal with the diff that answered it; only from people whose comments count, once', async () => {
    type Comment = Record<string, unknown> & {
      id: number;
      body: string;
      path: string;
      original_commit_id: string;
      original_line: number;
      line: number;
      user: { login: string; type: string };
    };
    const example = webhookExample<{ comment: Comment }>(
      'pull_request_review_comment',
      (p) => p.action === 'created' && (p as { comment: { side?: string } }).comment.side === 'RIGHT',
    ).comment;
    const written = example.original_commit_id;
    const comment = (id: number, login: string, line: number, body: string): Comment => ({
      ...structuredClone(example),
      id,
      body,
      line,
      original_line: line,
      user: { ...example.user, login, type: 'User' },
    });
    github.roles.set('reader', 'read');
    github.reviewComments.set(2, [
      comment(61, 'Codertocat', 265, 'Say where the database file lives: var/app.sqlite, not the repository root.'),
      // A reader's comment on a line the push changed: not one whose word counts (permission: write).
      comment(62, 'reader', 266, 'Use Postgres.'),
      // A writer's comment on a line the push left alone: not answered (yet).
      comment(63, 'Codertocat', 10, 'Typo in the heading.'),
    ]);
    const pushed = 'd'.repeat(40);
    github.compareFiles.set(`${written}...${pushed}`, [
      {
        filename: 'README.md',
        status: 'modified',
        patch:
          '@@ -264,3 +264,3 @@ ## Storage\n The store keeps one file.\n-It lives in app.sqlite.\n+It lives in var/app.sqlite (ignored by git).\n More text.',
      },
    ]);
    const push = webhookExample<{ before: string; after: string; pull_request: { number: number; review_comments: number; head: { ref: string } } }>(
      'pull_request',
      (p) => p.action === 'synchronize',
    );
    push.pull_request.head.ref = `harness/${SPEC}/02-03`;
    push.before = written;
    push.after = pushed;
    push.pull_request.review_comments = 3;

    const before = github.requests.length;
    await testProbot().receive({ id: 'push-1', name: 'pull_request', payload: push } as never);
    expect(github.log(before).slice(0, 2)).toEqual([`GET ${R}/pulls/2/comments?per_page=100`, `GET ${R}/compare/${written}...${pushed}?per_page=1`]);
    const [s, ...others] = signalFiles();
    expect(others).toEqual([]);
    expect(s!.data).toMatchObject({
      type: 'review',
      severity: 'medium',
      spec: SPEC,
      plan: '02-03',
      metadata: {
        review: 'comment-addressed',
        by: 'Codertocat',
        pr: 2,
        id: 61,
        asked: 'Say where the database file lives: var/app.sqlite, not the repository root.',
        answered: { path: 'README.md', line: 265, commit: pushed },
      },
    });
    expect(s!.text).toContain(
      'Codertocat commented on plan 02-03 of SPC-042 (pull request #2, "Update the README with new information.") at `README.md:265`:\n\n> Say where the database file lives',
    );
    expect(s!.text).toContain(
      'A later commit (ddddddd) changed that line:\n\n```diff\n@@ -264,3 +264,3 @@ ## Storage\n The store keeps one file.\n-It lives in app.sqlite.\n+It lives in var/app.sqlite (ignored by git).\n More text.\n```',
    );

    // The next push files the answered comment no second time.
    const head = github.branches.get(SIGNALS);
    await testProbot().receive({ id: 'push-2', name: 'pull_request', payload: push } as never);
    expect(github.branches.get(SIGNALS)).toBe(head);
  });

  it('a merged pull request that reverts a plan PR is a review signal naming the revert; one reverting another PR is none', async () => {
    const closed = webhookExample<{
      pull_request: Record<string, unknown> & {
        id: number;
        number: number;
        title: string;
        body: string | null;
        merged: boolean;
        merged_by: unknown;
        head: { ref: string };
      };
    }>('pull_request', (p) => p.action === 'closed');
    Object.assign(closed.pull_request, {
      number: 8,
      title: 'Revert "Pick the database"',
      body: 'Reverts Codertocat/Hello-World#7\n\nThe migration broke reads in production.',
      merged: true,
      merged_by: { login: 'Codertocat', type: 'User' },
    });
    closed.pull_request.head.ref = 'revert-7-harness/SPC-042/02-03';
    github.pulls.set(7, {
      base: { ref: 'master', full_name: 'Codertocat/Hello-World' },
      head: { ref: `harness/${SPEC}/02-03`, full_name: 'Codertocat/Hello-World' },
    });
    github.pulls.set(9, { base: { ref: 'master', full_name: 'Codertocat/Hello-World' }, head: { ref: 'feature/readme', full_name: 'Codertocat/Hello-World' } });

    // Reverting a pull request that is no plan's: nothing filed.
    await testProbot().receive({
      id: 'revert-0',
      name: 'pull_request',
      payload: { ...closed, pull_request: { ...closed.pull_request, body: 'Reverts #9' } },
    } as never);
    expect(github.branches.has(SIGNALS)).toBe(false);

    const before = github.requests.length;
    await testProbot().receive({ id: 'revert-1', name: 'pull_request', payload: closed } as never);
    expect(github.log(before).slice(0, 2)).toEqual([`GET ${R}/pulls/7`, `GET ${R}/collaborators/Codertocat/permission`]);
    const [s] = signalFiles();
    expect(s!.data).toMatchObject({
      type: 'review',
      severity: 'high',
      spec: SPEC,
      plan: '02-03',
      metadata: { review: 'reverted', by: 'Codertocat', pr: 7, asked: 'The migration broke reads in production.', answered: { pr: 8 } },
    });
    expect(s!.text).toContain(
      'Codertocat reverted the merge of plan 02-03 of SPC-042 (pull request #7, "Pick the database"):\n\n> The migration broke reads in production.\n\nThe revert: pull request #8',
    );
  });

  it("a commit on the default branch that reverts a plan's merge is a review signal; a push elsewhere, or a bot's, reads nothing", async () => {
    const merge = 'e'.repeat(40);
    // The plan PR as GET /commits/{sha}/pulls lists it: the example pull request, merged by that commit.
    const planPr = webhookExample<{ pull_request: Record<string, unknown> & { head: Record<string, unknown> & { repo: { full_name: string } } } }>(
      'pull_request',
      (p) => p.action === 'closed',
    ).pull_request;
    Object.assign(planPr, {
      number: 7,
      title: 'Pick the database',
      merged_at: '2019-05-15T15:20:33Z',
      merge_commit_sha: merge,
      head: { ...planPr.head, ref: `harness/${SPEC}/02-03` },
    });
    github.commitPulls.set(merge, [planPr]);
    type Push = { ref: string; sender: { login: string; type: string }; commits: (Record<string, unknown> & { id: string; message: string })[] };
    const push = webhookExample<Push>('push', (p) => p.ref === 'refs/heads/master' && (p.commits as unknown[]).length > 0);
    const revert = 'f'.repeat(40);
    Object.assign(push.commits[0]!, {
      id: revert,
      message: `Revert "Pick the database"\n\nThe pool leaks connections under load.\n\nThis reverts commit ${merge}.`,
    });

    const before = github.requests.length;
    // On another branch, or pushed by a bot: nothing is read.
    await testProbot().receive({ id: 'push-b1', name: 'push', payload: { ...push, ref: 'refs/heads/feature' } } as never);
    await testProbot().receive({ id: 'push-b2', name: 'push', payload: { ...push, sender: { ...push.sender, type: 'Bot' } } } as never);
    expect(github.log(before)).toEqual([]);

    await testProbot().receive({ id: 'push-b3', name: 'push', payload: push } as never);
    expect(github.log(before).slice(0, 2)).toEqual([`GET ${R}/commits/${merge}/pulls?per_page=100`, `GET ${R}/collaborators/Codertocat/permission`]);
    const [s] = signalFiles();
    expect(s!.data).toMatchObject({
      type: 'review',
      severity: 'high',
      spec: SPEC,
      plan: '02-03',
      metadata: { review: 'reverted', by: 'Codertocat', pr: 7, id: revert, asked: 'The pool leaks connections under load.', answered: { commit: revert } },
    });
    expect(s!.text).toContain(
      'Codertocat reverted the merge of plan 02-03 of SPC-042 (pull request #7, "Pick the database"):\n\n> The pool leaks connections under load.\n\nThe revert: commit fffffff.',
    );
  });

  it("a plan a person aborted is interrupted, on the spec's signals PR", async () => {
    github.planStatus(14, 'running');
    github.workflowRuns.push({ id: 77, display_title: `harness ${SPEC}/02-03`, status: 'in_progress' });

    await testProbot().receive(comment('/harness abort 02-03', 1, 0));

    expect(spoken(github.comments.at(-1)!.body)).toBe(
      `Aborted ${SPEC} plan 02-03 (#14, was running): cancelled worker run 77; it is failed now, and retry starts it again.`,
    );
    const [s] = signalFiles();
    expect(s!.data).toMatchObject({ type: 'interrupted', severity: 'medium', spec: SPEC, phase: '02', plan: '02-03', metadata: { plans: ['02-03'] } });
    expect(s!.text).toContain('@Codertocat (/harness abort) stopped plan 02-03 (Pick the database) of SPC-042 while it was running.');
    expect(s!.text).toContain('The plan was running; cancelled worker run 77.');
  });

  it("with knowledge.repository, go to that repository's signals PR, under the project's name", async () => {
    nock.cleanAll();
    const shared = new FakeGitHub('Codertocat', 'knowledge');
    shared.commit(BASE, { 'README.md': '# Knowledge\n' });
    shared.branches.set('main', BASE);
    shared.defaultBranch = 'main';
    shared.install({ ownOnly: true });
    github.config = 'knowledge:\n  repository: Codertocat/knowledge\n';
    github.install({ ownOnly: true });
    github.planStatus(14, 'running');

    await testProbot().receive(comment('/harness abort 02-03', 1, 0));

    const branch = `harness/knowledge/signal/Hello-World/${SPEC}`;
    expect(shared.pullRequests.map((p) => [p.head, p.base, p.title, p.labels])).toEqual([
      [branch, 'main', `Signals of ${SPEC} from Hello-World`, ['harness:knowledge', 'signal']],
    ]);
    const files = Object.keys(shared.files(branch));
    expect(files).toContain('index.md');
    expect(files.filter((f) => f.startsWith('signals/Hello-World/') && f.endsWith('-interrupted.signal.md'))).toHaveLength(1);
    expect(github.branches.has(SIGNALS)).toBe(false);
  });
});
