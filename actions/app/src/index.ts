import * as core from '@actions/core';
import * as github from '@actions/github';
import { transport } from '@probot/adapter-github-actions/pino-transport-github-actions.js';
import { pino } from 'pino';
import { createProbot, type ApplicationFunction, type ApplicationFunctionOptions, type Probot } from 'probot';
import { readFileSync } from 'node:fs';
import { AppOctokit } from '../../../app/github/app-octokit.js';
import harnessApp from '../../../app/github/app.js';
import { scheduledDecay } from '../../../app/github/knowledge/scheduled-decay.js';
import { scheduledReflection } from '../../../app/github/knowledge/scheduled-reflection.js';

/**
 * The harness App inside a workflow: the event that started the job is handed to the same
 * app function the server serves (app/github/server.ts), as Probot's adapter for Actions does,
 * over the App's Octokit (app-octokit.ts: harness's limiter, not Probot's throttling). With `command:
 * reflect` it runs reflection instead (templates/workflows/harness-reflect.yml): on a
 * schedule or by hand, no webhook event is the App's to handle.
 */

const COMMANDS = ['reflect', 'decay'] as const;

interface ActionInputs {
  token: string;
  eventName: string;
  command?: (typeof COMMANDS)[number];
}

/**
 * Workflows that run with secrets on pull requests from forks listen to
 * `pull_request_target`: its payload is `pull_request`'s, but the workflow comes from the base
 * branch, so a pull request cannot change what runs with the App's key. The app knows only
 * `pull_request`.
 */
const EVENT_ALIASES: Readonly<Record<string, string>> = { pull_request_target: 'pull_request' };

/** Whatever options the app function takes, it is handed what Probot gives. */
const appFunction: ApplicationFunction = harnessApp;

/** The variables a delivery is read from (parseInputs checks them, so that the step fails when one is missing). */
const RUNNER_VARIABLES = ['GITHUB_EVENT_NAME', 'GITHUB_EVENT_PATH', 'GITHUB_RUN_ID'] as const;

function parseInputs(): ActionInputs {
  const missing = RUNNER_VARIABLES.filter((name) => !process.env[name]);
  if (missing.length > 0) throw new Error(`not inside a workflow run: ${missing.join(', ')} not set`);
  const eventName = process.env.GITHUB_EVENT_NAME ?? '';
  const command = core.getInput('command').trim();
  if (command !== '' && !(COMMANDS as readonly string[]).includes(command)) {
    throw new Error(`the input command is "${command}"; it must be empty (handle the workflow's event) or one of: ${COMMANDS.join(', ')}`);
  }
  return {
    token: core.getInput('token', { required: true }),
    eventName: EVENT_ALIASES[eventName] ?? eventName,
    ...(command !== '' ? { command: command as ActionInputs['command'] } : {}),
  };
}

/** `command: reflect` or `decay`: reflection, or gene decay and federation, on the repository's default branch; the answer in the job summary. */
async function scheduled(inputs: ActionInputs, command: 'reflect' | 'decay'): Promise<void> {
  const { context } = github;
  const payload = context.payload as { repository?: { default_branch?: string } };
  // A scheduled run is on the default branch; one started by hand names it in its payload.
  const base = payload.repository?.default_branch ?? process.env.GITHUB_REF_NAME ?? '';
  if (base === '') throw new Error('cannot tell the default branch: the event names no repository and GITHUB_REF_NAME is not set');
  const input = {
    request: github.getOctokit(inputs.token).request,
    repo: context.repo,
    base,
    env: process.env,
    cwd: process.env.GITHUB_WORKSPACE ?? process.cwd(),
    log: { info: (m: string) => core.info(m), warn: (m: string) => core.warning(m) },
  };
  const { summary } = command === 'reflect' ? await scheduledReflection(input) : await scheduledDecay(input);
  core.info(summary);
  await core.summary.addRaw(summary, true).write();
}

/**
 * What @probot/adapter-github-actions' `run` does (its log lines turned into the job's
 * annotations, the token and the event from the environment), with the App's Octokit.
 */
async function receive(app: ApplicationFunction): Promise<void> {
  const probot = createProbot({ overrides: { githubToken: process.env.GITHUB_TOKEN!, log: pino({}, transport), Octokit: AppOctokit } });
  await probot.load(app);
  await probot
    .receive({
      id: process.env.GITHUB_RUN_ID!,
      name: process.env.GITHUB_EVENT_NAME! as never,
      payload: JSON.parse(readFileSync(process.env.GITHUB_EVENT_PATH!, 'utf8')) as never,
    })
    .catch((error: unknown) => probot.log.error(error));
}

async function main(): Promise<void> {
  const inputs = parseInputs();
  core.setSecret(inputs.token);
  if (inputs.command !== undefined) return scheduled(inputs, inputs.command);
  // The adapter reads GITHUB_TOKEN before the input, so a job-level GITHUB_TOKEN would
  // otherwise win over the App token the workflow passed on purpose.
  process.env.GITHUB_TOKEN = inputs.token;
  process.env.GITHUB_EVENT_NAME = inputs.eventName;

  // A handler's error is logged and the delivery resolves; the job must fail so that someone sees it.
  let failed = false;
  await receive((app: Probot, options: ApplicationFunctionOptions) => {
    app.onError(() => {
      failed = true;
    });
    return appFunction(app, options);
  });
  if (failed) core.setFailed(`harness could not handle ${inputs.eventName}: see the errors above`);
}

main().catch((error: unknown) => core.setFailed(error instanceof Error ? error.message : String(error)));
