import type { Probot } from 'probot';
import { AppMemory, withMemory } from './app-memory.js';
import { commands } from './commands/commands.js';
import { issueGraph } from './graph/issue-graph.js';
import { knowledgePullRequests } from './knowledge/knowledge-pull-requests.js';
import { reviewSignals } from './knowledge/review-signals.js';
import { scheduling } from './schedule/scheduling.js';
import { specPullRequests } from './spec-pr/spec-pull-requests.js';

/**
 * The harness GitHub App. It keeps no state of its own: everything it needs is in the
 * repository, the issues' labels and the check runs, so a restart or a webhook delivered
 * twice changes nothing. Each part owns its events; this file only wires them.
 */
export default function harnessApp(app: Probot): void {
  harnessAppWith(app, new AppMemory());
}

/** The App over the memory it keeps between deliveries (app-memory.ts): one per process, a new one a restart. */
export function harnessAppWith(probot: Probot, memory: AppMemory): void {
  const app = withMemory(probot, memory);
  commands(app);
  scheduling(app);
  specPullRequests(app);
  knowledgePullRequests(app);
  reviewSignals(app);
  issueGraph(app);
  probot.log.debug('harness app loaded');
}
