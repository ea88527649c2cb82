import type { KnowledgeDraft, KnowledgeKind } from '../engine/forge/knowledge-draft.js';
import { LABEL_COLORS, type StatusValue } from '../engine/forge/names.js';
import type { Role } from '../engine/forge/permits.js';
import { getBlob, getBlobs, type BlobMemory } from './blobs.js';
import { branchCreatedAt, claimRefsWithPrefix, createClaimRef, deleteClaimRef, takeClaim, takeOver, type ClaimOutcome } from './claims.js';
import { viewerLogin } from './identity.js';
import { createCheckRun, listBranchCheckRuns, listCheckRuns, updateCheckRun, type CheckRun, type CheckRunUpdate, type NewCheckRun } from './check-runs.js';
import { createComment, deleteComment, findComment, listComments, updateComment, type CommentRecord } from './comments.js';
import { commitTree, createCommit } from './commits.js';
import { comparedFiles, mergeBase, type ComparedFile } from './compare.js';
import { fileText, listDirectory, type DirectoryEntry } from './contents.js';
import { addBlockedBy, listBlockedByIds, removeBlockedBy, type DependencyOutcome } from './dependencies.js';
import type { TokenKind } from './github-error.js';
import {
  createIssue,
  createSubIssue,
  findCreatedIssue,
  listIssueEvents,
  listIssuesWithLabels,
  updateIssue,
  type IssueEvent,
  type IssueRecord,
  type IssueUpdate,
} from './issues.js';
import { createOnce, outcomeUnknown } from './create-once.js';
import { addSubIssue, listSubIssueIds, removeSubIssue, type SubIssueOutcome } from './sub-issues.js';
import { appendKnowledge, type KnowledgeAppend, type KnowledgeAppended } from './knowledge-append.js';
import { openKnowledgePr, type KnowledgePr } from './knowledge-pr.js';
import { openKnowledgePulls, type OpenKnowledgePull } from './knowledge-pulls.js';
import { addLabels, createLabel, knowLabels, listLabels, removeLabel, type Label } from './labels.js';
import { repositoryRole } from './permissions.js';
import {
  listPlanIssuesSince,
  listSpecIssues,
  listSpecIssuesSince,
  listTrackingIssues,
  moveStatus,
  withUnlabelledPlanIssues,
  setStatuses,
  type SpecIssues,
  specIssuesChangedSince,
  type StatusIssue,
  type StatusMove,
  type StatusWritten,
} from './plan-issues.js';
import { NodeIds, type LabelIds } from './node-ids.js';
import {
  createPullRequest,
  getPullRequest,
  listPullRequests,
  openPullRequest,
  pullRequestFileEntries,
  pullRequestFiles,
  reviewComments,
  type ReviewComment,
  commitPullRequests,
  type CommitPull,
  updatePullRequest,
  type NewPullRequest,
  type OpenedPullRequest,
  type PullRequestFile,
  type PullRequestInfo,
  type PullRequestQuery,
  type PullRequestSummary,
} from './pulls.js';
import { getRepository, type RepositoryInfo } from './repository.js';
import { reactToComment, removeCommentReaction, type Reaction, type ReactionContent } from './reactions.js';
import { branchesWithPrefix, branchSha, createBranch, deleteBranch, updateBranch } from './refs.js';
import { gatewayRequest, type GatewayRequest, type GitHubRequest, type Repo } from './request.js';
import { createTree, getTree, type NewFile, type Tree } from './trees.js';
import { cancelRun, dispatchWorker, unfinishedWorkerRuns, type DispatchedRun, type WorkerInputs, type WorkerRun } from './workflows.js';

/**
 * Everything harness asks of GitHub, for one repository: the App's handlers and the worker
 * both go through it, so that a plan's issue is found one way, a status is written one way
 * and every failure is a GitHubError (github-error.ts). Each method is one documented REST
 * call, or a few for what only makes sense together (a status, a plan PR).
 */
export interface Gateway {
  readonly repo: Repo;

  /** The spec's plan issues, each plan's own resolved by matchPlanIssues; with `phase`, that phase's only (plan-issues.ts). */
  planIssues(spec: string, phase?: string): Promise<SpecIssues>;
  /** `before` with the spec's issues updated at or after `since` read again (listSpecIssuesSince): one page where a listing is many. */
  planIssuesSince(spec: string, before: SpecIssues, since: string): Promise<SpecIssues>;
  /** `before` with the App's issues of the spec that lost their labels (plan-issues.ts, withUnlabelledPlanIssues): for a sync about to create issues. */
  unlabelledPlanIssues(spec: string, before: SpecIssues): Promise<SpecIssues>;
  /** The spec's tracking and phase issues, the App's own only (plan-issues.ts, listTrackingIssues). */
  trackingIssues(spec: string): Promise<IssueRecord[]>;
  /** Every plan issue of the repository the App opened, of any spec, updated at or after `since` (plan-issues.ts, listPlanIssuesSince). */
  planIssuesUpdatedSince(since: string): Promise<IssueRecord[]>;
  /** Has any plan issue of the spec been updated since then (plan-issues.ts)? One request, whatever the spec's size. */
  specIssuesChangedSince(spec: string, since: string): Promise<boolean>;
  createIssue(issue: { title: string; body: string; labels: string[] }): Promise<IssueRecord>;
  /**
   * The issue created as a sub-issue of `parent` in one GraphQL request (issues.ts,
   * createSubIssue), its labels' ids learnt or the labels made first (labels.ts, knowLabels);
   * undefined, with nothing created, when GraphQL cannot (the caller creates by REST).
   */
  createSubIssue(issue: { title: string; body: string; labels: string[] }, parent: number): Promise<IssueRecord | undefined>;
  /** Labels known by their GraphQL ids, made where missing (labels.ts, knowLabels): before a run of createSubIssue, one or two requests for all. */
  knowLabels(names: readonly string[]): Promise<boolean>;
  updateIssue(number: number, update: IssueUpdate): Promise<IssueRecord>;
  /** An issue's history: who labelled it what (issues.ts, listIssueEvents). */
  issueEvents(number: number): Promise<IssueEvent[]>;
  /** The status write: the App's record on the marker line, then the label, race-safely (plan-issues.ts, setStatus); the labels and body after it. */
  setStatus(issue: StatusIssue, status: StatusValue): Promise<StatusWritten>;
  /** Several status writes in as few requests as GitHub allows (plan-issues.ts, setStatuses); each issue's labels and body after. */
  setStatuses(moves: readonly StatusMove[]): Promise<StatusWritten[]>;
  /** From one status to another only while the App's record still says the first (plan-issues.ts, moveStatus). */
  moveStatus(issue: number, from: StatusValue, to: StatusValue, edit?: (body: string) => string): Promise<'moved' | 'changed'>;
  /** Adds labels, leaving the rest; every label the issue has now. */
  addLabels(issue: number, labels: readonly string[]): Promise<string[]>;
  removeLabel(issue: number, name: string): Promise<'removed' | 'absent'>;
  labels(): Promise<Label[]>;
  createLabel(label: Label): Promise<'created' | 'exists'>;
  addBlockedBy(issue: number, blockingIssueId: number): Promise<DependencyOutcome>;
  removeBlockedBy(issue: number, blockingIssueId: number): Promise<DependencyOutcome>;
  /** Every issue carrying all of `labels` (any state, pull requests aside), whoever opened it: for views, never for decisions (trackingIssues). */
  issuesWithLabels(labels: readonly string[]): Promise<IssueRecord[]>;
  addSubIssue(parent: number, subIssueId: number, replaceParent: boolean): Promise<SubIssueOutcome>;
  removeSubIssue(parent: number, subIssueId: number): Promise<SubIssueOutcome>;
  /** The database ids of a parent's sub-issues, as GitHub has them (sub-issues.ts). */
  subIssueIds(parent: number): Promise<number[] | 'unavailable'>;
  /** The database ids of the issues blocking one, as GitHub has them (dependencies.ts). */
  blockedByIds(issue: number): Promise<number[] | 'unavailable'>;

  comment(issue: number, body: string): Promise<CommentRecord>;
  /** Every comment, oldest first. */
  comments(issue: number): Promise<CommentRecord[]>;
  /** The first comment `match` accepts, reading no further page than needed. */
  findComment(issue: number, match: (comment: CommentRecord) => boolean): Promise<CommentRecord | undefined>;
  updateComment(commentId: number, body: string): Promise<void>;
  deleteComment(commentId: number): Promise<'deleted' | 'absent'>;
  react(commentId: number, content: ReactionContent): Promise<Reaction>;
  unreact(commentId: number, reactionId: number): Promise<void>;
  role(username: string): Promise<Role>;

  pullRequest(number: number): Promise<PullRequestInfo>;
  pullRequestFiles(number: number): Promise<string[]>;
  /** The comments on its diff, oldest first. */
  reviewComments(number: number): Promise<ReviewComment[]>;
  /** The pull requests a commit belongs to (the one it merged, for a merge commit). */
  commitPullRequests(sha: string): Promise<CommitPull[]>;
  /** The files it changes with their blobs at its head, so that their text is read by sha (once: a blob never changes). */
  pullRequestFileEntries(number: number): Promise<PullRequestFile[]>;
  pullRequests(query: PullRequestQuery): Promise<PullRequestSummary[]>;
  createPullRequest(pull: NewPullRequest): Promise<PullRequestSummary>;
  /** A pull request's new body, and title when one is given. */
  updatePullRequest(number: number, text: { title?: string; body: string }): Promise<void>;
  /** The open pull request from head into base with this title and body: updated, or created. */
  openPullRequest(pull: NewPullRequest): Promise<OpenedPullRequest>;
  /** The knowledge PR of a draft from `base`, or the one its branch has already (knowledge-pr.ts). */
  openKnowledgePr(draft: KnowledgeDraft, base: string): Promise<KnowledgePr>;
  /** Files committed onto a knowledge branch that collects them, never over another writer's, and its PR open (knowledge-append.ts). */
  appendKnowledge(append: KnowledgeAppend): Promise<KnowledgeAppended>;
  /** The open knowledge PRs of one kind, with their descriptions (knowledge-pulls.ts). */
  openKnowledgePulls(kind: KnowledgeKind): Promise<OpenKnowledgePull[]>;
  /** The repository itself (its default branch), for one no event is about. */
  repository(): Promise<RepositoryInfo>;

  /** The run it started, when GitHub says (return_run_details). */
  dispatchWorker(ref: string, inputs: WorkerInputs): Promise<DispatchedRun | undefined>;
  unfinishedWorkerRuns(): Promise<WorkerRun[]>;
  cancelRun(runId: number): Promise<'cancelling' | 'finished'>;

  checkRuns(ref: string, name: string): Promise<CheckRun[]>;
  /** The check runs named `name` on a branch's head, which they also locate; undefined when there is no such branch (check-runs.ts). */
  branchCheckRuns(branch: string, name: string): Promise<CheckRun[] | undefined>;
  createCheckRun(run: NewCheckRun): Promise<CheckRun>;
  updateCheckRun(id: number, update: CheckRunUpdate): Promise<void>;

  directory(path: string, ref: string): Promise<DirectoryEntry[] | undefined>;
  /** A file's text at a ref; undefined when there is none. */
  fileText(path: string, ref: string): Promise<string | undefined>;
  tree(sha: string, recursive: boolean): Promise<Tree>;
  blob(sha: string): Promise<Uint8Array>;
  /** Many blobs' bytes by sha, in as few requests as GitHub allows (blobs.ts, getBlobs). */
  blobs(shas: readonly string[]): Promise<Map<string, Uint8Array>>;
  mergeBase(base: string, head: string): Promise<string>;
  /** The files that differ from base to head, with their patches. */
  comparedFiles(base: string, head: string): Promise<ComparedFile[]>;
  commitTree(sha: string): Promise<string>;
  createTree(base: string, files: readonly NewFile[]): Promise<string>;
  createCommit(commit: { message: string; tree: string; parents: string[] }): Promise<string>;

  branchSha(branch: string): Promise<string | undefined>;
  createBranch(branch: string, sha: string): Promise<'created' | 'exists'>;
  /** Move a branch forward to `sha`; `moved` when it moved elsewhere meanwhile and was left there. */
  updateBranch(branch: string, sha: string): Promise<'updated' | 'moved'>;
  deleteBranch(branch: string): Promise<'deleted' | 'missing'>;
  branchesWithPrefix(prefix: string): Promise<Map<string, string>>;
  /** When the branch was last created, if GitHub lists it (claims.ts). */
  branchCreatedAt(branch: string): Promise<Date | undefined>;
  /** An atomic claim under `refs/harness/` (claims.ts). */
  createClaimRef(ref: string, sha: string): Promise<'created' | 'exists'>;
  deleteClaimRef(ref: string): Promise<'deleted' | 'missing'>;
  /** A claim with its time and a note (claims.ts, takeClaim): won, or the record of whoever holds it. */
  takeClaim(ref: string, sha: string, note: string, now: Date): Promise<ClaimOutcome>;
  /** The one right to take over an abandoned claim as it was found: its takeover ref created (claims.ts, takeOver). */
  takeOver(takeover: string, sha: string): Promise<boolean>;
  /** Refs outside the branches under a prefix (without `refs/`): full name → sha. */
  claimRefsWithPrefix(prefix: string): Promise<Map<string, string>>;

  /** The login of whoever the token belongs to (identity.ts), asked once per gateway. */
  selfLogin(): Promise<string>;
}

/**
 * The Gateway over Octokit's `request` for `repo`, its requests carrying a `token` of that
 * kind (which the error hints speak of): `context.octokit.request` in the App, the worker's
 * `@actions/github` client's in the worker.
 */
export interface GatewayOptions {
  /**
   * How the token's login is found, given the one request that asks GitHub (identity.ts): the
   * App remembers it per installation across deliveries, since its bot's login never changes.
   */
  selfLogin?: (ask: () => Promise<string>) => Promise<string>;
  /** Labels' GraphQL node ids already known (node-ids.ts): the App keeps them per installation and repository; gathered from GitHub's answers either way. */
  labelIds?: LabelIds;
  /**
   * The App's bot login (`<slug>[bot]`), whose issues alone are plan issues (plan-issues.ts):
   * for a worker holding GITHUB_TOKEN, whose own login is GitHub Actions'. The token's own
   * login (selfLogin) when left out, which for the App's installation token is the App's.
   */
  planIssueAuthor?: string;
  /** Blobs read before (blobs.ts, getBlobs): the App's memory keeps small ones, the way its conditional cache keeps what REST read. */
  blobs?: BlobMemory;
}

/** Issues and labels in an answer on an issues or labels route: their node ids kept (node-ids.ts). */
function seeAnswer(ids: NodeIds, route: string, data: unknown): void {
  if (!/\/(issues|labels)\b/.test(route)) return;
  for (const item of Array.isArray(data) ? data : [data]) {
    if (item === null || typeof item !== 'object') continue;
    const o = item as { number?: unknown; name?: unknown; node_id?: unknown };
    if (typeof o.number === 'number') ids.see(o as { number: number });
    else if (typeof o.name === 'string' && typeof o.node_id === 'string') ids.seeLabel(o.name, o.node_id);
  }
}

/** What every part of the gateway is built over: the request, the node ids seen, who the token is. */
interface Parts {
  r: GatewayRequest;
  repo: Repo;
  ids: NodeIds;
  options: GatewayOptions;
  selfLogin: () => Promise<string>;
  planIssueAuthor: () => Promise<string>;
}

export function gateway(request: GitHubRequest, repo: Repo, token: TokenKind, options: GatewayOptions = {}): Gateway {
  const ids = new NodeIds(options.labelIds);
  const r = gatewayRequest(request, token, (route, data) => seeAnswer(ids, route, data));
  let self: Promise<string> | undefined;
  const selfLogin = () => (self ??= options.selfLogin ? options.selfLogin(() => viewerLogin(r)) : viewerLogin(r));
  const planIssueAuthor = async () => options.planIssueAuthor ?? (await selfLogin());
  const parts: Parts = { r, repo, ids, options, selfLogin, planIssueAuthor };
  return {
    repo,
    ...issueParts(parts),
    ...conversationParts(parts),
    ...pullRequestParts(parts),
    ...runParts(parts),
    ...gitParts(parts),
    selfLogin,
  };
}

/** Plan, phase and tracking issues: read, made once, labelled, linked. */
function issueParts({ r, repo, ids, selfLogin, planIssueAuthor }: Parts) {
  return {
    planIssues: async (spec, phase) => listSpecIssues(r, repo, await planIssueAuthor(), spec, phase),
    planIssuesSince: async (spec, before, since) => listSpecIssuesSince(r, repo, await planIssueAuthor(), spec, before, since),
    unlabelledPlanIssues: async (spec, before) => withUnlabelledPlanIssues(r, repo, await planIssueAuthor(), spec, before),
    trackingIssues: async (spec) => listTrackingIssues(r, repo, await planIssueAuthor(), spec),
    specIssuesChangedSince: (spec, since) => specIssuesChangedSince(r, repo, spec, since),
    planIssuesUpdatedSince: async (since) => listPlanIssuesSince(r, repo, await planIssueAuthor(), since),
    createIssue: (issue) =>
      createOnce(
        () => createIssue(r, repo, issue),
        async () => findCreatedIssue(r, repo, await selfLogin(), issue),
      ),
    createSubIssue: async (issue, parent) => {
      // A parent never read has no node id to name it by: nothing is asked.
      if (ids.issue(parent) === undefined || !(await knowLabels(r, repo, ids, issue.labels, LABEL_COLORS))) return undefined;
      try {
        return await createSubIssue(r, ids, issue, parent);
      } catch (e) {
        if (!outcomeUnknown(e)) throw e;
        // Made with its parent in one mutation, or not at all: found, it is a sub-issue already; not found, REST makes it (createIssue) and links it.
        return await findCreatedIssue(r, repo, await selfLogin(), issue).catch(() => {
          throw e;
        });
      }
    },
    knowLabels: (names) => knowLabels(r, repo, ids, names, LABEL_COLORS),
    updateIssue: (number, update) => updateIssue(r, repo, number, update),
    issueEvents: (number) => listIssueEvents(r, repo, number),
    setStatus: async (issue, status) => (await setStatuses(r, repo, ids, [{ issue, status }]))[0]!,
    setStatuses: (moves) => setStatuses(r, repo, ids, moves),
    moveStatus: (issue, from, to, edit) => moveStatus(r, repo, ids, issue, from, to, edit),
    addLabels: (issue, labels) => addLabels(r, repo, issue, labels),
    removeLabel: (issue, name) => removeLabel(r, repo, issue, name),
    labels: () => listLabels(r, repo),
    createLabel: (label) => createLabel(r, repo, label),
    addBlockedBy: (issue, blocking) => addBlockedBy(r, repo, issue, blocking),
    removeBlockedBy: (issue, blocking) => removeBlockedBy(r, repo, issue, blocking),
    issuesWithLabels: (labels) => listIssuesWithLabels(r, repo, labels),
    addSubIssue: (parent, id, replace) => addSubIssue(r, repo, parent, id, replace),
    removeSubIssue: (parent, id) => removeSubIssue(r, repo, parent, id),
    subIssueIds: (parent) => listSubIssueIds(r, repo, parent),
    blockedByIds: (issue) => listBlockedByIds(r, repo, issue),
  } satisfies Partial<Gateway>;
}

/** Comments, reactions and who may do what. */
function conversationParts({ r, repo, selfLogin }: Parts) {
  return {
    comment: (issue, body) =>
      createOnce(
        () => createComment(r, repo, issue, body),
        async () => {
          const self = await selfLogin();
          return findComment(r, repo, issue, (c) => c.author === self && c.body === body);
        },
      ),
    comments: (issue) => listComments(r, repo, issue),
    findComment: (issue, match) => findComment(r, repo, issue, match),
    updateComment: (id, body) => updateComment(r, repo, id, body),
    deleteComment: (id) => deleteComment(r, repo, id),
    react: (id, content) => reactToComment(r, repo, id, content),
    unreact: (id, reaction) => removeCommentReaction(r, repo, id, reaction),
    role: (username) => repositoryRole(r, repo, username),
  } satisfies Partial<Gateway>;
}

/** Pull requests, the knowledge ones among them, and the repository. */
function pullRequestParts({ r, repo }: Parts) {
  return {
    pullRequest: (number) => getPullRequest(r, repo, number),
    pullRequestFiles: (number) => pullRequestFiles(r, repo, number),
    reviewComments: (number) => reviewComments(r, repo, number),
    commitPullRequests: (sha) => commitPullRequests(r, repo, sha),
    pullRequestFileEntries: (number) => pullRequestFileEntries(r, repo, number),
    pullRequests: (query) => listPullRequests(r, repo, query),
    createPullRequest: (pull) => createPullRequest(r, repo, pull),
    updatePullRequest: (number, text) => updatePullRequest(r, repo, number, text),
    openPullRequest: (pull) => openPullRequest(r, repo, pull),
    openKnowledgePr: (draft, base) => openKnowledgePr(r, repo, draft, base),
    appendKnowledge: (append) => appendKnowledge(r, repo, append),
    openKnowledgePulls: (kind) => openKnowledgePulls(r, repo, kind),
    repository: () => getRepository(r, repo),
  } satisfies Partial<Gateway>;
}

/** Workflow runs (the workers) and check runs. */
function runParts({ r, repo }: Parts) {
  return {
    dispatchWorker: (ref, inputs) => dispatchWorker(r, repo, ref, inputs),
    unfinishedWorkerRuns: () => unfinishedWorkerRuns(r, repo),
    cancelRun: (id) => cancelRun(r, repo, id),
    checkRuns: (ref, name) => listCheckRuns(r, repo, ref, name),
    branchCheckRuns: (branch, name) => listBranchCheckRuns(r, repo, branch, name),
    createCheckRun: (run) => createCheckRun(r, repo, run),
    updateCheckRun: (id, update) => updateCheckRun(r, repo, id, update),
  } satisfies Partial<Gateway>;
}

/** Git's objects, branches and the claim refs. */
function gitParts({ r, repo, options }: Parts) {
  return {
    directory: (path, ref) => listDirectory(r, repo, path, ref),
    fileText: (path, ref) => fileText(r, repo, path, ref),
    tree: (sha, recursive) => getTree(r, repo, sha, recursive),
    blob: (sha) => getBlob(r, repo, sha),
    blobs: (shas) => getBlobs(r, repo, shas, options.blobs),
    mergeBase: (base, head) => mergeBase(r, repo, base, head),
    comparedFiles: (base, head) => comparedFiles(r, repo, base, head),
    commitTree: (sha) => commitTree(r, repo, sha),
    createTree: (base, files) => createTree(r, repo, base, files),
    createCommit: (commit) => createCommit(r, repo, commit),
    branchSha: (branch) => branchSha(r, repo, branch),
    createBranch: (branch, sha) => createBranch(r, repo, branch, sha),
    updateBranch: (branch, sha) => updateBranch(r, repo, branch, sha),
    deleteBranch: (branch) => deleteBranch(r, repo, branch),
    branchesWithPrefix: (prefix) => branchesWithPrefix(r, repo, prefix),
    branchCreatedAt: (branch) => branchCreatedAt(r, repo, branch),
    createClaimRef: (ref, sha) => createClaimRef(r, repo, ref, sha),
    deleteClaimRef: (ref) => deleteClaimRef(r, repo, ref),
    takeClaim: (ref, sha, note, now) => takeClaim(r, repo, ref, sha, note, now),
    takeOver: (takeover, sha) => takeOver(r, repo, takeover, sha),
    claimRefsWithPrefix: (prefix) => claimRefsWithPrefix(r, repo, prefix),
  } satisfies Partial<Gateway>;
}
