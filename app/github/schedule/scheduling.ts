import type { Probot } from 'probot';
import { onHarnessCheckCompleted } from './check-completed.js';
import { onPlanMerged } from './plan-merged.js';
import { onWorkerRunCompleted } from './worker-run.js';

/**
 * The scheduler's events (docs/github-flow.md, 3, 5 and 6): a worker run finishing, a
 * harness check run completing and a plan PR merging each record what happened and run a
 * scheduling round. `/harness execute` and `/harness retry` run rounds too, from the
 * commands (scheduleRound in round.ts).
 */
export function scheduling(app: Probot): void {
  app.on('workflow_run.completed', onWorkerRunCompleted);
  app.on('check_run.completed', onHarnessCheckCompleted);
  app.on('pull_request.closed', onPlanMerged);
}
