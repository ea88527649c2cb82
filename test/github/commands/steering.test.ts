import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerClaimRef, CLAIM_GRACE_MS } from '../../../app/engine/forge/claims.js';
import { answerComment, checkpointMarker } from '../../../app/engine/forge/checkpoint-markers.js';
import { parseCommand } from '../../../app/engine/forge/parse-command.js';
import { FakeGitHub, spoken } from '../../helpers/github-repo.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';

/**
 * Who may steer a plan, and what a fault between two requests leaves behind, through Probot
 * with real webhook payloads and the stateful fake GitHub: every request is recorded, so each
 * test asserts exactly what the App asked, and what the repository holds after.
 */

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

const SPEC = 'SPC-042';
const PLAN = '02-03';
const ISSUE = 14;
const BASE = 'ba5e000000000000000000000000000000000001';
const WORK = 'a11ce00000000000000000000000000000000002';
const BRANCH = `harness/${SPEC}/${PLAN}`;
const QUESTION = 501;
const LONG_AGO = new Date(Date.now() - CLAIM_GRACE_MS - 60_000).toISOString();

/** A repository whose plan 02-03 waits at checkpoint `db-choice`, asked by the App on its issue, with work on its branch. */
function repository(owner: string, repo: string, status = 'checkpoint'): FakeGitHub {
  const github = new FakeGitHub(owner, repo);
  github.commit(BASE, { 'README.md': '# Hello\n' });
  github.commit(WORK, { 'README.md': '# Hello\n', 'src/db.ts': 'export const db = 1;\n' }, [BASE]);
  github.branches.set('master', BASE);
  github.branches.set(BRANCH, WORK);
  github.roles.set('Codertocat', 'write');
  github.roles.set('codebytere', 'write');
  github.roles.set('reader', 'read');
  github.issues.push({
    id: 9014,
    number: ISSUE,
    title: `[${PLAN}] Pick the database`,
    body: `<!-- harness:plan ${SPEC}/${PLAN} hash=0123456789abcdef -->\n**Spec** ${SPEC}`,
    labels: ['harness:plan', `spec:${SPEC}`, 'phase:02'],
    state: 'open',
    state_reason: null,
  });
  // As the App (its worker) recorded it: the record on the marker line, the label its view.
  github.planStatus(ISSUE, status as 'checkpoint');
  github.comments.push({
    id: QUESTION,
    issue: ISSUE,
    body: `${checkpointMarker(PLAN, 'db-choice')}\n**Plan ${PLAN} waits for a person**`,
    userType: 'Bot',
    created_at: '2026-01-01T10:00:00Z',
  });
  github.install();
  return github;
}

type CheckPayload = { check_run: { name: string; external_id: string }; requested_action: { identifier: string } };

function approve(delivery: string) {
  const payload = webhookExample<CheckPayload>('check_run', (p) => p.action === 'requested_action');
  payload.check_run.name = `harness / plan ${PLAN}`;
  payload.check_run.external_id = `${SPEC}/${PLAN}`;
  payload.requested_action.identifier = 'approve';
  return { id: delivery, name: 'check_run', payload } as never;
}

type CommentPayload = {
  comment: { id: number; body: string; user: { login: string; type: string } };
  issue: Record<string, unknown>;
  sender: { login: string; type: string };
};

/** `/harness …` written on the plan issue (the real issue_comment payload, on #14), by `login`. */
function written(body: string, options: { id?: number; login?: string; type?: string; delivery?: string } = {}) {
  const payload = webhookExample<CommentPayload>('issue_comment', (p) => p.action === 'created');
  payload.comment.body = body;
  payload.comment.id = options.id ?? 492700400;
  const login = options.login ?? 'Codertocat';
  const type = options.type ?? 'User';
  Object.assign(payload.comment.user, { login, type });
  Object.assign(payload.sender, { login, type });
  Object.assign(payload.issue, {
    user: { login: 'harness[bot]', type: 'Bot' },
    number: ISSUE,
    title: `[${PLAN}] Pick the database`,
    body: `<!-- harness:plan ${SPEC}/${PLAN} hash=0123456789abcdef status=checkpoint -->`,
    labels: [{ name: 'harness:plan' }, { name: `spec:${SPEC}` }, { name: 'status:checkpoint' }],
    state: 'open',
    comments: 1,
  });
  return { id: options.delivery ?? `delivery-${payload.comment.id}`, name: 'issue_comment', payload } as never;
}

const claimOf = (question = QUESTION) => answerClaimRef(SPEC, PLAN, question);
const answers = (github: FakeGitHub) => github.comments.filter((c) => c.body.startsWith('<!-- harness:answer'));
const replies = (github: FakeGitHub) => github.comments.filter((c) => c.userType === 'Bot' && !c.body.startsWith('<!--')).map((c) => spoken(c.body));

describe('concurrent Approve', () => {
  it('the Approve button delivered twice at once dispatches exactly one worker: the question is claimed by creating a ref, atomically', async () => {
    const github = repository('electron', 'electron');
    const probot = testProbot();

    await Promise.all([probot.receive(approve('press-1')), probot.receive(approve('press-2'))]);

    expect(github.dispatches).toHaveLength(1);
    expect(github.dispatches[0]!.body).toEqual({ ref: 'master', inputs: { spec: SPEC, plan: PLAN, resume: 'true' }, return_run_details: true });
    expect(answers(github).map((c) => c.body)).toEqual([answerComment(PLAN, 'db-choice', 'approve')]);
    // Both tried to claim; one ref holds the claim, on a tag object that says when and what.
    expect(github.log().filter((l) => l === 'POST /repos/electron/electron/git/refs')).toHaveLength(2);
    const tag = github.tags.get(github.refs.get(claimOf())!)!;
    expect(tag.message).toBe(`harness: answering checkpoint db-choice of ${SPEC}/${PLAN} for @codebytere, then dispatching its worker`);
    expect(tag.object).toBe(WORK);
    expect(github.issue(ISSUE).labels).toContain('status:running');
    expect(replies(github).sort()).toEqual([
      `Answered checkpoint \`db-choice\` of ${SPEC} plan ${PLAN} (#${ISSUE}) for @codebytere; the worker resumes from what is committed on the plan branch.`,
      `Checkpoint \`db-choice\` of ${SPEC} plan ${PLAN} (#${ISSUE}) is answered already, and its worker is being dispatched: nothing more to do.`,
    ]);
  });
});

describe('respond-then-failed-dispatch', () => {
  it('a failed dispatch leaves the plan at its checkpoint with the claim given back; the same answer again dispatches once', async () => {
    const github = repository('Codertocat', 'Hello-World');
    github.fail = (method, url) => (method === 'POST' && url.endsWith('/dispatches') ? 502 : undefined);
    const R = '/repos/Codertocat/Hello-World';

    await expect(testProbot().receive(written(`/harness respond ${PLAN} Postgres`))).rejects.toThrow();

    expect(github.log()).toEqual([
      `POST ${R}/issues/comments/492700400/reactions`,
      `GET ${R}/contents/.github/harness.yml`,
      `GET /repos/Codertocat/.github/contents/.github/harness.yml`,
      `GET ${R}/collaborators/Codertocat/permission`,
      `GET ${R}/issues/${ISSUE}/comments?per_page=100`,
      'POST /graphql',
      `GET ${R}/git/ref/heads/${BRANCH}`,
      `POST ${R}/git/tags`,
      `POST ${R}/git/refs`,
      `POST ${R}/issues/${ISSUE}/comments`,
      `POST ${R}/actions/workflows/harness-worker.yml/dispatches`,
      // A 502 leaves unknown whether a worker started: looked for by its title, never dispatched again blind (workflows.ts).
      `GET ${R}/actions/workflows/harness-worker.yml/runs?status=queued&per_page=100`,
      `GET ${R}/actions/workflows/harness-worker.yml/runs?status=in_progress&per_page=100`,
      `DELETE ${R}/git/refs/harness/plans/${SPEC}/${PLAN}/answers/${QUESTION}`,
      `DELETE ${R}/issues/comments/492700400/reactions/492700400`,
      `POST ${R}/issues/${ISSUE}/comments`,
    ]);
    // Not stranded: still answerable, no claim held, the work on the branch untouched.
    expect(github.issue(ISSUE).labels).toContain('status:checkpoint');
    expect(github.refs.has(claimOf())).toBe(false);
    expect(github.branches.get(BRANCH)).toBe(WORK);
    expect(replies(github).at(-1)).toMatch(/^Something went wrong running `respond`: .*Write the command again to retry\.$/);

    github.fail = () => undefined;
    await testProbot().receive(written(`/harness respond ${PLAN} Postgres`, { id: 492700401 }));

    // The failed dispatch was refused (GitHub keeps none); this one went through.
    expect(github.dispatches).toHaveLength(1);
    expect(github.issue(ISSUE).labels).toContain('status:running');
    expect(github.issue(ISSUE).labels).not.toContain('status:checkpoint');
    expect(answers(github).at(-1)!.body).toBe(answerComment(PLAN, 'db-choice', 'Postgres'));
  });
});

describe('claim-then-crash', () => {
  /** What a delivery that died after claiming the answer left: the claim, dated, and nothing else. */
  function deadClaim(github: FakeGitHub, at: string): void {
    const sha = 'dead000000000000000000000000000000000001';
    github.tags.set(sha, {
      tag: String(QUESTION),
      message: 'harness: answering checkpoint db-choice',
      object: WORK,
      tagger: { name: 'harness', email: 'harness@users.noreply.github.com', date: at },
    });
    github.refs.set(claimOf(), sha);
  }

  it('respond finds a claim with no worker behind it past the grace period, takes it over and dispatches once', async () => {
    const github = repository('Codertocat', 'Hello-World');
    deadClaim(github, LONG_AGO);

    await testProbot().receive(written(`/harness respond ${PLAN} Postgres`));

    expect(github.dispatches).toHaveLength(1);
    expect(github.issue(ISSUE).labels).toContain('status:running');
    const R = '/repos/Codertocat/Hello-World';
    expect(github.log().filter((l) => /git\/(refs|ref|tags)|runs/.test(l))).toEqual([
      `GET ${R}/git/ref/heads/${BRANCH}`,
      `POST ${R}/git/tags`,
      `POST ${R}/git/refs`,
      `GET ${R}/git/ref/harness/plans/${SPEC}/${PLAN}/answers/${QUESTION}`,
      `GET ${R}/git/tags/dead000000000000000000000000000000000001`,
      `GET ${R}/actions/workflows/harness-worker.yml/runs?status=queued&per_page=100`,
      `GET ${R}/actions/workflows/harness-worker.yml/runs?status=in_progress&per_page=100`,
      `POST ${R}/git/refs`,
      `DELETE ${R}/git/refs/harness/plans/${SPEC}/${PLAN}/answers/${QUESTION}`,
      `POST ${R}/git/tags`,
      `POST ${R}/git/refs`,
    ]);
    expect(github.tags.get(github.refs.get(claimOf())!)!.message).toMatch(/for @Codertocat, then dispatching its worker$/);
    // The takeover is itself a claim, named after the dead claim's tag: nobody else can take that one over.
    expect(github.refs.has(`refs/harness/plans/${SPEC}/${PLAN}/takeover/answer-${QUESTION}-dead000000000000000000000000000000000001`)).toBe(true);
  });

  it('a delivery that found the claim dead after another delivery took it over leaves the new claim alone', async () => {
    const github = repository('Codertocat', 'Hello-World');
    deadClaim(github, LONG_AGO);
    const dead = github.refs.get(claimOf())!;
    // The racing delivery takes the dead claim over between this one's reading it and acting on it.
    github.beforeServe = (method, url) => {
      if (method !== 'GET' || !url.includes('status=in_progress') || github.refs.get(claimOf()) !== dead) return;
      github.refs.set(`refs/harness/plans/${SPEC}/${PLAN}/takeover/answer-${QUESTION}-${dead}`, WORK);
      const fresh = 'f4e5000000000000000000000000000000000001';
      github.tags.set(fresh, {
        tag: String(QUESTION),
        message: 'harness: answering checkpoint db-choice for @other',
        object: WORK,
        tagger: { name: 'harness', email: 'harness@users.noreply.github.com', date: new Date().toISOString() },
      });
      github.refs.set(claimOf(), fresh);
    };

    await testProbot().receive(written(`/harness respond ${PLAN} Postgres`));

    expect(github.dispatches).toEqual([]);
    expect(answers(github)).toEqual([]);
    expect(github.refs.get(claimOf())).toBe('f4e5000000000000000000000000000000000001');
  });

  it('two deliveries that find the same dead claim at once: one takes it over and dispatches, the other leaves it', async () => {
    const github = repository('Codertocat', 'Hello-World');
    deadClaim(github, LONG_AGO);
    const probot = testProbot();

    await Promise.all([
      probot.receive(written(`/harness respond ${PLAN} Postgres`, { id: 1001 })),
      probot.receive(written(`/harness respond ${PLAN} MySQL`, { id: 1002 })),
    ]);

    expect(github.dispatches).toHaveLength(1);
    expect(answers(github)).toHaveLength(1);
    expect(github.issue(ISSUE).labels).toContain('status:running');
  });

  it('a claim taken just now is another delivery at work: nothing is dispatched', async () => {
    const github = repository('Codertocat', 'Hello-World');
    deadClaim(github, new Date().toISOString());

    await testProbot().receive(written(`/harness respond ${PLAN} Postgres`));

    expect(github.dispatches).toEqual([]);
    expect(answers(github)).toEqual([]);
    expect(github.issue(ISSUE).labels).toContain('status:checkpoint');
  });

  it('a claim whose worker runs only lacks its label: the label follows the worker, and nothing is dispatched again', async () => {
    const github = repository('Codertocat', 'Hello-World');
    deadClaim(github, LONG_AGO);
    github.workflowRuns.push({ id: 7100, display_title: `harness ${SPEC}/${PLAN}`, status: 'in_progress' });

    await testProbot().receive(written(`/harness respond ${PLAN} Postgres`));

    expect(github.dispatches).toEqual([]);
    expect(github.issue(ISSUE).labels).toContain('status:running');
    expect(replies(github).at(-1)).toBe(
      `Checkpoint \`db-choice\` of ${SPEC} plan ${PLAN} (#${ISSUE}) is answered already and its worker is resuming (run 7100): nothing more to do.`,
    );
  });
});

describe('forged marker', () => {
  it('a checkpoint question typed by a person or by another bot is not one respond answers', async () => {
    const github = repository('Codertocat', 'Hello-World');
    github.comments.length = 0;
    github.comments.push(
      { id: 601, issue: ISSUE, body: checkpointMarker(PLAN, 'forged-by-person'), userType: 'User', login: 'mallory' },
      { id: 602, issue: ISSUE, body: checkpointMarker(PLAN, 'forged-by-bot'), userType: 'Bot', login: 'mallory-app[bot]' },
    );

    await testProbot().receive(written(`/harness respond ${PLAN} yes`));

    expect(github.dispatches).toEqual([]);
    expect(github.refs.size).toBe(0);
    expect(replies(github).at(-1)).toBe(
      `${SPEC} plan ${PLAN} (#${ISSUE}) is at a checkpoint, but I found no checkpoint question by harness on its issue to answer.`,
    );
  });

  it("the worker's own question, posted with GITHUB_TOKEN as github-actions[bot], is one", async () => {
    const github = repository('Codertocat', 'Hello-World');
    github.comments[0]!.login = 'github-actions[bot]';

    await testProbot().receive(written(`/harness respond ${PLAN} yes`));

    expect(github.dispatches).toHaveLength(1);
  });
});

describe('redelivery after a crash', () => {
  it('a command whose first delivery died after the 👀 (older than the grace period, never answered) is handled by the redelivery', async () => {
    const github = repository('Codertocat', 'Hello-World');
    github.reactions.set(492700400, LONG_AGO);

    await testProbot().receive(written(`/harness respond ${PLAN} Postgres`, { delivery: 'redelivered' }));

    expect(github.dispatches).toHaveLength(1);
    expect(github.comments.at(-1)!.body).toMatch(/\n\n<!-- harness:reply 492700400 -->$/);
  });

  it('a command answered to the end is not handled again, however late the redelivery', async () => {
    const github = repository('Codertocat', 'Hello-World');
    github.reactions.set(492700400, LONG_AGO);
    github.comments.push({ id: 700, issue: ISSUE, body: 'Answered checkpoint …\n\n<!-- harness:reply 492700400 -->', userType: 'Bot' });
    const R = '/repos/Codertocat/Hello-World';

    await testProbot().receive(written(`/harness respond ${PLAN} Postgres`, { delivery: 'redelivered' }));

    expect(github.log()).toEqual([`POST ${R}/issues/comments/492700400/reactions`, `GET ${R}/issues/${ISSUE}/comments?per_page=100`, 'POST /graphql']);
  });

  it('a reply marker typed by someone else does not make an unfinished command look finished', async () => {
    const github = repository('Codertocat', 'Hello-World');
    github.reactions.set(492700400, LONG_AGO);
    github.comments.push({ id: 700, issue: ISSUE, body: 'x\n\n<!-- harness:reply 492700400 -->', userType: 'Bot', login: 'mallory-app[bot]' });

    await testProbot().receive(written(`/harness respond ${PLAN} Postgres`, { delivery: 'redelivered' }));

    expect(github.dispatches).toHaveLength(1);
  });

  it('a 👀 taken moments ago is a delivery at work: the duplicate stops at the reaction', async () => {
    const github = repository('Codertocat', 'Hello-World');
    github.reactions.set(492700400, new Date().toISOString());

    await testProbot().receive(written(`/harness respond ${PLAN} Postgres`, { delivery: 'duplicate' }));

    expect(github.log()).toEqual(['POST /repos/Codertocat/Hello-World/issues/comments/492700400/reactions']);
  });
});

describe('other bot and read-only answerer', () => {
  it("another bot is refused once per thread, never once per comment; the App's own comment is never a command", async () => {
    const github = repository('Codertocat', 'Hello-World');

    await testProbot().receive(written('/harness execute all', { id: 801, login: 'renovate[bot]', type: 'Bot' }));
    await testProbot().receive(written('/harness retry 02-03\n/harness abort 02-03', { id: 802, login: 'renovate[bot]', type: 'Bot' }));

    const refusals = replies(github);
    expect(refusals).toEqual(['Thanks, but harness takes commands from people only, not from bots (@renovate[bot]), so nothing was run.']);
    // Nothing the App answered is a command it would take.
    expect(github.comments.filter((c) => c.userType === 'Bot').every((c) => parseCommand(c.body) === undefined)).toBe(true);

    const before = github.requests.length;
    await testProbot().receive(written('/harness help', { id: 803, login: 'harness[bot]', type: 'Bot' }));
    // Its own login the App asked once (app-memory.ts): known, it is not asked again.
    expect(github.log(before)).toEqual([]);
  });

  it('a read-only collaborator cannot answer a checkpoint (nor press Approve), and is told once per thread', async () => {
    const github = repository('Codertocat', 'Hello-World');

    await testProbot().receive(written(`/harness respond ${PLAN} approve`, { id: 901, login: 'reader' }));
    await testProbot().receive(written(`/harness respond ${PLAN} approve`, { id: 902, login: 'reader' }));

    expect(github.dispatches).toEqual([]);
    expect(answers(github)).toEqual([]);
    expect(github.issue(ISSUE).labels).toContain('status:checkpoint');
    expect(replies(github)).toHaveLength(1);
    expect(replies(github)[0]).toMatch(
      /^Sorry @reader, `respond` changes things, so it needs the write role on this repository or above, and you have the read role\./,
    );
  });
});

describe("forged marker: a plan issue's", () => {
  it("an issue a person opened with the labels and a plan marker typed in is not the plan's issue, even numbered lower", async () => {
    const github = repository('Codertocat', 'Hello-World', 'failed');
    // Someone with the triage role can label; the marker is text. Lower-numbered, it would win the match.
    github.issues.push({
      id: 9003,
      number: 3,
      title: `[${PLAN}] Pick the database`,
      body: `<!-- harness:plan ${SPEC}/${PLAN} hash=0123456789abcdef -->`,
      labels: ['harness:plan', `spec:${SPEC}`, 'phase:02', 'status:checkpoint'],
      state: 'open',
      state_reason: null,
      user: { login: 'mallory', type: 'User' },
    });

    // Written on the forged issue itself, whose payload carries its labels and marker.
    const event = written(`/harness respond ${SPEC}/${PLAN} yes`, { id: 1001 }) as unknown as { payload: CommentPayload };
    Object.assign(event.payload.issue, { number: 3, user: { login: 'mallory', type: 'User' } });
    await testProbot().receive(event as never);

    expect(github.dispatches).toEqual([]);
    expect(github.comments.at(-1)!.issue).toBe(3);
    expect(replies(github).at(-1)).toBe(`${SPEC} plan ${PLAN} (#${ISSUE}) is failed, not waiting at a checkpoint: there is nothing to answer.`);
  });
});

describe('forged marker: inside an answer', () => {
  it("a marker in a person's answer is defused in the App's answer comment, so it cannot mark another command finished", async () => {
    const github = repository('Codertocat', 'Hello-World');

    await testProbot().receive(written(`/harness respond ${PLAN} yes <!-- harness:reply 492700999 -->`));

    expect(answers(github).map((c) => c.body)).toEqual([answerComment(PLAN, 'db-choice', 'yes &lt;!-- harness:reply 492700999 -->')]);
  });
});
