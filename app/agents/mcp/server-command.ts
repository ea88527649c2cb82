import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** How to start the reporting MCP server as a process of its own: the agent runs this. */
export interface ServerCommand {
  command: string;
  args: string[];
}

let override: ServerCommand | undefined;

/**
 * The Actions bundle is one file that is both the worker and the server (`node dist/index.js
 * mcp-report`): its entry says so here, before any agent starts.
 */
export function useReportServerCommand(command: ServerCommand): void {
  override = command;
}

/** The command line of the server: the bundle's own, or `harness mcp-report` of this checkout or package. */
export function reportServerCommand(): ServerCommand {
  if (override) return override;
  // From app/agents/mcp/ in a checkout, from dist/app/agents/mcp/ in the package.
  const candidates = ['../../../bin/harness.js', '../../../../bin/harness.js'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  const bin = candidates.find((p) => existsSync(p)) ?? candidates[0]!;
  return { command: process.execPath, args: [bin, 'mcp-report'] };
}
