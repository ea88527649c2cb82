/**
 * The reporting MCP server as the unit tests' agents start it: bundled once per test run by
 * test/global-setup.ts (reportServerBundle), started as `node <bundle> mcp-report`. The Actions
 * worker's bundle runs the same server the same way (actions/worker/src/index.ts); a checkout's
 * `harness mcp-report` loads it through tsx, which cost each agent's start about a second of CPU.
 */
import { runReportServer } from '../../app/agents/mcp/report-server.js';

// The agent's child: its stdout is the MCP channel, so a failure goes to stderr only.
runReportServer().catch((e: unknown) => {
  process.stderr.write(`harness MCP server: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
