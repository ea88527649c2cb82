import type { Checkpoint } from '../core/protocol/messages.js';
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

/** Up to three buttons for a checkpoint: the decision's options (identifiers option-1…), or Approve for a verification. */
export function checkpointActions(checkpoint: Checkpoint): CheckAction[] {
  if (checkpoint.kind === 'verification') return [APPROVE_ACTION];
  return (checkpoint.options ?? []).slice(0, 3).map((option, i) => ({
    label: option.length > 20 ? `${option.slice(0, 19)}…` : option,
    description: `Answer: ${option}`.length > 40 ? `Answer: ${option.slice(0, 31)}…` : `Answer: ${option}`,
    identifier: `option-${i + 1}`,
  }));
}

const OPTIONS_MARKER = /<!-- harness:options (\[.*?\]) -->/;

/** The options behind option-N buttons, kept in the check run's text where the click's payload carries them back. */
export function optionsMarker(options: readonly string[]): string {
  return `<!-- harness:options ${JSON.stringify(options.slice(0, 3)).replace(/-->/g, '--\\u003e')} -->`;
}

export function optionsOf(text: string | null | undefined): string[] | undefined {
  const m = OPTIONS_MARKER.exec(text ?? '');
  if (!m) return undefined;
  try {
    const parsed: unknown = JSON.parse(m[1]!);
    return Array.isArray(parsed) && parsed.every((o) => typeof o === 'string') ? parsed : undefined;
  } catch {
    return undefined;
  }
}
