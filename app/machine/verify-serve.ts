import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { ServerHandle } from '../engine/core/verify/ports.js';
import type { Serve } from '../engine/core/spec/model.js';
import { contain, type Contained } from './containment.js';
import { exited, PROCESS_TAG, processTag, stopGroup } from './process-group.js';
import { ProcessTail } from './process-tail.js';
import { makeSafe, secretValues } from './content-safety.js';

const DEFAULT_READY_SECONDS = 30;
const POLL_MS = 150;
const PROBE_TIMEOUT_MS = 2_000;
const OUTPUT_CAP = 64 * 1024;

/** A port nothing listens on now; the server is told it through PORT. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

function lastLines(text: string, n = 8): string {
  const lines = text.trim().split('\n');
  return lines.slice(-n).join('\n');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Any HTTP answer means the server is up: a 404 at ready_path is still a server. */
async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

export interface StartedServer extends ServerHandle {
  readonly child: ChildProcess;
}

/**
 * Start a plan's server: the command in its own process group and container of processes
 * (containment.ts) under `root`, with PORT set (a free one when the URL says {port}), then poll
 * ready_path until it answers. A server that exits or stays silent is stopped and reported
 * with the end of its output. Stopping it ends its group, then whatever is left in its
 * container (what left the group, or cleared its environment). `env` carries its
 * PROCESS_TAG when the caller recorded one (process-registry.ts); else it gets one of its own.
 */
export async function startServer(
  serve: Serve,
  root: string,
  env: Record<string, string> = {},
  inherit: NodeJS.ProcessEnv = process.env,
  /** Told the group's id as soon as it exists, before the wait for readiness a kill may interrupt. */
  started?: (pgid: number) => Promise<void>,
): Promise<StartedServer> {
  const { baseUrl, readyUrl, portEnv } = await serverUrls(serve);
  // With a fixed port, a server left over from an earlier run would answer for this one.
  if (portEnv.PORT !== undefined && !serve.url.includes('{port}') && (await answers(readyUrl))) {
    throw new Error(
      `something already answers at ${readyUrl} before ${JSON.stringify(serve.command)} started; stop it, or write {port} in serve.url to get a free port`,
    );
  }
  const tag = env[PROCESS_TAG] ?? processTag();
  const server = spawnServer(serve.command, root, { ...inherit, ...env, ...portEnv, [PROCESS_TAG]: tag }, tag);
  if (server.child.pid !== undefined) await started?.(server.child.pid);
  return untilReady(server, serve, baseUrl, readyUrl);
}

/** Where the server answers (a free port where the URL says {port}), where it is polled, and the PORT it is told. */
async function serverUrls(serve: Serve): Promise<{ baseUrl: string; readyUrl: string; portEnv: Record<string, string> }> {
  let url = serve.url;
  const portEnv: Record<string, string> = {};
  if (url.includes('{port}')) {
    const port = String(await freePort());
    url = url.replaceAll('{port}', port);
    portEnv.PORT = port;
  } else {
    const port = new URL(url).port;
    if (port !== '') portEnv.PORT = port;
  }
  const baseUrl = url.replace(/\/+$/, '');
  const readyPath = serve.ready_path ?? '/';
  return { baseUrl, readyUrl: `${baseUrl}/${readyPath.replace(/^\/+/, '')}`, portEnv };
}

/** A server's process as it was spawned. */
interface SpawnedServer {
  readonly child: ChildProcess;
  readonly container: Contained;
  readonly output: ProcessTail;
  /** Why the command could not be spawned, once that is known. */
  spawnError?: Error;
  /** Its group, then what is left in its container, ended (once, however often it is called). */
  stop(): Promise<void>;
}

/** The server's command, in its own process group and container under `root`, its output kept. */
function spawnServer(command: string, root: string, env: NodeJS.ProcessEnv, tag: string): SpawnedServer {
  const output = new ProcessTail(OUTPUT_CAP);
  const container = contain('sh', ['-c', command], { tag, cwd: root, env });
  const child = spawn(container.command, container.args, {
    cwd: root,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => output.push(c));
  child.stderr!.on('data', (c: Buffer) => output.push(c));
  let stopped: Promise<void> | undefined;
  const server: SpawnedServer = {
    child,
    container,
    output,
    stop: () => {
      stopped ??= stopGroup(child)
        .then(() => container.end())
        .then(() => {
          child.stdout!.destroy();
          child.stderr!.destroy();
        });
      return stopped;
    },
  };
  child.once('error', (e) => (server.spawnError = e));
  return server;
}

/** Poll the ready URL until the server answers; one that exits, cannot start or stays silent past its timeout is stopped, and said with the end of its output. */
async function untilReady(server: SpawnedServer, serve: Serve, baseUrl: string, readyUrl: string): Promise<StartedServer> {
  const { child, container, output, stop } = server;
  // The server's output redacted before it is cut to its last lines: a key whose BEGIN line is cut off is found by no rule.
  const safeTail = async (text: string) => lastLines((await makeSafe(text, { secrets: secretValues(process.env) })).text);
  const seconds = serve.timeout_seconds ?? DEFAULT_READY_SECONDS;
  const deadline = Date.now() + seconds * 1000;
  let gone = false;
  void exited(child).then(() => (gone = true));
  for (;;) {
    if (server.spawnError) {
      await stop();
      throw new Error(`could not start ${serve.command}: ${server.spawnError.message}`);
    }
    if (gone) {
      await stop();
      const end = container.ended(child.exitCode, child.signalCode);
      const how = end.code !== null ? `exit ${end.code}` : `signal ${end.signal}`;
      const out = await safeTail(output.text());
      throw new Error(`${JSON.stringify(serve.command)} ended (${how}) before answering at ${readyUrl}${out ? `; output ends:\n${out}` : ''}`);
    }
    if (await answers(readyUrl)) return { baseUrl, child, stop };
    if (Date.now() >= deadline) {
      await stop();
      const out = await safeTail(output.text());
      throw new Error(`${JSON.stringify(serve.command)} did not answer at ${readyUrl} within ${seconds} s${out ? `; output ends:\n${out}` : ''}`);
    }
    await sleep(POLL_MS);
  }
}
