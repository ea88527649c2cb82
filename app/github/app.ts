import type { Probot } from 'probot';
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
  commands(app);
  scheduling(app);
  specPullRequests(app);
  knowledgePullRequests(app);
  reviewSignals(app);
  issueGraph(app);
  app.log.debug('harness app loaded');
}
