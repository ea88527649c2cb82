import type { Probot } from 'probot';
import { onCheckAction } from './on-check-action.js';
import { onComment } from './on-comment.js';

/**
 * The `/harness` slash commands (docs/design.md, Slash commands; grammar in
 * engine/commands/parse.ts) and the buttons on plan check runs, which are the same commands.
 */
export function commands(app: Probot): void {
  app.on('issue_comment.created', onComment);
  app.on('check_run.requested_action', onCheckAction);
}
