import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import { SandboxManager } from '@anthropic-ai/sandbox-runtime';

/** The names the sandbox tests reach, which /etc/hosts maps to 127.0.0.1 (.ci/run adds the line). */
export const SANDBOX_TEST_HOSTS = ['api.allowed.test', 'evil.allowed.test', 'api.blocked.test'];

/**
 * Why the agents' sandbox cannot be tried on this machine, or undefined when it can: bubblewrap,
 * socat and ripgrep, and the test hosts' names. Under CI a reason is an error (the run must not
 * be green by skipping); elsewhere the file says it and skips.
 */
export async function sandboxUnavailable(): Promise<string | undefined> {
  const deps = SandboxManager.checkDependencies();
  let why: string | undefined;
  if (deps.errors.length > 0) why = `the sandbox cannot run here: ${deps.errors.join('; ')} (sudo apt-get install bubblewrap socat ripgrep)`;
  for (const name of why === undefined ? SANDBOX_TEST_HOSTS : []) {
    const found = await lookup(name).catch(() => undefined);
    if (found?.address !== '127.0.0.1') {
      why = `${name} does not resolve to 127.0.0.1: add "127.0.0.1 ${SANDBOX_TEST_HOSTS.join(' ')}" to /etc/hosts (.ci/run does)`;
      break;
    }
  }
  if (why !== undefined && process.env.CI === 'true') throw new Error(why);
  return why;
}

/** A local server that answers `hello from <name>`. */
export function helloServer(name: string): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer((_req, res) => res.end(`hello from ${name}`));
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}
