import { createRequire } from 'node:module';
import nock from 'nock';
import { Probot } from 'probot';
import { harnessAppWith } from '../../app/github/app.js';
import { appProcessMemory } from './app-process.js';
import { TestOctokit } from './octokit.js';

const require = createRequire(import.meta.url);
// The package's JSON has no import attributes; createRequire loads it under any runtime.
const examples = require('@octokit/webhooks-examples') as { name: string; examples: Record<string, unknown>[] }[];

/** A real payload from @octokit/webhooks-examples, deep-copied so a test may adapt it. */
export function webhookExample<T = Record<string, unknown>>(name: string, pick: (payload: Record<string, unknown>) => boolean = () => true): T {
  const event = examples.find((e) => e.name === name);
  const payload = event?.examples.find(pick);
  if (!payload) throw new Error(`no example payload for ${name} matching the filter`);
  return structuredClone(payload) as T;
}

/** Probot with throttling and retries off and a plain token; the App by default, over the test's App process memory (app-process.ts). */
export function testProbot(app: (probot: Probot) => void = (probot) => harnessAppWith(probot, appProcessMemory())): Probot {
  const probot = new Probot({ githubToken: 'test-token', Octokit: TestOctokit, logLevel: 'fatal' });
  probot.load(app);
  return probot;
}

export function githubApi(): nock.Scope {
  return nock('https://api.github.com');
}

export function blockNetwork(): void {
  nock.disableNetConnect();
}

export function resetNetwork(): void {
  nock.cleanAll();
}
