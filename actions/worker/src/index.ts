import { tmpdir } from 'node:os';
import * as core from '@actions/core';
import * as github from '@actions/github';
import { CLIENT_PLUGINS, clientOptions, paceClient } from '../../../app/gateway/client.js';
import { workerForge } from '../../../app/worker-action/worker-run.js';
import { knowledgeForge } from '../../../app/worker-action/capture.js';
import { parseInputs } from '../../../app/worker-action/inputs.js';
import { runWorker } from '../../../app/worker-action/worker.js';
import { systemTicker } from '../../../app/machine/clock.js';
import type { WorkerLog } from '../../../app/worker-action/job-log.js';
import { runReportServer } from '../../../app/agents/mcp/report-server.js';
import { useReportServerCommand } from '../../../app/agents/mcp/server-command.js';

/**
 * The Actions shell around app/worker-action: inputs in, outputs, summary and status out.
 * Everything else lives there, behind ports, where the tests drive it.
 */

/** Secrets of this step that the agent's processes (plan steps, a coding agent) have no business seeing. */
const STEP_SECRETS = ['INPUT_TOKEN', 'INPUT_APP-TOKEN', 'GITHUB_TOKEN', 'GH_TOKEN', 'ACTIONS_RUNTIME_TOKEN', 'ACTIONS_ID_TOKEN_REQUEST_TOKEN'];
/** This bundle is also the agent's reporting MCP server: `node dist/index.js mcp-report`. */
const SERVER_MODE = 'mcp-report';

function baseBranch(ref: string): string {
  if (!ref.startsWith('refs/heads/')) throw new Error(`the worker must be dispatched on a branch (the base branch), not ${ref || 'no ref'}`);
  return ref.slice('refs/heads/'.length);
}

const log: WorkerLog = {
  info: (message) => core.info(message),
  warning: (message) => core.warning(message),
  group: (name, work) => core.group(name, work),
};

async function main(): Promise<void> {
  const inputs = parseInputs((name) => core.getInput(name));
  for (const name of STEP_SECRETS) delete process.env[name];
  core.setSecret(inputs.token);
  if (inputs.appToken) core.setSecret(inputs.appToken);
  useReportServerCommand({ command: process.execPath, args: [process.argv[1]!, SERVER_MODE] });
  const { context } = github;
  const token = inputs.appToken ?? inputs.token;
  // The one client factory's options and plugins (retries of transient failures, GitHub's limits waited out) on @actions/github's client, which keeps the runner's proxy settings.
  const octokit = github.getOctokit(
    token,
    clientOptions({
      userAgent: 'harness-worker',
      warn: (m) => core.warning(m),
      unthrottled: process.env.HARNESS_GITHUB_THROTTLE === 'off',
      ...(process.env.GITHUB_API_URL ? { baseUrl: process.env.GITHUB_API_URL } : {}),
    }),
    ...CLIENT_PLUGINS,
  );
  // GitHub's limits (gateway/limit-model.ts) kept before a request goes, not only waited out after a refusal.
  paceClient(octokit, { warn: (m) => core.warning(m), unthrottled: process.env.HARNESS_GITHUB_THROTTLE === 'off' });
  const { token: _token, appToken: _appToken, appSlug, ...request } = inputs;
  const forge = workerForge(octokit.request, context.repo, appSlug ? `${appSlug}[bot]` : undefined);
  const outcome = await runWorker({
    inputs: request,
    base: baseBranch(context.ref),
    root: process.env.GITHUB_WORKSPACE ?? process.cwd(),
    tempDir: process.env.RUNNER_TEMP ?? tmpdir(),
    forge,
    log,
    // Signals go to this repository, or with the same token to the config's knowledge.repository (README: which token that needs).
    knowledge: (repo) => knowledgeForge(octokit.request, repo ?? context.repo),
    secrets: [inputs.token, ...(inputs.appToken ? [inputs.appToken] : [])],
    checkOwner: inputs.appToken ? 'app' : 'actions',
    pushToken: token,
    // GHES and ghe.com: the token goes to the runner's own server, never to github.com.
    serverUrl: context.serverUrl,
    ...(appSlug ? { appLogin: `${appSlug}[bot]` } : {}),
    runUrl: `${context.serverUrl}/${context.repo.owner}/${context.repo.repo}/actions/runs/${context.runId}`,
    runId: `${context.runId}.${process.env.GITHUB_RUN_ATTEMPT ?? '1'}`,
    repository: `${context.repo.owner}/${context.repo.repo}`,
    // 10 s without a line in the job's log while the agent or a check runs logs what runs, and for how long.
    ticker: systemTicker(),
  });
  core.setOutput('result', outcome.result);
  if (outcome.pullRequest) {
    core.setOutput('pull-request', outcome.pullRequest.number);
    core.setOutput('pull-request-url', outcome.pullRequest.url);
  }
  if (outcome.checkpoint) core.setOutput('checkpoint', outcome.checkpoint);
  await core.summary.addRaw(outcome.summary, true).write();
  if (outcome.failure) core.setFailed(outcome.failure);
}

if (process.argv[2] === SERVER_MODE) {
  // The agent's child: its stdout is the MCP channel, so a failure goes to stderr only.
  runReportServer().catch((e: unknown) => {
    process.stderr.write(`harness MCP server: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
} else
  main().catch(async (e: unknown) => {
    const message = e instanceof Error ? e.message : String(e);
    core.setFailed(message);
    // The summary is where people look first; a failure to write it must not hide the reason above.
    await core.summary
      .addRaw(`## harness worker\n\n**❌ Failed**: ${message}\n`, true)
      .write()
      .catch(() => undefined);
  });
