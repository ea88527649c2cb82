/**
 * The App as a server (`npm run app`): Probot's own `run`, which reads the App's settings from
 * the environment as `probot run` does (APP_ID, PRIVATE_KEY, WEBHOOK_SECRET, PORT, …), over
 * AppOctokit, so that the App's requests are paced by harness's limiter and not also by
 * Probot's throttling (app-octokit.ts).
 */
import { run } from 'probot';
import harnessApp from './app.js';
import { AppOctokit } from './app-octokit.js';

await run(harnessApp, { Octokit: AppOctokit });
