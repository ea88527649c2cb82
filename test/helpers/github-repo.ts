import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import type { SpecFile } from '../../app/engine/core/spec/text.js';
import { answerGraphQL, GraphQLFailure } from './github-graphql.js';
import { checkAgainstOpenApi, FAKE_HEADER } from './github-openapi.js';

/**
 * A fake GitHub for one repository, at the HTTP level (nock): a Git object store with real
 * blob and tree shas (so equal contents have equal shas, which the spec PR sync relies on),
 * and in-memory issues, labels, check runs, comments and issue dependencies behind the REST
 * endpoints harness uses, answering with the fields GitHub's responses carry. Every request
 * is recorded, in order, so that a test can assert exactly what was asked, and nothing else.
 */

export interface RecordedRequest {
  method: string;
  /** Path and query, percent-decoded: `GET /repos/o/r/contents/docs/specs?ref=abc`. */
  url: string;
  /** JSON body, for writes. */
  body?: unknown;
}

export interface FakeIssue {
  id: number;
  number: number;
  title: string;
  body: string | null;
  labels: string[];
  state: 'open' | 'closed';
  state_reason: string | null;
  /** Who opened it: the App's bot unless given (a person forging a plan issue, say). */
  user?: { login: string; type: 'User' | 'Bot' };
  /** When it last changed (ISO 8601): set by every write through the API; GET /issues?since= filters on it. */
  updated_at?: string;
}

export interface FakeCheckRun {
  id: number;
  name: string;
  head_sha: string;
  external_id: string | null;
  status: string;
  conclusion: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  annotations: Record<string, unknown>[];
  /** When it was completed (ISO 8601), as GitHub records it. */
  completed_at?: string;
  /** When it started (ISO 8601): as created, unless the request said. */
  started_at?: string;
}

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  userType: 'Bot' | 'User';
  /** Who wrote it: `octocat` for a person, the App's bot otherwise, unless given. */
  login?: string;
  created_at?: string;
}

type GitObject = { type: 'blob'; bytes: Uint8Array } | { type: 'tree'; entries: { name: string; mode: string; sha: string }[] };

/** A pull request the fake keeps (GET /pulls lists them, POST /pulls opens one). */
export interface FakePull {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  state: 'open' | 'closed';
  merged: boolean;
  labels: string[];
  created_at: string;
  /** The head's commit while open; frozen when closed, as GitHub keeps it. */
  closedHeadSha?: string;
}

type Reply = [number, unknown?, Record<string, string>?];

const API = 'https://api.github.com';
const encoder = new TextEncoder();

/** A label's GraphQL node id in the fake: stable for its name (GitHub's are opaque, `LA_…`). */
export function labelNodeId(name: string): string {
  return `LA_${Buffer.from(name).toString('base64url')}`;
}

function gitSha(type: string, content: Uint8Array): string {
  return createHash('sha1').update(`${type} ${content.length}\0`).update(content).digest('hex');
}

/** Thrown by the fake after it served a request whose answer failAfter drops. */
class DroppedAfterServing extends Error {}

export class FakeGitHub {
  readonly requests: RecordedRequest[] = [];
  /** The status each of `requests` was answered with, in the same order (304: a conditional read found nothing changed). */
  readonly statuses: number[] = [];
  /** `.github/harness.yml` on the default branch; undefined: no such file (404). */
  config: string | undefined = undefined;
  issues: FakeIssue[] = [];
  labels: { name: string; color: string; description: string | null }[] = [];
  checkRuns: FakeCheckRun[] = [];
  comments: FakeComment[] = [];
  /** Issue number → database ids of the issues blocking it. */
  blockedBy = new Map<number, Set<number>>();
  /** How GitHub answers issue-dependency writes: 'available', or the status it refuses them with. */
  dependencies: 'available' | 403 | 404 | 410 = 'available';
  /** Parent issue number → its sub-issues' database ids, in the order they were added. */
  subIssues = new Map<number, number[]>();
  /** How GitHub answers sub-issue writes: 'available', or the status it refuses them with. */
  subIssuesAnswer: 'available' | 403 | 404 | 410 = 'available';
  /** Answer recursive tree reads with `truncated: true` (and only the first few entries). */
  truncateTrees = false;
  /** Paths (from the repository root) committed as symbolic links (mode 120000): the blob is the link's target. */
  symlinks = new Set<string>();
  /**
   * A status to answer instead of serving a request (say 500 for the third issue created), with
   * the headers to send along (`retry-after` on a 403, as GitHub's secondary rate limit answers);
   * undefined serves it.
   */
  fail: (method: string, url: string) => number | { status: number; headers: Record<string, string> } | undefined = () => undefined;
  /** Over HTTP (serve()): true drops the connection without an answer (ECONNRESET at the client) instead of serving the request. */
  drop: (method: string, url: string) => boolean = () => false;
  /**
   * A fault after the request was served: the write happened, then its answer was lost. A status
   * replaces the answer (GitHub's 502 after it acted); 'drop' closes the connection without one
   * (over HTTP, serve(); through nock the client sees a socket error). Undefined answers as served.
   */
  failAfter: (method: string, url: string) => number | 'drop' | undefined = () => undefined;
  /** Whether the request being served was answered by a fault the test injected (fail). */
  private injected = false;
  /** `base...head` → merge base; the base itself unless set. */
  mergeBases = new Map<string, string>();
  nextIssue = 100;
  /** Branches: name → commit. */
  branches = new Map<string, string>();
  /** Pull requests by number, as GET /pulls/{n} answers (the fields harness reads). */
  pulls = new Map<
    number,
    { base: { ref: string; full_name: string }; head: { ref: string; full_name: string }; state?: 'open' | 'closed'; merged?: boolean }
  >();
  /** The paths each pull request changes (GET /pulls/{n}/files), as a test sets them. */
  readonly pullFiles = new Map<number, string[]>();
  /** Review comments by pull request number (GET /pulls/{n}/comments), as GitHub's REST API lists them. */
  readonly reviewComments = new Map<number, Record<string, unknown>[]>();
  /** Commit sha → the pull requests GET /commits/{sha}/pulls lists for it, as GitHub's REST API shapes them. */
  readonly commitPulls = new Map<string, Record<string, unknown>[]>();
  /** `base...head` → the files the compare lists, with their patches (none unless set). */
  readonly compareFiles = new Map<string, { filename: string; status: string; patch?: string }[]>();
  /** Someone's role on the repository (GET /collaborators/{user}/permission); 404 for anyone else. */
  roles = new Map<string, 'admin' | 'maintain' | 'write' | 'triage' | 'read'>();
  /** Each issue's history (GET /issues/{n}/events), as a test sets it: who labelled it what. */
  readonly issueEvents = new Map<number, { event: string; label?: { name: string }; actor?: { login: string } }[]>();
  /** Workflow dispatches received: the workflow and the body. */
  dispatches: { workflow: string; body: unknown }[] = [];
  /** The worker workflow's runs, as GET …/actions/workflows/harness-worker.yml/runs lists them by status. */
  workflowRuns: { id: number; display_title: string; status: string; url?: string; html_url?: string }[] = [];
  /** A dispatch starts a queued run titled by the workflow's run-name (`harness <spec>/<plan>`), as GitHub does; off by default, so that rounds see the runs a test sets. */
  runsOnDispatch = false;
  /** Pull requests opened through the API (POST /pulls), by number. */
  pullRequests: FakePull[] = [];
  defaultBranch = 'master';
  /** When pull requests are opened. */
  now: () => Date = () => new Date();
  /** Called before a request is served, to let a test change the repository in between (a racing writer). */
  beforeServe: (method: string, url: string) => void = () => undefined;
  /** Comment ids the App has reacted to, and when: GitHub answers 201 the first time, 200 (the reaction as it was) after. */
  readonly reactions = new Map<number, string>();
  /** Refs outside refs/heads/ (harness's claims): full name → the object it points at. */
  readonly refs = new Map<string, string>();
  /** Annotated tag objects (POST /git/tags) by sha. */
  readonly tags = new Map<string, { tag: string; message: string; object: string; tagger: { name: string; email: string; date: string } }>();
  /** Branch name → when it was last created (GET /activity, activity_type=branch_creation). */
  readonly branchCreations = new Map<string, string>();
  /** Who the token belongs to (POST /graphql, viewer). */
  viewer = 'harness[bot]';
  /** Commits made through the git data API, or given parents by `commit`. */
  private readonly commitParents = new Map<string, string[]>();
  private readonly commitMessages = new Map<string, string>();

  private readonly objects = new Map<string, GitObject>();
  private readonly roots = new Map<string, string>();
  private nextId = 1;

  constructor(
    readonly owner = 'Codertocat',
    readonly repo = 'Hello-World',
  ) {}

  /** The repository's files at commit `sha` (repository paths → contents), on `parents`. */
  commit(sha: string, files: Record<string, string | Uint8Array>, parents: string[] = []): void {
    this.roots.set(
      sha,
      this.writeTree(Object.entries(files).map(([path, content]) => [path.split('/'), typeof content === 'string' ? encoder.encode(content) : content])),
    );
    this.commitParents.set(sha, parents);
  }

  /** The repository's files at a commit or branch: path → text. */
  files(ref: string): Record<string, string> {
    const root = this.roots.get(this.branches.get(ref) ?? ref);
    if (root === undefined) throw new Error(`no commit or branch ${ref}`);
    return Object.fromEntries(
      this.listTree(root, '', true)
        .filter((e) => e.type === 'blob')
        .map((e) => [e.path, new TextDecoder().decode((this.objects.get(e.sha) as { bytes: Uint8Array }).bytes)]),
    );
  }

  /** A commit's parents, first parent first. */
  parents(sha: string): string[] {
    return this.commitParents.get(sha) ?? [];
  }

  message(sha: string): string | undefined {
    return this.commitMessages.get(sha);
  }

  /** A commit on top of a branch, as another writer (a person, a racing job) would push it. */
  pushTo(branch: string, files: Record<string, string>, message = 'someone else'): string {
    const head = this.branches.get(branch);
    if (head === undefined) throw new Error(`no branch ${branch}`);
    const tree = this.mergeTree(
      this.roots.get(head)!,
      Object.entries(files).map(([path, text]) => ({ path, bytes: encoder.encode(text) })),
    );
    const sha = this.newCommit(tree, [head], message);
    this.branches.set(branch, sha);
    return sha;
  }

  private newCommit(tree: string, parents: string[], message: string): string {
    const sha = gitSha('commit', encoder.encode(`tree ${tree}\n${parents.map((p) => `parent ${p}\n`).join('')}\n${message}\n${this.nextId++}`));
    this.roots.set(sha, tree);
    this.commitParents.set(sha, parents);
    this.commitMessages.set(sha, message);
    return sha;
  }

  /** Is `ancestor` reachable from `sha` through parents? */
  private descends(sha: string, ancestor: string): boolean {
    const seen = new Set<string>();
    const todo = [sha];
    while (todo.length > 0) {
      const next = todo.pop()!;
      if (next === ancestor) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      todo.push(...this.parents(next));
    }
    return false;
  }

  /** `base` with files added or replaced, as POST /git/trees with base_tree builds it. */
  private mergeTree(base: string, files: { path: string; bytes: Uint8Array }[], deletions: readonly string[] = []): string {
    const all = new Map(
      this.listTree(base, '', true)
        .filter((e) => e.type === 'blob')
        .map((e) => [e.path, (this.objects.get(e.sha) as { bytes: Uint8Array }).bytes]),
    );
    for (const f of files) all.set(f.path, f.bytes);
    for (const path of deletions) all.delete(path);
    return this.writeTree([...all].map(([path, bytes]) => [path.split('/'), bytes]));
  }

  /** The blob at `path` in commit (or branch) `ref`. */
  private blobAt(ref: string, path: string): { sha: string; bytes: Uint8Array } | undefined {
    const parts = path.split('/');
    const name = parts.pop()!;
    const dir = this.treeAt(this.branches.get(ref) ?? ref, parts.join('/'));
    const obj = dir === undefined ? undefined : this.objects.get(dir);
    const entry = obj?.type === 'tree' ? obj.entries.find((e) => e.name === name && e.mode !== '040000') : undefined;
    const blob = entry ? this.objects.get(entry.sha) : undefined;
    return blob?.type === 'blob' ? { sha: entry!.sha, bytes: blob.bytes } : undefined;
  }

  /** The sha of the tree at `path` in commit `sha`. */
  treeAt(sha: string, path: string): string | undefined {
    let tree = this.roots.get(sha);
    for (const name of path.split('/').filter(Boolean)) {
      const obj = tree === undefined ? undefined : this.objects.get(tree);
      tree = obj?.type === 'tree' ? obj.entries.find((e) => e.name === name && e.mode === '040000')?.sha : undefined;
    }
    return tree;
  }

  /**
   * Serve api.github.com from this fake until nock.cleanAll(): every request, or with `ownOnly`
   * only this repository's (so that two fakes, a project and its knowledge repository, can serve side by side).
   */
  install(options: { ownOnly?: boolean } = {}): nock.Scope {
    const scope = nock(API).persist();
    const paths = options.ownOnly ? new RegExp(`^/repos/${this.owner}/${this.repo}(?:[/?]|$)`) : /.*/;
    for (const method of ['GET', 'POST', 'PATCH', 'DELETE']) {
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- nock hands the request to a function whose `this` is its own
      const fake = this;
      scope
        .intercept(paths, method)
        .query(true)
        .reply(function (uri, body, callback) {
          try {
            callback(
              null,
              fake.handle(method, uri, body === '' ? undefined : body, this.req.headers as Record<string, string | undefined>) as unknown as nock.ReplyFnResult,
            );
          } catch (e) {
            // The write was applied and the connection dropped: the client gets a socket error, no answer.
            if (e instanceof DroppedAfterServing) callback(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), [0, '']);
            else throw e;
          }
        });
    }
    return scope;
  }

  /**
   * Serve this fake over HTTP on 127.0.0.1 (a process of its own, such as the bundled worker
   * action, points GITHUB_API_URL at it): the same routes and state as install() serves to nock.
   */
  async serve(): Promise<{ url: string; close: () => Promise<void> }> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (this.drop(req.method ?? 'GET', req.url ?? '/')) {
          req.socket.destroy();
          return;
        }
        const text = Buffer.concat(chunks).toString('utf8');
        let reply: Reply;
        try {
          reply = this.handle(
            req.method ?? 'GET',
            req.url ?? '/',
            text === '' ? undefined : (JSON.parse(text) as unknown),
            req.headers as Record<string, string | undefined>,
          );
        } catch (e) {
          if (e instanceof DroppedAfterServing) {
            req.socket.destroy();
            return;
          }
          reply = [500, { message: e instanceof Error ? e.message : String(e) }];
        }
        const [status, body, headers] = reply;
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...(headers ?? {}) });
        res.end(body === undefined ? '' : JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  /** Requests as `METHOD /path?query`, decoded. */
  log(from = 0): string[] {
    return this.requests.slice(from).map((r) => `${r.method} ${r.url}`);
  }

  /**
   * The label writes GraphQL requests made, in the order GitHub ran them, read from each
   * mutation and its variables: `#10 +status:running`, `#10 -status:ready`.
   */
  labelMutations(from = 0): string[] {
    const name = (id: string) => this.labels.find((l) => labelNodeId(l.name) === id)?.name ?? id;
    const issue = (id: string) => this.issues.find((i) => `I_${i.id}` === id)?.number ?? id;
    return this.requests.slice(from).flatMap((r) => {
      const { query, variables = {} } = (r.body ?? {}) as { query?: string; variables?: Record<string, unknown> };
      if (r.url !== '/graphql' || typeof query !== 'string') return [];
      const value = (v: string) => (v.startsWith('$') ? variables[v.slice(1)] : v);
      return [...query.matchAll(/(addLabelsToLabelable|removeLabelsFromLabelable)\(input: \{labelableId: (\$\w+), labelIds: (\$\w+)\}\)/g)].flatMap((m) =>
        (value(m[3]!) as string[]).map((l) => `#${issue(value(m[2]!) as string)} ${m[1] === 'addLabelsToLabelable' ? '+' : '-'}${name(l)}`),
      );
    });
  }

  writes(from = 0): RecordedRequest[] {
    // A GraphQL query is a POST that writes nothing (the App asking who it is); a mutation writes.
    return this.requests
      .slice(from)
      .filter((r) => r.method !== 'GET' && (r.url !== '/graphql' || /^\s*mutation\b/.test(String((r.body as { query?: unknown } | undefined)?.query ?? ''))));
  }

  issue(number: number): FakeIssue {
    const issue = this.issues.find((i) => i.number === number);
    if (!issue) throw new Error(`no issue #${number}`);
    return issue;
  }

  /**
   * A plan issue's status as the App (or its worker) writes it, with no request: the record on its
   * marker line (`status=`, ready and blocked both `queued`) and the label, the record's view.
   */
  planStatus(number: number, status: 'ready' | 'blocked' | 'running' | 'checkpoint' | 'failed' | 'verified'): FakeIssue {
    const issue = this.issue(number);
    const record = status === 'ready' || status === 'blocked' ? 'queued' : status;
    issue.body = (issue.body ?? '').replace(
      /^(<!-- harness:plan \S+)((?: [a-z_]+=\S*)*) -->/m,
      (_, head: string, records: string) => `${head}${records.replace(/ status=\S*/, '')} status=${record} -->`,
    );
    issue.labels = [...issue.labels.filter((l) => !l.startsWith('status:')), `status:${status}`];
    return issue;
  }

  // --- Git objects ---------------------------------------------------------------------

  private writeTree(files: [string[], Uint8Array][], prefix = ''): string {
    const children = new Map<string, [string[], Uint8Array][]>();
    const entries: { name: string; mode: string; sha: string }[] = [];
    for (const [parts, bytes] of files) {
      if (parts.length === 1) {
        const sha = gitSha('blob', bytes);
        this.objects.set(sha, { type: 'blob', bytes });
        entries.push({ name: parts[0]!, mode: this.symlinks.has(`${prefix}${parts[0]!}`) ? '120000' : '100644', sha });
      } else children.set(parts[0]!, [...(children.get(parts[0]!) ?? []), [parts.slice(1), bytes]]);
    }
    for (const [name, sub] of children) entries.push({ name, mode: '040000', sha: this.writeTree(sub, `${prefix}${name}/`) });
    // Git orders tree entries by name, a directory as if its name ended in "/".
    const key = (e: { name: string; mode: string }) => (e.mode === '040000' ? `${e.name}/` : e.name);
    entries.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    const parts: Buffer[] = [];
    for (const e of entries) parts.push(Buffer.from(`${e.mode === '040000' ? '40000' : e.mode} ${e.name}\0`), Buffer.from(e.sha, 'hex'));
    const sha = gitSha('tree', Buffer.concat(parts));
    this.objects.set(sha, { type: 'tree', entries });
    return sha;
  }

  private listTree(sha: string, prefix: string, recursive: boolean): { path: string; mode: string; type: string; sha: string; size?: number }[] {
    const obj = this.objects.get(sha);
    if (obj?.type !== 'tree') return [];
    return obj.entries.flatMap((e) => {
      const path = `${prefix}${e.name}`;
      const child = this.objects.get(e.sha)!;
      const self =
        child.type === 'blob' ? { path, mode: e.mode, type: 'blob', sha: e.sha, size: child.bytes.length } : { path, mode: e.mode, type: 'tree', sha: e.sha };
      return recursive && child.type === 'tree' ? [self, ...this.listTree(e.sha, `${path}/`, true)] : [self];
    });
  }

  // --- REST ----------------------------------------------------------------------------

  private readonly watchers: { match: (r: RecordedRequest) => boolean; resolve: (r: RecordedRequest) => void }[] = [];

  /** Resolves with the first request (made from now on) that `match` accepts: a test waits on what a process did, not on a clock. */
  whenRequested(match: (r: RecordedRequest) => boolean): Promise<RecordedRequest> {
    return new Promise((resolve) => this.watchers.push({ match, resolve }));
  }

  /**
   * A request served: routed, recorded with the status it got, and for a read answered 200 an
   * `etag` (a hash of what was sent), with 304 and no body when the request's `If-None-Match`
   * names it, as GitHub answers conditional requests.
   */
  private handle(method: string, uri: string, body: unknown, headers: Record<string, string | undefined> = {}): Reply {
    this.injected = false;
    let reply = this.route(method, uri, body);
    const lost = this.failAfter(method, this.requests.at(-1)?.url ?? uri);
    if (lost === 'drop') {
      this.statuses[this.requests.length - 1] = 0;
      this.checkRest(method, uri, body, undefined);
      throw new DroppedAfterServing(`${method} ${uri}`);
    }
    if (lost !== undefined) reply = [lost, { message: 'Server Error' }];
    if (method === 'GET' && reply[0] === 200) {
      const etag = `W/"${createHash('sha1')
        .update(JSON.stringify(reply[1] ?? null))
        .update(reply[2]?.link ?? '')
        .digest('hex')}"`;
      reply = headers['if-none-match'] === etag ? [304, undefined, { etag }] : [200, reply[1], { ...reply[2], etag }];
    }
    this.statuses.length = this.requests.length;
    this.statuses[this.requests.length - 1] = reply[0];
    // A status a test injected (fail) is its stimulus, not the fake's model of GitHub: the request is held to the description, that status is not.
    this.checkRest(method, uri, body, this.injected ? undefined : reply[0]);
    return [reply[0], reply[1], { ...reply[2], [FAKE_HEADER]: 'checked' }];
  }

  /** A REST request and the status the fake answered, held to GitHub's OpenAPI description (github-openapi.ts); GraphQL has its own check. */
  private checkRest(method: string, uri: string, body: unknown, status: number | undefined): void {
    if (new URL(uri, API).pathname === '/graphql') return;
    checkAgainstOpenApi({ method, url: uri, body, status }, 'the fake GitHub (test/helpers/github-repo.ts)');
  }

  private route(method: string, uri: string, body: unknown): Reply {
    const url = new URL(uri, API);
    const path = decodeURIComponent(url.pathname);
    const query = Object.fromEntries(url.searchParams);
    const search = url.search ? `?${decodeURIComponent(url.search.slice(1))}` : '';
    this.beforeServe(method, `${path}${search}`);
    const recorded: RecordedRequest = { method, url: `${path}${search}`, ...(body === undefined ? {} : { body }) };
    this.requests.push(recorded);
    for (const watcher of this.watchers.filter((w) => w.match(recorded))) {
      this.watchers.splice(this.watchers.indexOf(watcher), 1);
      watcher.resolve(recorded);
    }
    const failure = this.fail(method, `${path}${search}`);
    this.injected = failure !== undefined;
    if (typeof failure === 'number') return [failure, { message: 'Server Error' }];
    if (failure !== undefined) return [failure.status, { message: 'You have exceeded a secondary rate limit' }, failure.headers];
    const prefix = `/repos/${this.owner}/${this.repo}`;
    if (method === 'POST' && path === '/graphql') return answerGraphQL(body, this.graphqlRoot());
    if (method === 'GET' && path === prefix) return [200, { name: this.repo, full_name: `${this.owner}/${this.repo}`, default_branch: this.defaultBranch }];
    if (!path.startsWith(`${prefix}/`)) return [404, { message: 'Not Found' }];
    const route = `${method} ${path.slice(prefix.length)}`;
    const b = (body ?? {}) as Record<string, unknown>;
    let m: RegExpExecArray | null;

    if (route === 'GET /contents/.github/harness.yml') {
      return this.config === undefined ? [404, { message: 'Not Found' }] : [200, this.config, { 'content-type': 'application/vnd.github.raw; charset=utf-8' }];
    }
    if ((m = /^GET \/contents\/(.+)$/.exec(route))) {
      const ref = query.ref ?? this.defaultBranch;
      const file = this.blobAt(ref, m[1]!);
      if (file)
        return [
          200,
          {
            type: 'file',
            encoding: 'base64',
            size: file.bytes.length,
            name: m[1]!.split('/').pop(),
            path: m[1],
            sha: file.sha,
            content: Buffer.from(file.bytes).toString('base64'),
          },
        ];
      const tree = this.treeAt(this.branches.get(ref) ?? ref, m[1]!);
      if (tree === undefined) return [404, { message: 'Not Found' }];
      return [
        200,
        this.listTree(tree, `${m[1]}/`, false).map((e) => ({
          type: e.type === 'tree' ? 'dir' : 'file',
          name: e.path.split('/').pop(),
          path: e.path,
          sha: e.sha,
          size: e.size ?? 0,
        })),
      ];
    }
    if ((m = /^GET \/compare\/([0-9a-f]+)\.\.\.([0-9a-f]+)$/.exec(route))) {
      return [
        200,
        { merge_base_commit: { sha: this.mergeBases.get(`${m[1]}...${m[2]}`) ?? m[1] }, commits: [], files: this.compareFiles.get(`${m[1]}...${m[2]}`) ?? [] },
      ];
    }
    if ((m = /^GET \/commits\/([0-9a-f]{40})\/pulls$/.exec(route))) {
      return this.page(url, this.commitPulls.get(m[1]!) ?? []);
    }
    if ((m = /^GET \/pulls\/(\d+)\/comments$/.exec(route))) {
      return this.page(url, this.reviewComments.get(Number(m[1])) ?? []);
    }
    if ((m = /^GET \/git\/trees\/([0-9a-f]+)$/.exec(route))) {
      if (this.objects.get(m[1]!)?.type !== 'tree') return [404, { message: 'Not Found' }];
      const entries = this.listTree(m[1]!, '', query.recursive !== undefined);
      if (this.truncateTrees && query.recursive !== undefined) return [200, { sha: m[1], tree: entries.slice(0, 2), truncated: true }];
      return [200, { sha: m[1], tree: entries, truncated: false }];
    }
    if ((m = /^GET \/git\/commits\/([0-9a-f]+)$/.exec(route))) {
      const tree = this.roots.get(m[1]!);
      if (tree === undefined) return [404, { message: 'Not Found' }];
      return [200, { sha: m[1], tree: { sha: tree }, parents: this.parents(m[1]!).map((sha) => ({ sha })), message: this.commitMessages.get(m[1]!) ?? '' }];
    }
    if (route === 'POST /git/trees') {
      if (this.objects.get(b.base_tree as string)?.type !== 'tree') return [422, { message: 'Invalid tree info' }];
      const entries = b.tree as { path: string; content?: string; sha?: string | null }[];
      // An entry with sha null deletes its file; GitHub refuses to delete one that is not there.
      const deletions = entries.filter((f) => f.sha === null).map((f) => f.path);
      const present = new Set(this.listTree(b.base_tree as string, '', true).map((e) => e.path));
      if (deletions.some((path) => !present.has(path))) return [422, { message: 'GitRPC::BadObjectState' }];
      const files = entries.filter((f) => f.sha !== null).map((f) => ({ path: f.path, bytes: encoder.encode(f.content ?? '') }));
      const sha = this.mergeTree(b.base_tree as string, files, deletions);
      return [201, { sha, tree: [], truncated: false }];
    }
    if (route === 'POST /git/commits') {
      if (this.objects.get(b.tree as string)?.type !== 'tree') return [422, { message: 'Tree SHA does not exist' }];
      const sha = this.newCommit(b.tree as string, b.parents as string[], b.message as string);
      return [201, { sha, tree: { sha: b.tree }, parents: (b.parents as string[]).map((p) => ({ sha: p })), message: b.message }];
    }
    if ((m = /^PATCH \/git\/refs\/heads\/(.+)$/.exec(route))) {
      const current = this.branches.get(m[1]!);
      if (current === undefined) return [422, { message: 'Reference does not exist' }];
      if (b.force !== true && !this.descends(b.sha as string, current)) return [422, { message: 'Update is not a fast forward' }];
      this.branches.set(m[1]!, b.sha as string);
      return [200, { ref: `refs/heads/${m[1]}`, object: { sha: b.sha, type: 'commit' } }];
    }
    if ((m = /^GET \/pulls\/(\d+)\/files$/.exec(route))) {
      const files = this.pullFiles.get(Number(m[1]));
      if (files === undefined) return [404, { message: 'Not Found' }];
      // Each file's blob at the pull request's head, as GitHub lists them; a file the head does not have is removed.
      const head = this.pullRequests.find((p) => p.number === Number(m![1]))?.head ?? this.pulls.get(Number(m[1]))?.head.ref;
      return this.page(
        url,
        files.map((filename) => {
          const blob = head === undefined ? undefined : this.blobAt(head, filename);
          return { filename, status: blob ? 'modified' : 'removed', sha: blob?.sha ?? '0'.repeat(40) };
        }),
      );
    }
    if (route === 'GET /pulls') {
      const head = query.head?.replace(new RegExp(`^${this.owner}:`), '');
      const found = this.pullRequests
        .filter(
          (p) =>
            (head === undefined || p.head === head) &&
            (query.base === undefined || p.base === query.base) &&
            (query.state === 'all' || p.state === (query.state ?? 'open')),
        )
        .sort((x, y) => y.number - x.number);
      return this.page(
        url,
        found.map((p) => this.pullJson(p)),
      );
    }
    if (route === 'POST /pulls') {
      if (!this.branches.has(b.head as string)) return [422, { message: 'Validation Failed', errors: [{ field: 'head', code: 'invalid' }] }];
      if (this.pullRequests.some((p) => p.state === 'open' && p.head === b.head && p.base === b.base))
        return [422, { message: `A pull request already exists for ${this.owner}:${b.head as string}.` }];
      const pull: FakePull = {
        number: this.nextIssue++,
        title: b.title as string,
        body: (b.body as string) ?? '',
        head: b.head as string,
        base: b.base as string,
        state: 'open',
        merged: false,
        labels: [],
        created_at: this.now().toISOString(),
      };
      this.pullRequests.push(pull);
      return [201, this.pullJson(pull)];
    }
    if ((m = /^PATCH \/pulls\/(\d+)$/.exec(route))) {
      const pull = this.pullRequests.find((p) => p.number === Number(m![1]));
      if (!pull) return [404, { message: 'Not Found' }];
      if (b.title !== undefined) pull.title = b.title as string;
      if (b.body !== undefined) pull.body = b.body as string;
      return [200, this.pullJson(pull)];
    }
    if ((m = /^GET \/git\/blobs\/([0-9a-f]+)$/.exec(route))) {
      const obj = this.objects.get(m[1]!);
      if (obj?.type !== 'blob') return [404, { message: 'Not Found' }];
      return [200, { sha: m[1], size: obj.bytes.length, encoding: 'base64', content: Buffer.from(obj.bytes).toString('base64') }];
    }

    if ((m = /^GET \/commits\/(.+)\/check-runs$/.exec(route))) {
      // {ref} is a sha or a branch (its head commit); GitHub answers 422 for a ref it does not know.
      // A branch is named as `heads/<branch>` (the docs' form) or bare.
      const sha = /^[0-9a-f]+$/.test(m[1]!) ? m[1]! : this.branches.get(m[1]!.replace(/^heads\//, ''));
      if (sha === undefined) return [422, { message: `No commit found for SHA: ${m[1]}` }];
      const runs = this.checkRuns.filter((r) => r.head_sha === sha && (query.check_name === undefined || r.name === query.check_name));
      // filter=latest (the default): the most recent run of each name.
      const latest = [...new Map(runs.map((r) => [r.name, r])).values()];
      return [200, { total_count: latest.length, check_runs: latest.map((r) => this.checkRunJson(r)) }];
    }
    if (route === 'POST /check-runs') {
      const run: FakeCheckRun = {
        id: this.nextId++,
        name: b.name as string,
        head_sha: b.head_sha as string,
        external_id: (b.external_id as string) ?? null,
        status: (b.status as string) ?? 'queued',
        conclusion: (b.conclusion as string) ?? null,
        output: { title: null, summary: null, text: null },
        annotations: [],
        started_at: typeof b.started_at === 'string' ? b.started_at : this.now().toISOString(),
      };
      this.applyCheckRun(run, b);
      this.checkRuns.push(run);
      return [201, this.checkRunJson(run)];
    }
    if ((m = /^PATCH \/check-runs\/(\d+)$/.exec(route))) {
      const run = this.checkRuns.find((r) => r.id === Number(m![1]));
      if (!run) return [404, { message: 'Not Found' }];
      this.applyCheckRun(run, b);
      return [200, this.checkRunJson(run)];
    }

    if (route === 'GET /issues') {
      const wanted = (query.labels ?? '').split(',').filter(Boolean);
      const state = query.state ?? 'open';
      const found = this.issues
        .filter((i) => wanted.every((l) => i.labels.includes(l)) && (state === 'all' || i.state === state))
        // creator: the login of the issue's author.
        .filter((i) => query.creator === undefined || (i.user?.login ?? 'harness[bot]') === query.creator)
        // since: "only show results that were last updated after the given time"; an issue the fake never saw written counts as old.
        .filter((i) => query.since === undefined || (i.updated_at !== undefined && i.updated_at > query.since))
        // sort=created (the default), direction desc unless asked: newest first, as GitHub lists them.
        .sort((a, b) => (query.direction === 'asc' ? a.number - b.number : b.number - a.number));
      return this.page(
        url,
        found.map((i) => this.issueJson(i)),
      );
    }
    if (route === 'POST /issues') {
      const number = this.nextIssue++;
      const issue: FakeIssue = {
        id: 900_000 + number,
        number,
        title: b.title as string,
        body: (b.body as string) ?? null,
        labels: [],
        state: 'open',
        state_reason: null,
      };
      issue.labels = this.applyLabels((b.labels as string[]) ?? []);
      issue.updated_at = this.now().toISOString();
      this.issues.push(issue);
      return [201, this.issueJson(issue)];
    }
    if ((m = /^GET \/issues\/(\d+)$/.exec(route))) {
      const issue = this.issues.find((i) => i.number === Number(m![1]));
      return issue ? [200, this.issueJson(issue)] : [404, { message: 'Not Found' }];
    }
    if ((m = /^PATCH \/issues\/(\d+)$/.exec(route))) {
      const issue = this.issues.find((i) => i.number === Number(m![1]));
      if (!issue) return [404, { message: 'Not Found' }];
      if (b.title !== undefined) issue.title = b.title as string;
      if (b.body !== undefined) issue.body = b.body as string;
      if (b.labels !== undefined) issue.labels = this.applyLabels(b.labels as string[]);
      if (b.state !== undefined && b.state !== issue.state) {
        issue.state = b.state as 'open' | 'closed';
        issue.state_reason = issue.state === 'closed' ? ((b.state_reason as string) ?? 'completed') : 'reopened';
      }
      issue.updated_at = this.now().toISOString();
      return [200, this.issueJson(issue)];
    }
    if ((m = /^POST \/issues\/(\d+)\/labels$/.exec(route))) {
      const pull = this.pullRequests.find((p) => p.number === Number(m![1]));
      if (pull) {
        pull.labels.push(...this.applyLabels((b.labels as string[]) ?? []).filter((l) => !pull.labels.includes(l)));
        return [200, pull.labels.map((name) => ({ name }))];
      }
      const issue = this.issues.find((i) => i.number === Number(m![1]));
      if (!issue) return [404, { message: 'Not Found' }];
      const added = this.applyLabels((b.labels as string[]) ?? []).filter((l) => !issue.labels.includes(l));
      issue.labels.push(...added);
      if (added.length > 0) issue.updated_at = this.now().toISOString();
      return [200, this.issueJson(issue).labels];
    }
    if ((m = /^DELETE \/issues\/(\d+)\/labels\/(.+)$/.exec(route))) {
      const issue = this.issues.find((i) => i.number === Number(m![1]));
      if (!issue?.labels.includes(m[2]!)) return [404, { message: 'Label does not exist' }];
      issue.labels = issue.labels.filter((l) => l !== m![2]);
      issue.updated_at = this.now().toISOString();
      return [200, this.issueJson(issue).labels];
    }
    if ((m = /^GET \/issues\/(\d+)\/comments$/.exec(route))) {
      return this.page(
        url,
        this.comments.filter((c) => c.issue === Number(m![1])).map((c) => this.commentJson(c)),
      );
    }
    if ((m = /^POST \/issues\/(\d+)\/comments$/.exec(route))) {
      const comment: FakeComment = { id: this.nextId++, issue: Number(m[1]), body: b.body as string, userType: 'Bot' };
      this.comments.push(comment);
      return [201, this.commentJson(comment)];
    }
    if ((m = /^DELETE \/issues\/comments\/(\d+)$/.exec(route))) {
      const at = this.comments.findIndex((c) => c.id === Number(m![1]));
      if (at === -1) return [404, { message: 'Not Found' }];
      this.comments.splice(at, 1);
      return [204];
    }
    if ((m = /^PATCH \/issues\/comments\/(\d+)$/.exec(route))) {
      const comment = this.comments.find((c) => c.id === Number(m![1]));
      if (!comment) return [404, { message: 'Not Found' }];
      comment.body = b.body as string;
      return [200, this.commentJson(comment)];
    }
    if ((m = /^GET \/issues\/(\d+)\/dependencies\/blocked_by$/.exec(route))) {
      if (this.dependencies !== 'available') return [this.dependencies, { message: 'Not Found' }];
      const ids = [...(this.blockedBy.get(Number(m[1])) ?? [])];
      return this.page(
        url,
        ids.map((id) => this.issueJson(this.issues.find((i) => i.id === id)!)),
      );
    }
    if ((m = /^GET \/issues\/(\d+)\/sub_issues$/.exec(route))) {
      if (this.subIssuesAnswer !== 'available') return [this.subIssuesAnswer, { message: 'Not Found' }];
      if (!this.issues.some((i) => i.number === Number(m![1]))) return [404, { message: 'Not Found' }];
      return this.page(
        url,
        (this.subIssues.get(Number(m[1])) ?? []).map((id) => this.issueJson(this.issues.find((i) => i.id === id)!)),
      );
    }
    if ((m = /^POST \/issues\/(\d+)\/dependencies\/blocked_by$/.exec(route))) {
      if (this.dependencies !== 'available') return [this.dependencies, { message: 'Not Found' }];
      const blocking = this.issues.find((i) => i.id === b.issue_id);
      if (!blocking) return [422, { message: 'Validation Failed' }];
      const set = this.blockedBy.get(Number(m[1])) ?? new Set<number>();
      if (set.has(blocking.id)) return [422, { message: 'Validation Failed' }];
      // As GitHub: at most 50 issues of one kind linked to an issue, blocked by and blocking alike.
      const blocks = [...this.blockedBy.values()].filter((s) => s.has(blocking.id)).length;
      if (set.size >= 50 || blocks >= 50) return [422, { message: 'Validation Failed' }];
      this.blockedBy.set(Number(m[1]), set.add(blocking.id));
      return [201, this.issueJson(blocking)];
    }
    if ((m = /^POST \/issues\/(\d+)\/sub_issues$/.exec(route))) {
      // As GitHub: 201 with the parent; 422 when the issue is no issue of ours, is the parent
      // itself, already has a parent (unless replace_parent) or the parent has 100 already.
      if (this.subIssuesAnswer !== 'available') return [this.subIssuesAnswer, { message: 'Not Found' }];
      const parent = this.issues.find((i) => i.number === Number(m![1]));
      if (!parent) return [404, { message: 'Not Found' }];
      const sub = this.issues.find((i) => i.id === b.sub_issue_id);
      if (!sub || sub.id === parent.id) return [422, { message: 'Validation Failed' }];
      const current = [...this.subIssues].find(([, ids]) => ids.includes(sub.id));
      if (current && (current[0] === parent.number || b.replace_parent !== true))
        return [422, { message: 'Validation Failed', errors: [{ message: 'Issue may not contain duplicate sub-issues' }] }];
      const list = this.subIssues.get(parent.number) ?? [];
      if (list.length >= 100) return [422, { message: 'Validation Failed' }];
      if (current)
        this.subIssues.set(
          current[0],
          current[1].filter((id) => id !== sub.id),
        );
      this.subIssues.set(parent.number, [...list, sub.id]);
      return [201, this.issueJson(parent)];
    }
    if ((m = /^DELETE \/issues\/(\d+)\/sub_issue$/.exec(route))) {
      if (this.subIssuesAnswer !== 'available') return [this.subIssuesAnswer, { message: 'Not Found' }];
      const parent = this.issues.find((i) => i.number === Number(m![1]));
      const list = parent ? (this.subIssues.get(parent.number) ?? []) : [];
      if (!parent || !list.includes(b.sub_issue_id as number)) return [404, { message: 'Not Found' }];
      this.subIssues.set(
        parent.number,
        list.filter((id) => id !== b.sub_issue_id),
      );
      return [200, this.issueJson(parent)];
    }
    if ((m = /^DELETE \/issues\/(\d+)\/dependencies\/blocked_by\/(\d+)$/.exec(route))) {
      if (this.dependencies !== 'available') return [this.dependencies, { message: 'Not Found' }];
      const set = this.blockedBy.get(Number(m[1]));
      if (!set?.delete(Number(m[2]))) return [404, { message: 'Not Found' }];
      return [200, this.issueJson(this.issues.find((i) => i.id === Number(m![2]))!)];
    }

    if ((m = /^GET \/collaborators\/([^/]+)\/permission$/.exec(route))) {
      const role = this.roles.get(m[1]!);
      if (!role) return [404, { message: 'Not Found' }];
      const rank = ['read', 'triage', 'write', 'maintain', 'admin'].indexOf(role);
      const permissions = { pull: rank >= 0, triage: rank >= 1, push: rank >= 2, maintain: rank >= 3, admin: rank >= 4 };
      return [200, { permission: rank >= 4 ? 'admin' : rank >= 2 ? 'write' : 'read', role_name: role, user: { login: m[1], permissions } }];
    }
    if ((m = /^POST \/issues\/comments\/(\d+)\/reactions$/.exec(route))) {
      const first = !this.reactions.has(Number(m[1]));
      if (first) this.reactions.set(Number(m[1]), this.now().toISOString());
      return [
        first ? 201 : 200,
        { id: Number(m[1]), content: b.content, user: { login: this.viewer, type: 'Bot' }, created_at: this.reactions.get(Number(m[1])) },
      ];
    }
    if ((m = /^DELETE \/issues\/comments\/(\d+)\/reactions\/(\d+)$/.exec(route))) {
      this.reactions.delete(Number(m[1]));
      return [204];
    }
    if (route === 'POST /git/tags') {
      const tag = {
        tag: b.tag as string,
        message: b.message as string,
        object: b.object as string,
        tagger: b.tagger as { name: string; email: string; date: string },
      };
      const sha = gitSha('tag', encoder.encode(JSON.stringify(tag)));
      this.tags.set(sha, tag);
      return [201, { sha, ...tag, object: { sha: tag.object, type: 'commit' } }];
    }
    if ((m = /^GET \/git\/tags\/([0-9a-f]+)$/.exec(route))) {
      const tag = this.tags.get(m[1]!);
      return tag ? [200, { sha: m[1], ...tag, object: { sha: tag.object, type: 'commit' } }] : [404, { message: 'Not Found' }];
    }
    if ((m = /^GET \/git\/ref\/((?!heads\/).+)$/.exec(route))) {
      const sha = this.refs.get(`refs/${m[1]}`);
      return sha === undefined ? [404, { message: 'Not Found' }] : [200, { ref: `refs/${m[1]}`, object: { sha, type: this.tags.has(sha) ? 'tag' : 'commit' } }];
    }
    if ((m = /^DELETE \/git\/refs\/((?!heads\/).+)$/.exec(route))) {
      return this.refs.delete(`refs/${m[1]}`) ? [204] : [422, { message: 'Reference does not exist' }];
    }
    if (route === 'GET /activity') {
      const branch = (query.ref ?? '').replace(/^refs\/heads\//, '');
      const at = query.activity_type === 'branch_creation' ? this.branchCreations.get(branch) : undefined;
      return [
        200,
        at === undefined
          ? []
          : [
              {
                id: 1,
                ref: query.ref,
                timestamp: at,
                activity_type: 'branch_creation',
                before: '0'.repeat(40),
                after: this.branches.get(branch) ?? '0'.repeat(40),
              },
            ],
      ];
    }
    if ((m = /^GET \/pulls\/(\d+)$/.exec(route))) {
      const pull = this.pulls.get(Number(m[1]));
      if (!pull) {
        const opened = this.pullRequests.find((p) => p.number === Number(m![1]));
        return opened ? [200, { ...this.pullJson(opened), merged: opened.merged }] : [404, { message: 'Not Found' }];
      }
      const side = (s: { ref: string; full_name: string }) => ({ ref: s.ref, repo: { full_name: s.full_name } });
      return [200, { number: Number(m[1]), base: side(pull.base), head: side(pull.head), state: pull.state ?? 'open', merged: pull.merged ?? false }];
    }
    if ((m = /^GET \/git\/ref\/heads\/(.+)$/.exec(route))) {
      const sha = this.branches.get(m[1]!);
      return sha === undefined ? [404, { message: 'Not Found' }] : [200, { ref: `refs/heads/${m[1]}`, object: { sha, type: 'commit' } }];
    }
    if ((m = /^GET \/git\/matching-refs\/heads\/(.*)$/.exec(route))) {
      const prefix = m[1]!;
      return [
        200,
        [...this.branches].filter(([name]) => name.startsWith(prefix)).map(([name, sha]) => ({ ref: `refs/heads/${name}`, object: { sha, type: 'commit' } })),
      ];
    }
    if ((m = /^GET \/git\/matching-refs\/((?!heads\/).*)$/.exec(route))) {
      const prefix = `refs/${m[1]}`;
      return [
        200,
        [...this.refs]
          .filter(([name]) => name.startsWith(prefix))
          .map(([name, sha]) => ({ ref: name, object: { sha, type: this.tags.has(sha) ? 'tag' : 'commit' } })),
      ];
    }
    if (route === 'POST /git/refs' && !String(b.ref).startsWith('refs/heads/')) {
      if (this.refs.has(String(b.ref))) return [422, { message: 'Reference already exists' }];
      this.refs.set(String(b.ref), b.sha as string);
      return [201, { ref: b.ref, object: { sha: b.sha, type: this.tags.has(b.sha as string) ? 'tag' : 'commit' } }];
    }
    if (route === 'POST /git/refs') {
      const name = String(b.ref).replace(/^refs\/heads\//, '');
      if (!this.branches.has(name)) this.branchCreations.set(name, this.now().toISOString());
      if (this.branches.has(name)) return [422, { message: 'Reference already exists' }];
      this.branches.set(name, b.sha as string);
      return [201, { ref: b.ref, object: { sha: b.sha, type: 'commit' } }];
    }
    if ((m = /^DELETE \/git\/refs\/heads\/(.+)$/.exec(route))) {
      return this.branches.delete(m[1]!) ? [204] : [422, { message: 'Reference does not exist' }];
    }
    if (route === 'GET /actions/workflows/harness-worker.yml/runs') {
      const runs = this.workflowRuns.filter((r) => query.status === undefined || r.status === query.status);
      return [200, { total_count: runs.length, workflow_runs: runs }];
    }
    if ((m = /^POST \/actions\/runs\/(\d+)\/cancel$/.exec(route))) {
      const run = this.workflowRuns.find((r) => r.id === Number(m![1]));
      if (!run || run.status === 'completed') return [409, { message: 'Cannot cancel a workflow run that is completed.' }];
      run.status = 'completed';
      return [202, {}];
    }
    if ((m = /^POST \/actions\/workflows\/([^/]+)\/dispatches$/.exec(route))) {
      this.dispatches.push({ workflow: m[1]!, body });
      const id = 7_000_000 + this.dispatches.length;
      if (this.runsOnDispatch) {
        const inputs = (body as { inputs: { spec: string; plan: string } }).inputs;
        this.workflowRuns.push({
          id,
          display_title: `harness ${inputs.spec}/${inputs.plan}`,
          status: 'queued',
          url: `${API}/repos/${this.owner}/${this.repo}/actions/runs/${id}`,
          html_url: `https://github.com/${this.owner}/${this.repo}/actions/runs/${id}`,
        });
      }
      // Asked for, the run's details (200), as github.com answers since February 2026; else 204.
      if ((body as { return_run_details?: boolean } | undefined)?.return_run_details !== true) return [204];
      return [
        200,
        {
          workflow_run_id: id,
          run_url: `${API}/repos/${this.owner}/${this.repo}/actions/runs/${id}`,
          html_url: `https://github.com/${this.owner}/${this.repo}/actions/runs/${id}`,
        },
      ];
    }

    if ((m = /^GET \/issues\/(\d+)\/events$/.exec(route))) return this.page(url, this.issueEvents.get(Number(m[1])) ?? []);
    if (route === 'GET /labels')
      return this.page(
        url,
        this.labels.map((l, i) => ({ id: i + 1, node_id: labelNodeId(l.name), ...l, default: false })),
      );
    if (route === 'POST /labels') {
      if (this.labels.some((l) => l.name.toLowerCase() === String(b.name).toLowerCase()))
        return [422, { message: 'Validation Failed', errors: [{ code: 'already_exists' }] }];
      this.labels.push({ name: b.name as string, color: b.color as string, description: (b.description as string) ?? null });
      return [201, { id: this.labels.length, node_id: labelNodeId(b.name as string), ...this.labels.at(-1) }];
    }
    return [404, { message: `the fake has no route for ${route}` }];
  }

  /**
   * The root of GitHub's GraphQL API over this fake (github-graphql.ts validates every request
   * against GitHub's schema first): who the token is, and adding and removing an issue's labels
   * by node id, mutations run in the order written, as GraphQL runs a mutation's fields.
   */
  private graphqlRoot(): Record<string, unknown> {
    const issueOf = (id: string) => {
      const issue = this.issues.find((i) => `I_${i.id}` === id);
      if (!issue) throw new GraphQLFailure('NOT_FOUND', `Could not resolve to a node with the global id of '${id}'.`);
      return issue;
    };
    const labelsOf = (ids: readonly string[]) =>
      ids.map((id) => {
        const label = this.labels.find((l) => labelNodeId(l.name) === id);
        if (!label) throw new GraphQLFailure('NOT_FOUND', `Could not resolve to a node with the global id of '${id}'.`);
        return label.name;
      });
    const labelable = (issue: FakeIssue) => ({
      __typename: 'Issue',
      id: `I_${issue.id}`,
      number: issue.number,
      labels: () => ({ nodes: issue.labels.map((name) => ({ id: labelNodeId(name), name })), totalCount: issue.labels.length }),
    });
    const touched = (issue: FakeIssue) => (issue.updated_at = this.now().toISOString());
    type LabelsInput = { input: { labelableId: string; labelIds: string[]; clientMutationId?: string } };
    const repositoryId = `R_${Buffer.from(`${this.owner}/${this.repo}`).toString('base64url')}`;
    const sameRepository = (id: string) => {
      if (id !== repositoryId) throw new GraphQLFailure('NOT_FOUND', `Could not resolve to a Repository with the global id of '${id}'.`);
    };
    const issueNode = (issue: FakeIssue) => ({
      ...labelable(issue),
      databaseId: issue.id,
      title: issue.title,
      body: issue.body ?? '',
      state: issue.state === 'closed' ? 'CLOSED' : 'OPEN',
      stateReason: issue.state_reason ? issue.state_reason.toUpperCase() : null,
      url: `https://github.com/${this.owner}/${this.repo}/issues/${issue.number}`,
      author: { __typename: (issue.user?.type ?? 'Bot') === 'Bot' ? 'Bot' : 'User', login: issue.user?.login ?? 'harness[bot]' },
    });
    return {
      viewer: { login: this.viewer },
      repository: ({ owner, name }: { owner: string; name: string }) =>
        owner.toLowerCase() !== this.owner.toLowerCase() || name.toLowerCase() !== this.repo.toLowerCase()
          ? null
          : {
              id: repositoryId,
              label: ({ name }: { name: string }) => {
                const label = this.labels.find((l) => l.name.toLowerCase() === name.toLowerCase());
                return label ? { id: labelNodeId(label.name), name: label.name } : null;
              },
              // A Git object by its id: a blob as GitHub's GraphQL gives it (UTF-8 text, or none when binary).
              object: ({ oid }: { oid?: string }) => {
                const obj = oid === undefined ? undefined : this.objects.get(oid);
                if (obj?.type !== 'blob') return obj ? { __typename: 'Tree', oid } : null;
                const binary = obj.bytes.includes(0);
                return {
                  __typename: 'Blob',
                  oid,
                  byteSize: obj.bytes.length,
                  isBinary: binary,
                  isTruncated: false,
                  text: binary ? null : new TextDecoder().decode(obj.bytes),
                };
              },
            },
      createLabel: ({ input }: { input: { repositoryId: string; name: string; color: string; description?: string } }) => {
        sameRepository(input.repositoryId);
        if (this.labels.some((l) => l.name.toLowerCase() === input.name.toLowerCase()))
          throw new GraphQLFailure('UNPROCESSABLE', 'Name has already been taken');
        this.labels.push({ name: input.name, color: input.color, description: input.description ?? null });
        return { label: { id: labelNodeId(input.name), name: input.name, color: input.color } };
      },
      // As GitHub: the issue and, with parentIssueId, its place under the parent, in one mutation; refused whole when the parent cannot take it.
      createIssue: ({ input }: { input: { repositoryId: string; title: string; body?: string; labelIds?: string[]; parentIssueId?: string } }) => {
        sameRepository(input.repositoryId);
        const labels = labelsOf(input.labelIds ?? []);
        const parent = input.parentIssueId === undefined ? undefined : issueOf(input.parentIssueId);
        if (parent) {
          if (this.subIssuesAnswer !== 'available') throw new GraphQLFailure('FORBIDDEN', 'Sub-issues are not available');
          if ((this.subIssues.get(parent.number) ?? []).length >= 100) throw new GraphQLFailure('UNPROCESSABLE', 'Parent cannot have more than 100 sub-issues');
        }
        const number = this.nextIssue++;
        const issue: FakeIssue = { id: 900_000 + number, number, title: input.title, body: input.body ?? null, labels, state: 'open', state_reason: null };
        touched(issue);
        this.issues.push(issue);
        if (parent) this.subIssues.set(parent.number, [...(this.subIssues.get(parent.number) ?? []), issue.id]);
        return { issue: issueNode(issue) };
      },
      // As GitHub: an issue's fields as given, the rest left as they are.
      updateIssue: ({ input }: { input: { id: string; body?: string; title?: string; clientMutationId?: string } }) => {
        const issue = issueOf(input.id);
        if (input.body !== undefined) issue.body = input.body;
        if (input.title !== undefined) issue.title = input.title;
        touched(issue);
        return { clientMutationId: input.clientMutationId ?? null, issue: issueNode(issue) };
      },
      addLabelsToLabelable: ({ input }: LabelsInput) => {
        const issue = issueOf(input.labelableId);
        const added = labelsOf(input.labelIds).filter((l) => !issue.labels.includes(l));
        issue.labels.push(...added);
        if (added.length > 0) touched(issue);
        return { clientMutationId: input.clientMutationId ?? null, labelable: labelable(issue) };
      },
      removeLabelsFromLabelable: ({ input }: LabelsInput) => {
        const issue = issueOf(input.labelableId);
        const names = labelsOf(input.labelIds);
        if (issue.labels.some((l) => names.includes(l))) touched(issue);
        issue.labels = issue.labels.filter((l) => !names.includes(l));
        return { clientMutationId: input.clientMutationId ?? null, labelable: labelable(issue) };
      },
    };
  }

  /** GitHub creates a label applied to an issue when it does not exist yet (colour ededed). */
  private applyLabels(names: string[]): string[] {
    for (const name of names) if (!this.labels.some((l) => l.name === name)) this.labels.push({ name, color: 'ededed', description: null });
    return [...names];
  }

  private applyCheckRun(run: FakeCheckRun, b: Record<string, unknown>): void {
    if (b.status !== undefined) run.status = b.status as string;
    if (b.conclusion !== undefined) {
      run.conclusion = b.conclusion as string;
      run.status = 'completed';
    }
    if (run.status === 'completed' && run.completed_at === undefined) run.completed_at = this.now().toISOString();
    if (b.external_id !== undefined) run.external_id = b.external_id as string;
    const output = b.output as { title?: string; summary?: string; text?: string; annotations?: Record<string, unknown>[] } | undefined;
    if (output) {
      run.output = { title: output.title ?? run.output.title, summary: output.summary ?? run.output.summary, text: output.text ?? run.output.text };
      run.annotations.push(...(output.annotations ?? []));
    }
  }

  private page(url: URL, items: unknown[]): Reply {
    const perPage = Number(url.searchParams.get('per_page') ?? 30);
    const page = Number(url.searchParams.get('page') ?? 1);
    const headers: Record<string, string> = {};
    if (page * perPage < items.length) {
      const next = new URL(url);
      next.searchParams.set('page', String(page + 1));
      headers.link = `<${next.href}>; rel="next"`;
    }
    return [200, items.slice((page - 1) * perPage, page * perPage), headers];
  }

  private issueJson(i: FakeIssue): Record<string, unknown> {
    return {
      id: i.id,
      node_id: `I_${i.id}`,
      number: i.number,
      title: i.title,
      body: i.body,
      labels: i.labels.map((name) => ({ node_id: labelNodeId(name), name, color: this.labels.find((l) => l.name === name)?.color ?? 'ededed' })),
      state: i.state,
      state_reason: i.state_reason,
      html_url: `https://github.com/${this.owner}/${this.repo}/issues/${i.number}`,
      user: i.user ?? { login: 'harness[bot]', type: 'Bot' },
      sub_issues_summary: this.subIssuesSummary(i.number),
      issue_dependencies_summary: this.dependenciesSummary(i),
    };
  }

  /** GitHub's dependency figures for an issue: open and all blockers, open and all it blocks. */
  private dependenciesSummary(i: FakeIssue): { blocked_by: number; blocking: number; total_blocked_by: number; total_blocking: number } {
    const blockers = [...(this.blockedBy.get(i.number) ?? [])].map((id) => this.issues.find((x) => x.id === id)!);
    const blocked = [...this.blockedBy].filter(([, ids]) => ids.has(i.id)).map(([n]) => this.issues.find((x) => x.number === n)!);
    const open = (list: FakeIssue[]) => list.filter((x) => x.state === 'open').length;
    return { blocked_by: open(blockers), blocking: open(blocked), total_blocked_by: blockers.length, total_blocking: blocked.length };
  }

  /** GitHub's progress figures for a parent: every closed sub-issue counts as completed. */
  subIssuesSummary(number: number): { total: number; completed: number; percent_completed: number } {
    const subs = (this.subIssues.get(number) ?? []).map((id) => this.issues.find((i) => i.id === id)!);
    const completed = subs.filter((i) => i.state === 'closed').length;
    return { total: subs.length, completed, percent_completed: subs.length === 0 ? 0 : Math.floor((completed * 100) / subs.length) };
  }

  /** The numbers of a parent's sub-issues, in order. */
  subIssueNumbers(parent: number): number[] {
    return (this.subIssues.get(parent) ?? []).map((id) => this.issues.find((i) => i.id === id)!.number);
  }

  /**
   * Merge a pull request as GitHub's merge button does (a merge commit on its base that takes
   * what the branch changed since it left the base), or close it.
   */
  settle(number: number, how: 'merge' | 'close'): void {
    const pull = this.pullRequests.find((p) => p.number === number);
    if (!pull || pull.state !== 'open') throw new Error(`no open pull request #${number}`);
    const head = this.branches.get(pull.head)!;
    pull.state = 'closed';
    pull.closedHeadSha = head;
    if (how === 'merge') {
      const base = this.branches.get(pull.base)!;
      // Where the branch left the base: the first commit down its first parents that the base has too.
      let forkedFrom = head;
      while (!this.descends(base, forkedFrom) && this.parents(forkedFrom)[0] !== undefined) forkedFrom = this.parents(forkedFrom)[0]!;
      const tree = this.mergeTree(this.roots.get(base)!, this.changedFiles(this.roots.get(head)!, this.roots.get(forkedFrom)!));
      this.branches.set(pull.base, this.newCommit(tree, [base, head], `Merge pull request #${number}`));
      pull.merged = true;
    }
  }

  /** A person merges pull request #n. */
  merge(number: number): void {
    this.settle(number, 'merge');
  }

  /** A person closes pull request #n without merging it. */
  close(number: number): void {
    this.settle(number, 'close');
  }

  /** A file's text at a commit or branch; undefined when there is none. */
  fileAt(ref: string, path: string): string | undefined {
    const blob = this.blobAt(ref, path);
    return blob === undefined ? undefined : new TextDecoder().decode(blob.bytes);
  }

  /** The files (with their bytes) that differ between two trees: what a branch's commits changed. */
  private changedFiles(tree: string, from: string): { path: string; bytes: Uint8Array }[] {
    const before = new Map(
      this.listTree(from, '', true)
        .filter((e) => e.type === 'blob')
        .map((e) => [e.path, e.sha]),
    );
    return this.listTree(tree, '', true)
      .filter((e) => e.type === 'blob' && before.get(e.path) !== e.sha)
      .map((e) => ({ path: e.path, bytes: (this.objects.get(e.sha) as { bytes: Uint8Array }).bytes }));
  }

  private pullJson(p: FakePull): Record<string, unknown> {
    return {
      number: p.number,
      html_url: `https://github.com/${this.owner}/${this.repo}/pull/${p.number}`,
      title: p.title,
      body: p.body,
      state: p.state,
      merged_at: p.merged ? '2024-05-02T00:00:00Z' : null,
      created_at: p.created_at,
      labels: p.labels.map((name) => ({ name })),
      head: { ref: p.head, sha: p.closedHeadSha ?? this.branches.get(p.head) ?? null, repo: { full_name: `${this.owner}/${this.repo}` } },
      base: { ref: p.base, repo: { full_name: `${this.owner}/${this.repo}` } },
    };
  }

  private checkRunJson(r: FakeCheckRun): Record<string, unknown> {
    return {
      id: r.id,
      name: r.name,
      head_sha: r.head_sha,
      external_id: r.external_id,
      status: r.status,
      conclusion: r.conclusion,
      ...(r.started_at ? { started_at: r.started_at } : {}),
      ...(r.completed_at ? { completed_at: r.completed_at } : {}),
      output: { ...r.output, annotations_count: r.annotations.length, annotations_url: '' },
      app: { id: 1, slug: 'harness' },
    };
  }

  private commentJson(c: FakeComment): Record<string, unknown> {
    return {
      id: c.id,
      body: c.body,
      user: { login: c.login ?? (c.userType === 'Bot' ? 'harness[bot]' : 'octocat'), type: c.userType },
      ...(c.created_at ? { created_at: c.created_at } : {}),
    };
  }
}

/** Spec files (as test/helpers/spec.ts builds them) placed at `dir` in a repository. */
export function specAt(dir: string, files: readonly SpecFile[]): Record<string, Uint8Array> {
  return Object.fromEntries(files.map((f) => [`${dir}/${f.path}`, f.bytes]));
}

/** An answer of the App as a person reads it: without the hidden markers it ends with (engine/forge/reply-markers.ts). */
export function spoken(body: string): string {
  return body.replace(/(\n\n(<!-- harness:(reply|refused) \S+ -->\n?)+)$/, '');
}
