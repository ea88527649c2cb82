import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Transport } from '@modelcontextprotocol/server';
import type { Gateway } from '../gateway/gateway.js';
import { registerGitHubTools } from './github-tools.js';
import type { LocalCli } from './local-cli.js';
import { LocalRuns } from './local-runs.js';
import { LocalSpecs } from './local-specs.js';
import { registerLocalTools } from './local-tools.js';

export interface McpOptions {
  /** The repository root the tools work on. */
  root: string;
  cli: LocalCli;
  /** argv that starts harness itself (node and bin/harness.js): how runs are started. */
  harness: readonly string[];
  version: string;
  /** The GitHub repository, when a token was given: the harness_github_* tools. */
  github?: Gateway;
  /** The secrets of this process (the token): never in what is posted. */
  secrets?: readonly string[];
  /** stdio unless a test hands another. */
  transport?: Transport;
  /** Ends serving (the CLI aborts it on SIGTERM and SIGINT). */
  signal?: AbortSignal;
}

/**
 * `harness mcp`: an MCP server for a person's own coding agent, serving harness's tools until
 * the client closes the connection; runs it started are stopped then (nobody is left to follow
 * or answer them, and they resume when executed again).
 */
export async function serveMcp(options: McpOptions): Promise<void> {
  const server = new McpServer(
    { name: 'harness', version: options.version },
    {
      instructions:
        'harness executes specs (SPEC.md, ROADMAP.md, PLAN.md files) with coding agents: list the specs, validate one, look at its graph, execute a phase or plan and follow the run, answer its checkpoints, read what a plan left (SUMMARY, VERIFICATION).' +
        (options.github
          ? ` On GitHub (${options.github.repo.owner}/${options.github.repo.repo}) the harness_github_* tools read the plan issues and post /harness commands that the harness App acts on.`
          : ''),
    },
  );
  const runs = new LocalRuns(options.harness, options.root);
  registerLocalTools(server, { cli: options.cli, specs: new LocalSpecs(options.root), runs });
  if (options.github) registerGitHubTools(server, { github: options.github, secrets: options.secrets ?? [] });
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  const stop = () => void server.close();
  options.signal?.addEventListener('abort', stop, { once: true });
  if (options.transport === undefined) {
    // The stdio transport does not end when the client closes stdin; while a run is going, nothing else would end the server.
    process.stdin.once('end', stop);
    await server.connect(new StdioServerTransport());
  } else {
    await server.connect(options.transport);
  }
  if (options.signal?.aborted) stop();
  await closed;
  process.stdin.off('end', stop);
  options.signal?.removeEventListener('abort', stop);
  await runs.stopAll();
}
