import nock from 'nock';
import { ProbotOctokit } from 'probot';
import { GitHubForge } from '../../app/worker-action/github-forge.js';
import type { IssueComment } from '../../app/worker-action/worker-forge.js';
import type { WorkerLog } from '../../app/worker-action/worker-log.js';

export const OWNER = 'octo-org';
export const REPO = 'widgets';
export const REPO_PATH = `/repos/${OWNER}/${REPO}`;

/** The worker's forge over a real Octokit (retries and throttling off), so that nock sees real requests. */
export function testForge(): GitHubForge {
  const Octokit = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
    ...options,
    throttle: { ...(options.throttle as object), enabled: false },
    retry: { enabled: false },
  }));
  const octokit = new Octokit({ auth: { token: 'test-token' } });
  return new GitHubForge(octokit.request, { owner: OWNER, repo: REPO });
}

export function api(): nock.Scope {
  return nock('https://api.github.com');
}

export interface IssueFixture {
  number: number;
  plan: string;
  spec?: string;
  status?: string;
  state?: 'open' | 'closed';
}

/** A plan issue as GET /issues returns it: marker first in the body, labels as objects. */
export function issueJson(i: IssueFixture) {
  const spec = i.spec ?? 'SPC-007';
  const labels = ['harness:plan', `spec:${spec}`, `phase:${i.plan.slice(0, 2)}`, ...(i.status ? [`status:${i.status}`] : [])];
  return {
    number: i.number,
    title: `[${i.plan}] Plan ${i.plan}`,
    state: i.state ?? 'open',
    html_url: `https://github.com/${OWNER}/${REPO}/issues/${i.number}`,
    body: `<!-- harness:plan ${spec}/${i.plan} hash=0123456789abcdef -->\n**Spec** …`,
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
export function issueComment(c: CommentFixture): IssueComment {
  const json = commentJson(c);
  return { id: json.id, body: json.body, author: json.user.login, authorType: json.user.type, association: json.author_association, createdAt: json.created_at, url: json.html_url };
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
