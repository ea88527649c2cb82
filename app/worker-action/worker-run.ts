import type { HarnessConfig } from '../engine/core/config/schema.js';
import type { Ticker } from '../engine/core/clock.js';
import type { Heartbeat } from '../engine/lifecycle/heartbeat.js';
import type { AnswerTrust } from './issue-answers.js';
import { HarnessError } from '../engine/core/error.js';
import type { Spec } from '../engine/core/spec/model.js';
import type { VerificationReport } from '../engine/core/verify/levels.js';
import type { WorkerInputs } from './inputs.js';
import type { WorkerLog } from './job-log.js';
import type { CheckOwner } from './live-check.js';
import type { RemoteAccess } from './checkout.js';
import { gateway, type Gateway } from '../gateway/gateway.js';
import type { GitHubRequest, Repo } from '../gateway/request.js';

/** What the worker asks of the repository that keeps the knowledge (capture.ts). */
export type KnowledgeForge = Pick<Gateway, 'repo' | 'appendKnowledge' | 'fileText' | 'branchSha' | 'repository'>;

/** A worker run: what it is given, what it reads first, and how it ends. */

/**
 * What the worker asks of GitHub, and nothing more: the plan's issue (the same one the App
 * picks) and its comments, a question and a status at a checkpoint, and the plan's pull
 * request; for a spike, its knowledge PR found and told what was found. The Actions entry
 * point hands it the gateway over the job's token.
 */
export type WorkerForge = Pick<
  Gateway,
  | 'repo'
  | 'pullRequest'
  | 'planIssues'
  | 'updateIssue'
  | 'comments'
  | 'comment'
  | 'setStatus'
  | 'moveStatus'
  | 'role'
  | 'openPullRequest'
  | 'pullRequests'
  | 'updatePullRequest'
  | 'checkRuns'
  | 'createCheckRun'
  | 'updateCheckRun'
>;

/**
 * The worker's forge: the gateway over the job's client (its errors name the `permissions:` to
 * grant). `appLogin`: the App's bot, whose issues alone are plan issues; without it, the token's
 * own login, which is the App's only for its installation token.
 */
export function workerForge(request: GitHubRequest, repo: Repo, appLogin?: string): WorkerForge {
  return gateway(request, repo, 'workflow', appLogin === undefined ? {} : { planIssueAuthor: appLogin });
}

/** Everything a worker run is given: the inputs, where it is, and its ports. */
export interface WorkerDeps {
  inputs: Omit<WorkerInputs, 'token'>;
  /** The base branch: the ref the workflow was dispatched on, without refs/heads/. */
  base: string;
  /** The checkout ($GITHUB_WORKSPACE): the plan branch, or for a phase the phase branch at the base head. */
  root: string;
  /** Scratch space outside the checkout ($RUNNER_TEMP): the agent's logs go here. */
  tempDir: string;
  forge: WorkerForge;
  log: WorkerLog;
  /** Added to the environment of the agent, the checks and the servers. */
  env?: Record<string, string>;
  now?: () => Date;
  /** This workflow run on GitHub, for links. */
  runUrl?: string;
  /** This workflow run's id and attempt (`12345.1`): its plan issue's run record and its trace name it. */
  runId?: string;
  /** `owner/repo`, on the trace. */
  repository?: string;
  /**
   * The repository that keeps the knowledge (this one, or the `knowledge.repository` of the
   * config), where the job's signals go; without it they are captured but written nowhere.
   */
  knowledge?: (repository?: Repo) => KnowledgeForge;
  /** Secret values the job holds beyond its environment (its token), redacted from whatever it writes. */
  secrets?: readonly string[];
  /** `app`: the job holds the App's installation token, so the plan's check run is the App's to update; `actions` (the default): only GITHUB_TOKEN. */
  checkOwner?: CheckOwner;
  /** The token the worker's git processes that talk to the remote get (fetch, ls-remote, push), and nothing else: the checkout keeps no credentials. */
  pushToken?: string;
  /** The server the token is for ($GITHUB_SERVER_URL); https://github.com by default. */
  serverUrl?: string;
  /** The App's bot login ("harness-app[bot]"): of all bots, only its answers on a plan issue count. */
  appLogin?: string;
  /** Milliseconds, monotonic: paces the check run's writes. */
  monotonic?: () => number;
  /** The fewest milliseconds between two progress writes of the check run (3,000 by default). */
  checkIntervalMs?: number;
  /**
   * The timer of the job log's heartbeat: with one, 10 s without a line while the agent or a
   * check runs logs what runs and for how long (engine/lifecycle/heartbeat.ts); without, nothing.
   */
  ticker?: Ticker;
}

/** A run once the config and the spec are read. */
export interface WorkerRun extends WorkerDeps {
  config: HarnessConfig;
  /** Notes for the summary: config problems, overrides. */
  notes: string[];
  spec: Spec;
  /** The spec directory, relative to the checkout. */
  specPath: string;
  env: Record<string, string>;
  now: () => Date;
  /** Hears every line of the job's log, and says what runs after a silence; none without `ticker`. */
  heartbeat?: Heartbeat;
}

/** Whose answers on a plan issue count: the App's, and people's whose role meets the config's `permission`. */
export function answerTrust(run: WorkerRun): AnswerTrust {
  return {
    ...(run.appLogin === undefined ? {} : { appLogin: run.appLogin }),
    role: (login) => run.forge.role(login),
    least: run.config.permission,
    warn: (m) => run.log.warning(m),
  };
}

/** How a worker run ended; the entry point turns it into the job's outputs, summary and status. */
export interface WorkerOutcome {
  /** verified: the plan (or phase) passed; checkpoint: it waits for a person (the job succeeds); failed: the job fails. */
  result: 'verified' | 'checkpoint' | 'failed';
  /** The job summary, Markdown. */
  summary: string;
  /** Why the job fails, for core.setFailed. */
  failure?: string;
  pullRequest?: { number: number; url: string };
  /** The checkpoint it waits at. */
  checkpoint?: string;
  report?: VerificationReport;
}

/** How the worker's own git processes reach the remote: the job's token, for the runner's server only. */
export function remoteAccess(run: Pick<WorkerDeps, 'pushToken' | 'serverUrl'>): RemoteAccess {
  return { ...(run.pushToken ? { token: run.pushToken } : {}), ...(run.serverUrl ? { serverUrl: run.serverUrl } : {}) };
}

/** A reason the worker cannot do its job that a person must fix (a missing spec, plan or issue): the job fails with it. */
export class WorkerError extends HarnessError {}
