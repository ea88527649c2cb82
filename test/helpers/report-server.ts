/**
 * Which reporting MCP server the agents of a test start (app/agents/mcp/server-command.ts).
 *
 * A checkout's `harness mcp-report` (bin/harness.js) loads the sources through tsx: about 1.3 s
 * of CPU before the server answers, paid by every agent run, and most of an agent test's cost
 * (test/agents/copilot.test.ts: 22 s of its 45). The unit and integration projects' agents start the same server
 * bundled once per run instead, as the Actions worker's bundle runs it (`node <bundle>
 * mcp-report`, actions/worker/src/index.ts; test/bundles-setup.ts): about 0.45 s. A file that
 * shows the checkout's own command at work puts it back (`checkoutReportServer()`); the e2e
 * project always runs the checkout's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reportServerCommand, useReportServerCommand, type ServerCommand } from '../../app/agents/mcp/server-command.js';
import { bundleAction } from '../../scripts/build-actions.js';
import { ROOT } from './paths.js';

/** The checkout's `harness mcp-report`, read before anything replaced it (this module loads once per worker, before test/bundles-setup.ts sets the bundle). */
const CHECKOUT: ServerCommand = reportServerCommand();

/** Bundle the server into `dir` (the run's shared directory) with the Actions bundles' options; returns its path. */
export async function buildReportServer(dir: string): Promise<string> {
  const path = join(dir, 'report-server.mjs');
  const built = await bundleAction({ name: 'report-server', entry: 'test/helpers/report-server-main.ts', outfile: path }, ROOT);
  writeFileSync(path, built);
  return path;
}

/** The agents start the bundled server at `path` from now on. */
export function useBundledReportServer(path: string): void {
  useReportServerCommand({ command: process.execPath, args: [path, 'mcp-report'] });
}

/** The agents start the checkout's `harness mcp-report` (bin/harness.js) from now on; gives back the function that puts the command in use before back. */
export function checkoutReportServer(): () => void {
  const before = reportServerCommand();
  useReportServerCommand(CHECKOUT);
  return () => useReportServerCommand(before);
}

/** The checkout's command line of the server, as a run outside the tests has it. */
export const CHECKOUT_REPORT_SERVER: Readonly<ServerCommand> = CHECKOUT;
