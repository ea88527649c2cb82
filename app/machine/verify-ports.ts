import { resolve } from 'node:path';
import type { Serve } from '../engine/core/spec/model.js';
import type { ExecOptions, ExecResult, VerifyPorts } from '../engine/core/verify/ports.js';
import type { Clock } from '../engine/core/clock.js';
import { systemClock } from './clock.js';
import { checkEnv } from './check-env.js';
import { makeSafe, secretValues } from './content-safety.js';
import { PROCESS_TAG, processTag } from './process-group.js';
import { runShell } from './process-run.js';
import type { ProcessRegistry } from './process-registry.js';
import { LazyBrowser } from './verify-browser.js';
import { ConfinedFiles } from './verify-files.js';
import { verifyHttp } from './verify-http.js';
import { workerRegexSearch } from './verify-regex.js';
import { startServer, type StartedServer } from './verify-serve.js';

export interface LocalVerifyOptions {
  /** Added to the environment of commands and servers. */
  env?: Record<string, string>;
  /** Bytes of each output stream a command keeps (its tail). */
  maxOutputBytes?: number;
  /** Where HARNESS_CHROMIUM is read; process.env by default. */
  processEnv?: NodeJS.ProcessEnv;
  /** The machine's own by default; a run passes its own (its `now`). */
  clock?: Clock;
  /** Where servers are recorded while they run, so that a later run stops what a killed one left. */
  processes?: ProcessRegistry;
}

export interface LocalVerifyPorts extends VerifyPorts {
  readonly root: string;
  /** Close the browser and stop any server still running. Call it when verification is over. */
  close(): Promise<void>;
}

/**
 * The verification ports on this machine, for a checkout at `root`: files confined to the
 * root, commands and servers in process groups and containers of processes of their own
 * (containment.ts; with no credentials of this process in their environment: check-env.ts), fetch for HTTP, and a headless
 * Chromium through playwright-core, launched once on first use.
 */
export function localVerifyPorts(root: string, options: LocalVerifyOptions = {}): LocalVerifyPorts {
  const absRoot = resolve(root);
  const files = new ConfinedFiles(absRoot);
  const browser = new LazyBrowser(options.processEnv ?? process.env);
  const servers = new Set<{ server: StartedServer; tag: string }>();
  // Its group, then anything left in its container (what left the group), then its record.
  const stopServer = async ({ server, tag }: { server: StartedServer; tag: string }) => {
    await server.stop();
    await options.processes?.untrack(tag);
  };

  return {
    root: absRoot,
    readFile: (path) => files.readFile(path),
    exists: (path) => files.exists(path),
    exec: (command, execOptions) => execTracked(files, options, command, execOptions),
    http: (url, init) => verifyHttp(url, init),
    async serve(serve: Serve) {
      const running = await serveTracked(serve, absRoot, options);
      servers.add(running);
      return {
        baseUrl: running.server.baseUrl,
        stop: async () => {
          servers.delete(running);
          await stopServer(running);
        },
      };
    },
    browser: () => browser.port(),
    regex: workerRegexSearch,
    // Before evidence is cut (check-commands.ts): the rules and this process's own secrets.
    redact: async (text) => (await makeSafe(text, { secrets: secretValues(options.processEnv ?? process.env) })).text,
    clock: options.clock ?? systemClock(),
    async close() {
      await Promise.all([...servers].map(stopServer));
      servers.clear();
      await browser.close();
    },
  };
}

/** A check's command, run in its directory under the root; recorded (by tag, and its group once it starts) while it runs. */
async function execTracked(files: ConfinedFiles, options: LocalVerifyOptions, command: string, execOptions: ExecOptions): Promise<ExecResult> {
  const cwd = await files.directory(execOptions.cwd);
  // Recorded before it starts and while it runs: a run killed at any moment meanwhile leaves what the command started (a server) to the next run to stop.
  const tag = processTag();
  await options.processes?.track(tag);
  let started: Promise<void> | undefined;
  try {
    const onStart = (pgid: number) => void (started = options.processes?.started(tag, pgid));
    return await runShell(command, {
      cwd,
      timeoutMs: execOptions.timeoutMs,
      env: { ...options.env, ...execOptions.env },
      maxOutputBytes: options.maxOutputBytes,
      inherit: checkEnv(),
      tag,
      onStart,
    });
  } finally {
    await started;
    await options.processes?.untrack(tag);
  }
}

/** A check's server, started and recorded under its tag (as for exec), with its group's id once it has one. */
async function serveTracked(serve: Serve, absRoot: string, options: LocalVerifyOptions): Promise<{ server: StartedServer; tag: string }> {
  const tag = processTag();
  await options.processes?.track(tag);
  try {
    const server = await startServer(serve, absRoot, { ...options.env, [PROCESS_TAG]: tag }, checkEnv(), async (pgid) => options.processes?.started(tag, pgid));
    return { server, tag };
  } catch (e) {
    // startServer stopped the group and the container of a server that failed to come up.
    await options.processes?.untrack(tag);
    throw e;
  }
}
