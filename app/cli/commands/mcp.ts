import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { promisify } from 'node:util';
import { secretValues } from '../../machine/content-safety.js';
import { personGateway } from '../../mcp/person-gateway.js';
import { serveMcp } from '../../mcp/serve-mcp.js';
import { RunError, RunRepo } from '../../runner/repo.js';
import { EXIT, UsageError, type CliIO } from '../io.js';
import { main, version } from '../main.js';
import { NPX_MCP } from '../package-name.js';

export const usage = `Usage: harness mcp [--repo OWNER/NAME] [--api-url URL]

Serve harness to your own coding agent as an MCP server on stdio, for the repository
you start it in: list specs and their state, validate, graph, execute a spec, phase or
plan (a harness run it follows), answer checkpoints, read a plan's SUMMARY and
VERIFICATION. Claude Code, with harness on PATH (npm link in a clone of harness):
  claude mcp add harness -- harness mcp
or from the npm registry, once the package is published there:
  claude mcp add harness -- ${NPX_MCP}

With a token in GITHUB_TOKEN (or GH_TOKEN), also the harness_github_* tools: the
specs' plan issues on GitHub, and /harness execute and /harness respond posted as
you for the harness App to act on.

Options:
  --repo OWNER/NAME  the GitHub repository (default: the origin remote's, when it
                     is on github.com and a token is set)
  --api-url URL      GitHub's REST API (default: GITHUB_API_URL, else https://api.github.com)
  -h, --help         show this help

Exit: 0 when the client closes the connection, 2 usage error.
`;

const REPO = /^([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9._-]+)$/;
const GITHUB_REMOTE = /^(?:https:\/\/(?:[^@/]+@)?github\.com\/|git@github\.com:|ssh:\/\/git@github\.com\/)([^/]+)\/([^/]+?)(?:\.git)?\/?$/;

export async function mcpCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { repo: { type: 'string' }, 'api-url': { type: 'string' } } });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}": harness mcp serves the repository it is started in`);
  let root = resolve(io.cwd);
  try {
    root = (await RunRepo.open(root)).root;
  } catch (e) {
    // Outside git the read-only tools still work; harness_execute says why a run needs a repository.
    if (!(e instanceof RunError)) throw e;
  }
  const token = io.env.GITHUB_TOKEN || io.env.GH_TOKEN;
  const named = values.repo ?? (token ? await originRepo(root) : undefined);
  if (values.repo !== undefined && !REPO.test(values.repo)) throw new UsageError(`--repo must be OWNER/NAME, as octo-org/service, not "${values.repo}"`);
  if (values.repo !== undefined && !token) {
    throw new UsageError(
      '--repo needs a token: set GITHUB_TOKEN (a fine-grained token on that repository with Issues and Pull requests: read and write, Checks: read)',
    );
  }
  const apiUrl = (values['api-url'] ?? io.env.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, '');
  if (!/^https?:\/\//.test(apiUrl)) throw new UsageError(`--api-url must be an http(s) URL, not "${apiUrl}"`);
  const [, owner, repo] = named ? REPO.exec(named)! : [];
  const github =
    token && owner && repo ? personGateway(token, apiUrl, { owner, repo }, { unthrottled: process.env.HARNESS_GITHUB_THROTTLE === 'off' }) : undefined;

  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    await serveMcp({
      root,
      // harness's own commands, in this process, with their output captured for the tools.
      cli: async (argv) => {
        let stdout = '';
        let stderr = '';
        const code = await main([...argv], { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: root, env: io.env, isTTY: false });
        return { code, stdout, stderr };
      },
      harness: [process.execPath, ...process.execArgv, process.argv[1]!],
      version: await version(),
      ...(github ? { github } : {}),
      secrets: secretValues(io.env),
      signal: stop.signal,
    });
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
  return EXIT.ok;
}

/** OWNER/NAME of the origin remote when it is on github.com. */
async function originRepo(root: string): Promise<string | undefined> {
  try {
    const { stdout } = await promisify(execFile)('git', ['remote', 'get-url', 'origin'], { cwd: root });
    const m = GITHUB_REMOTE.exec(stdout.trim());
    return m ? `${m[1]}/${m[2]}` : undefined;
  } catch {
    // No git, no origin: no repository to name, which only means no GitHub tools.
    return undefined;
  }
}
