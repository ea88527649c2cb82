/**
 * The buttons on harness's plan check runs. GitHub sends a click back to the App that owns
 * the check run as `check_run.requested_action` with the button's `identifier`, so these
 * identifiers are the contract between the check run and whoever handles the click
 * (docs/github-flow.md, 7 and 8). GitHub's size limits are checked where the check run is
 * written (app/github/resources/check-runs.ts).
 */
export interface CheckAction {
  label: string;
  description: string;
  identifier: string;
}

/** On a plan's check run while its worker is queued or running: `/harness abort <plan>`. */
export const ABORT_ACTION: CheckAction = { label: 'Abort', description: 'Cancel the worker; the plan fails', identifier: 'abort' };

/** On a plan's check run at a checkpoint: `/harness respond <plan> approve`. */
export const APPROVE_ACTION: CheckAction = { label: 'Approve', description: 'Answer the checkpoint with approve', identifier: 'approve' };

/**
 * On a plan's check run once it failed: `/harness retry <plan>`. The same button the abort
 * command leaves behind (app/github/commands/plan-check-runs.ts), so one handler serves both.
 */
export const RETRY_ACTION: CheckAction = { label: 'Retry', description: 'Start this plan again from scratch', identifier: 'retry' };
