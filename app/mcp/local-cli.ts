import { McpToolError } from './tool-result.js';

export interface CliOutcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * harness's own CLI, run in this process on the repository: the `mcp` command hands it in, so
 * that the tools answer with exactly what `harness status --json`, `validate --json`,
 * `graph --json` and `respond` say (their stable outputs, docs/cli.md: JSON output), and this
 * adapter depends on no CLI code.
 */
export type LocalCli = (args: readonly string[]) => Promise<CliOutcome>;

/** A `--json` command's report; a command that printed none is refused with what it said instead. */
export async function cliJson<T>(cli: LocalCli, args: readonly string[]): Promise<{ code: number; report: T }> {
  const out = await cli(args);
  try {
    return { code: out.code, report: JSON.parse(out.stdout) as T };
  } catch {
    const said = (out.stderr || out.stdout).trim();
    throw new McpToolError(`harness ${args.join(' ')} failed (exit ${out.code}): ${said || 'it printed nothing'}`);
  }
}
