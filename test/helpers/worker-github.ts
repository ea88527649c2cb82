import nock from 'nock';
import type { CommentRecord } from '../../app/gateway/comments.js';
import { workerForge, type WorkerForge } from '../../app/worker-action/worker-run.js';
import type { WorkerLog } from '../../app/worker-action/job-log.js';
import { testOctokit } from './octokit.js';

export const OWNER = 'octo-org';
export const REPO = 'widgets';
export const REPO_PATH = `/repos/${OWNER}/${REPO}`;

/** The worker's forge over a real Octokit (retries and throttling off), so that nock sees real requests. */
export function testForge(): WorkerForge {
  return workerForge(testOctokit().request, { owner: OWNER, repo: REPO }, 'harness-app[bot]');
}

export function api(): nock.Scope {
  return nock('https://api.github.com');
}

/** A pull request as GET /pulls lists it and POST /pulls answers: the fields the forge reads. */
export interface PullFixture {
  number: number;
  html_url: string;
}

/**
 * The requests of one worker run, in the order the worker makes them, each exactly as the
 * gateway sends it: the spec's plan issues; the plan's comments; at a checkpoint, the
 * question and the status write (the record on the marker line, then `status:checkpoint` added,
 * the old status removed); at the
 * end, the plan PR (the open ones for the branch listed, then one created, or the open one
 * updated). Each part is there only when given. The bodies the worker sends go to `sent`.
 */
export interface WorkerRequests {
  spec: string;
  /** The spec's plan issues: GET /issues?labels=harness:plan,spec:<spec>,phase:<phase>&state=all answers those with the phase's label, as GitHub filters. */
  issues: nock.Body[];
  /** The phase the worker looks in first; 01 unless given. */
  phase?: string;
  /** The worker did not find its plan in the phase's list and lists the whole spec's (labels harness:plan,spec:<spec>). */
  wholeSpec?: boolean;
  /** The plan's issue and what GET …/comments answers. */
  comments?: { issue: number; answer: nock.Body[] };
  /** A question asked on the issue: what POST …/comments answers, and the status the issue had. */
  ask?: { issue: number; answer: nock.Body; from: string };
  /** The plan PR from `head` into `base`: `open` is what the list finds (updated when there is one), `created` what POST /pulls answers. */
  pull?: { head: string; base: string; open: PullFixture[]; created?: PullFixture };
  sent?: (route: string, body: Record<string, unknown>) => void;
  /**
   * The plan issue's status as the plan ends: the issue read again (GET …/issues/{n}), its record
   * `status=running` unless `others` names a status someone recorded meanwhile (then only the
   * run's record, `runs=`, is written: their status stands); else the record and the run's (one
   * PATCH of the body), POST …/labels with `to` and the DELETE of status:running.
   */
  end?: { issue: number; to: 'verified' | 'failed'; others?: string[] };
}

export function workerRequests(r: WorkerRequests): nock.Scope {
  const keep = (route: string) => (body: Record<string, unknown>) => {
    r.sent?.(route, body);
    return true;
  };
  const phase = `phase:${r.phase ?? '01'}`;
  const inPhase = r.issues.filter((i) => ((i as { labels?: { name: string }[] }).labels ?? []).some((l) => l.name === phase));
  const scope = api()
    .get(`${REPO_PATH}/issues`)
    .query({ labels: `harness:plan,spec:${r.spec},${phase}`, state: 'all', direction: 'asc', per_page: '100' })
    .reply(200, inPhase);
  if (r.wholeSpec)
    scope
      .get(`${REPO_PATH}/issues`)
      .query({ labels: `harness:plan,spec:${r.spec}`, state: 'all', direction: 'asc', per_page: '100' })
      .reply(200, r.issues);
  if (r.comments) scope.get(`${REPO_PATH}/issues/${r.comments.issue}/comments`).query({ per_page: '100' }).reply(200, r.comments.answer);
  // The plan issue as the worker listed it, its body as the App wrote it: what a PATCH of its record answers with the new body.
  const listed = (number: number) => r.issues.find((i) => (i as { number?: number }).number === number) as Record<string, unknown>;
  const patched = (number: number) => (_uri: string, body: nock.Body) => ({ ...listed(number), body: (body as { body: string }).body });
  if (r.ask) {
    const issue = `${REPO_PATH}/issues/${r.ask.issue}`;
    scope.post(`${issue}/comments`, keep(`POST ${issue}/comments`)).reply(201, r.ask.answer);
    // The record first (status=checkpoint on the marker line), then its label.
    if (r.ask.from !== 'checkpoint')
      scope.patch(issue, (b: Record<string, unknown>) => /status=checkpoint/.test(String(b.body))).reply(200, patched(r.ask.issue));
    scope.post(`${issue}/labels`, { labels: ['status:checkpoint'] }).reply(200, []);
    if (r.ask.from !== 'checkpoint') scope.delete(`${issue}/labels/${encodeURIComponent(`status:${r.ask.from}`)}`).reply(200, []);
  }
  if (r.end) {
    // A worker writes its end status only once it wrote its check run's final state (plan-worker.ts, settle): the job's own
    // check run, created at its start, written while it runs and at its end, and on the pushed head when there is one.
    const run = {
      id: 4242,
      name: 'harness / plan',
      head_sha: 'abc',
      status: 'in_progress',
      conclusion: null,
      external_id: `${r.spec}/plan`,
      output: { title: null, summary: null },
    };
    scope.post(`${REPO_PATH}/check-runs`).reply(201, run);
    scope.patch(`${REPO_PATH}/check-runs/4242`).optionally().times(1_000).reply(200, run);
    scope
      .post(`${REPO_PATH}/check-runs`)
      .optionally()
      .reply(201, { ...run, id: 4243, status: 'completed' });
    const issue = `${REPO_PATH}/issues/${r.end.issue}`;
    // The issue read again: its record says running, unless someone recorded another status meanwhile (`others`: theirs stands).
    const meanwhile = r.end.others?.[0]?.replace(/^status:(ready|blocked)$/, 'status:queued').replace(/^status:/, '');
    const now = listed(r.end.issue);
    const body = String(now.body)
      .replace(/ status=\S+/, '')
      .replace(' -->', ` status=${meanwhile ?? 'running'} -->`);
    scope.get(issue).reply(200, { ...now, body });
    // The run's record (runs=) goes with the status, or alone when the status is someone else's now.
    if (meanwhile !== undefined)
      scope
        .patch(issue, (b: Record<string, unknown>) => new RegExp(` status=${meanwhile} runs=\\S+ -->`).test(String(b.body)))
        .reply(200, patched(r.end.issue));
    if (meanwhile === undefined) {
      scope.patch(issue, (b: Record<string, unknown>) => new RegExp(`status=${r.end!.to} runs=\\S+ -->`).test(String(b.body))).reply(200, patched(r.end.issue));
      scope.post(`${issue}/labels`, { labels: [`status:${r.end.to}`] }).reply(
        200,
        ['harness:plan', `spec:${r.spec}`, 'status:running', `status:${r.end.to}`].map((name, id) => ({ id, name })),
      );
      scope.delete(`${issue}/labels/${encodeURIComponent('status:running')}`).reply(200, []);
    }
  }
  if (r.pull) {
    const { head, base, open, created } = r.pull;
    scope
      .get(`${REPO_PATH}/pulls`)
      .query({ head: `${OWNER}:${head}`, base, state: 'open', per_page: '100' })
      .reply(200, open);
    if (open[0]) scope.patch(`${REPO_PATH}/pulls/${open[0].number}`, keep(`PATCH ${REPO_PATH}/pulls/${open[0].number}`)).reply(200, open[0]);
    else if (created) scope.post(`${REPO_PATH}/pulls`, keep(`POST ${REPO_PATH}/pulls`)).reply(201, created);
  }
  return scope;
}

export interface IssueFixture {
  number: number;
  plan: string;
  spec?: string;
  status?: string;
  state?: 'open' | 'closed';
}

/** A plan issue as GET /issues returns it: marker first in the body (with the App's record of its status), labels as objects. */
export function issueJson(i: IssueFixture) {
  const spec = i.spec ?? 'SPC-007';
  const labels = ['harness:plan', `spec:${spec}`, `phase:${i.plan.slice(0, 2)}`, ...(i.status ? [`status:${i.status}`] : [])];
  const record = i.status === undefined ? '' : ` status=${i.status === 'ready' || i.status === 'blocked' ? 'queued' : i.status}`;
  return {
    number: i.number,
    // The App opened it (the spec PR sync): only a bot's issue is a plan's.
    user: { login: 'harness-app[bot]', type: 'Bot' },
    title: `[${i.plan}] Plan ${i.plan}`,
    state: i.state ?? 'open',
    html_url: `https://github.com/${OWNER}/${REPO}/issues/${i.number}`,
    body: `<!-- harness:plan ${spec}/${i.plan} hash=0123456789abcdef${record} -->\n**Spec** …`,
    labels: labels.map((name, id) => ({ id, name })),
  };
}

export interface CommentFixture {
  id: number;
  body: string;
  at: string;
  login?: string;
  type?: 'User' | 'Bot';
  association?: string;
}

/** A comment as GET /issues/{n}/comments returns it; by the harness App's bot unless said otherwise. */
export function commentJson(c: CommentFixture) {
  return {
    id: c.id,
    body: c.body,
    user: { login: c.login ?? 'harness-app[bot]', type: c.type ?? 'Bot' },
    author_association: c.association ?? 'NONE',
    created_at: c.at,
    html_url: `https://github.com/${OWNER}/${REPO}/issues/1#issuecomment-${c.id}`,
  };
}

/** The same comment as the forge hands it to the worker. */
export function issueComment(c: CommentFixture): CommentRecord {
  const json = commentJson(c);
  return {
    id: json.id,
    body: json.body,
    author: json.user.login,
    authorType: json.user.type,
    association: json.author_association,
    createdAt: json.created_at,
    url: json.html_url,
  };
}

/** A log that keeps its lines, for assertions. */
export function testLog(): WorkerLog & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => void lines.push(m),
    warning: (m) => void lines.push(`warning: ${m}`),
    group: async (name, work) => {
      lines.push(`## ${name}`);
      return work();
    },
  };
}
