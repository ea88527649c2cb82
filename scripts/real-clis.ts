// `npm run real-clis [-- claude codex …]`: keeps each pinned agent CLI installed, for the tests that
// run the real CLI against a fake model on 127.0.0.1 (test/helpers/real-cli.ts). Each goes into a
// folder of its own named by its version, under $HARNESS_REAL_CLIS (default
// ~/.cache/harness/real-clis), and is installed only when that folder is not complete yet: a new pin
// installs beside the old, and a run that was stopped halfway starts that CLI again. Codex alone is
// about 420 MB (its native binary), so CI downloads each pin once per machine, not once per run.
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AGENT_CLIS, installClis, pinned, type AgentCli } from './agent-clis.js';

export function realClisRoot(): string {
  return process.env.HARNESS_REAL_CLIS ?? join(homedir(), '.cache/harness/real-clis');
}

/** Where a CLI is installed at its pin: `<root>/<key>-<version>`, complete when it holds `.done`. */
export function realCliDir(cli: AgentCli): string {
  return join(realClisRoot(), `${cli.key}-${pinned(cli.pin)}`);
}

function ensure(cli: AgentCli): void {
  const dir = realCliDir(cli);
  if (existsSync(join(dir, '.done'))) {
    console.log(`${cli.bin} ${pinned(cli.pin)}: ${dir}`);
    return;
  }
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  installClis(partial, [cli]);
  writeFileSync(join(partial, '.done'), `${cli.pkg}@${pinned(cli.pin)}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  console.log(`${cli.bin} ${pinned(cli.pin)}: installed in ${dir}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((a) => !AGENT_CLIS.some((c) => c.key === a));
  if (unknown.length > 0) {
    console.error(`real-clis: no agent CLI named ${unknown.join(', ')} (there are ${AGENT_CLIS.map((c) => c.key).join(', ')})`);
    process.exit(2);
  }
  for (const cli of AGENT_CLIS.filter((c) => asked.length === 0 || asked.includes(c.key))) ensure(cli);
}
