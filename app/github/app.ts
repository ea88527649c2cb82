import type { Probot } from 'probot';

/**
 * The harness GitHub App. It keeps no state of its own: everything it needs is in the
 * repository, the issues' labels and the check runs, so a restart or a webhook delivered
 * twice changes nothing. Each part owns its events; this file only wires them.
 */
export default function harnessApp(app: Probot): void {
  app.log.debug('harness app loaded');
}
