import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import { SandboxManager, type SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { HarnessError } from '../engine/core/error.js';
import { processAlive } from './process-group.js';
import {
  engineHosts,
  expandHosts,
  REPORT_PROXY_ENV,
  githubHosts,
  hostOfUrl,
  type AgentSandbox,
  type AgentSandboxes,
  type BlockedHost,
  type SandboxRequest,
} from '../engine/core/agents/sandbox.js';

/**
 * The agents' sandbox on this machine, built on Anthropic's sandbox-runtime (docs/dependencies.md
 * says why): on Linux each agent process runs under bubblewrap with no network of its own, its
 * connections going through sandbox-runtime's filtering proxy in this process, which lets through
 * only the allowed hosts; on macOS under sandbox-exec with the same proxy. This module is the
 * glue: which hosts and paths, one id per process so that a refusal names the plan that asked,
 * and the refusals counted as they happen. sandbox-runtime keeps one proxy per process, so one
 * MachineSandboxes serves every plan of a run.
 */

export class SandboxUnavailableError extends HarnessError {}

export interface SandboxPolicy {
  /** `network.allowed`, as written (hosts, wildcards, ecosystem sets). */
  allowed: readonly string[];
  /** `network.blocked`: wins over allowed. */
  blocked: readonly string[];
  /** The environment whose GitHub server (GITHUB_SERVER_URL, GITHUB_API_URL) and home count. */
  env: Record<string, string | undefined>;
}

/** What an agent may not read: where credentials live, in the home of harness and of the agent. */
const CREDENTIALS = [
  '.ssh',
  '.config/gh',
  '.git-credentials',
  '.config/git/credentials',
  '.netrc',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.docker/config.json',
  '.npmrc',
  '.pypirc',
  '.gnupg',
  '.kube',
];

/** Where each engine keeps its sessions and settings (writable for it): the variable, else the folder in the home. */
const ENGINE_HOMES: Readonly<Record<string, readonly { env: string; home: string; under?: string }[]>> = {
  claude: [{ env: 'CLAUDE_CONFIG_DIR', home: '.claude' }],
  codex: [{ env: 'CODEX_HOME', home: '.codex' }],
  gemini: [{ env: 'GEMINI_CLI_HOME', home: '.gemini', under: '.gemini' }],
  copilot: [{ env: 'COPILOT_HOME', home: '.copilot' }],
};

/** The variables that point a tool's cache into the attempt's own folder, where the sandbox lets it write. */
const CACHE_VARIABLES = ['npm_config_cache', 'XDG_CACHE_HOME', 'GOCACHE', 'GOMODCACHE', 'PIP_CACHE_DIR', 'YARN_CACHE_FOLDER'];

/** The port sandbox-runtime's proxy answers on inside a Linux sandbox (its socat relay). */
const LINUX_INNER_PROXY_PORT = 3128;

const DENY_LINE = /^deny network-outbound (\S+)/;
/**
 * Set in this process's environment while the sandbox runs, so that the relays sandbox-runtime
 * starts from it (socat between its proxy and the sandboxes' sockets) carry the owner's pid:
 * what a killed run left is found by it.
 */
const RELAY_OWNER = 'HARNESS_SANDBOX_OWNER';

/** The relays whose owner is gone (killed before it could stop them), ended. */
async function reapOrphanRelays(): Promise<number> {
  let ended = 0;
  const entries = await readdir('/proc').catch(() => [] as string[]);
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '');
    const owner = environ
      .split('\0')
      .find((v) => v.startsWith(`${RELAY_OWNER}=`))
      ?.slice(RELAY_OWNER.length + 1);
    if (owner === undefined || !/^\d+$/.test(owner) || owner === String(process.pid) || processAlive(Number(owner))) continue;
    try {
      process.kill(Number(entry), 'SIGKILL');
      ended++;
    } catch {
      // Gone meanwhile.
    }
  }
  return ended;
}
/** A host as a refusal may name it: anything else (the agent chose the name) is said as unreadable, never quoted. */
const READABLE_HOST = /^[A-Za-z0-9._*[\]:-]{1,260}$/;

let live: MachineSandboxes | undefined;

export class MachineSandboxes implements AgentSandboxes {
  private readonly allowed = new Set<string>();
  private readonly blockedHosts: string[];
  /** Refusals by the id of the process they came from. */
  private readonly refused = new Map<string, Map<string, number>>();
  private unsubscribe: (() => void) | undefined;
  private seen = 0;
  private next = 0;
  private home: string | undefined;
  private neutral: string | undefined;

  private constructor(policy: SandboxPolicy) {
    for (const h of [...githubHosts(policy.env), ...expandHosts(policy.allowed)]) this.allowed.add(h);
    this.blockedHosts = expandHosts(policy.blocked);
  }

  /**
   * Start the sandbox (its proxies) for this process, or say why it cannot run here: the
   * platform, or what is missing (bubblewrap, socat, ripgrep on Linux) and how to get it.
   */
  static async start(policy: SandboxPolicy): Promise<MachineSandboxes> {
    if (live) throw new SandboxUnavailableError("the agents' sandbox is already running in this process: one run at a time");
    if (!SandboxManager.isSupportedPlatform())
      throw new SandboxUnavailableError(
        `the agents' sandbox does not run on ${process.platform}: it needs Linux (bubblewrap) or macOS (sandbox-exec); run without --sandbox, or on such a machine`,
      );
    const deps = await SandboxManager.checkDependenciesAsync();
    if (deps.errors.length > 0) {
      const install =
        process.platform === 'linux'
          ? ' (Debian and Ubuntu: sudo apt-get install bubblewrap socat ripgrep)'
          : process.platform === 'darwin'
            ? ' (brew install ripgrep)'
            : '';
      throw new SandboxUnavailableError(`the agents' sandbox cannot start on this machine: ${deps.errors.join('; ')}${install}`);
    }
    // A run killed (SIGKILL) leaves sandbox-runtime's relays behind, which its process started: ended here, before new ones start.
    await reapOrphanRelays();
    process.env[RELAY_OWNER] = String(process.pid);
    const sandboxes = new MachineSandboxes(policy);
    // sandbox-runtime protects the dotfiles (.bashrc, .mcp.json, .vscode, …) of this process's working directory by
    // mounting empty files over those that do not exist, which would show up in a checkout as changes: it works from
    // an empty folder of its own instead. Each worktree's git metadata stays read-only all the same (its allowWrite rule).
    sandboxes.home = process.cwd();
    sandboxes.neutral = mkdtempSync(join(tmpdir(), 'harness-sandbox-'));
    process.chdir(sandboxes.neutral);
    try {
      await SandboxManager.initialize(sandboxes.config());
    } catch (e) {
      await SandboxManager.reset().catch(() => undefined);
      sandboxes.leave();
      throw new SandboxUnavailableError(`the agents' sandbox could not start: ${(e as Error).message}`);
    }
    live = sandboxes;
    const store = SandboxManager.getSandboxViolationStore();
    sandboxes.seen = store.getTotalCount();
    sandboxes.unsubscribe = store.subscribe((all) => sandboxes.take(all, store.getTotalCount()));
    return sandboxes;
  }

  /** Stop the proxies; the sandbox's processes have ended by then. */
  async close(): Promise<void> {
    this.unsubscribe?.();
    if (live === this) live = undefined;
    await SandboxManager.reset();
    this.leave();
  }

  /** Back to the working directory the process had, the empty one removed. */
  private leave(): void {
    delete process.env[RELAY_OWNER];
    if (this.home !== undefined) process.chdir(this.home);
    if (this.neutral !== undefined) rmSync(this.neutral, { recursive: true, force: true });
  }

  /** The network part of sandbox-runtime's config, from what is allowed so far. */
  private config(): SandboxRuntimeConfig {
    return {
      network: { allowedDomains: [...this.allowed], deniedDomains: [...this.blockedHosts], strictAllowlist: true },
      filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
    };
  }

  /** Allow more hosts for every process from now on (an engine's API, a bridge), when they are new. */
  private allow(hosts: readonly string[]): void {
    const added = hosts.filter((h) => !this.allowed.has(h));
    if (added.length === 0) return;
    for (const h of added) this.allowed.add(h);
    SandboxManager.updateConfig(this.config());
  }

  /** The refusals new since the last look (the store keeps only its last 100: each is counted as it comes). */
  private take(all: readonly { line: string; encodedCommand?: string }[], total: number): void {
    const fresh = Math.min(total - this.seen, all.length);
    this.seen = total;
    for (const v of all.slice(all.length - fresh)) {
      const named = DENY_LINE.exec(v.line)?.[1];
      if (named === undefined || v.encodedCommand === undefined) continue;
      const host = READABLE_HOST.test(named) ? named.toLowerCase() : '(a host name that cannot be shown)';
      const id = Buffer.from(v.encodedCommand, 'base64').toString('utf8');
      const hosts = this.refused.get(id) ?? new Map<string, number>();
      hosts.set(host, (hosts.get(host) ?? 0) + 1);
      this.refused.set(id, hosts);
    }
  }

  forAttempt(attempt: { spec: string; plan: string; worktree: string; logDir: string }): AgentSandbox {
    const ids = new Map<string, string>();
    const cache = join(attempt.logDir, 'sandbox-cache');
    return {
      wrap: async (request: SandboxRequest) => {
        const id = `${attempt.spec}/${attempt.plan}#${++this.next}`;
        ids.set(id, request.command);
        this.allow(engineHosts(request.engine, request.env));
        mkdirSync(cache, { recursive: true });
        const env: Record<string, string | undefined> = { ...request.env };
        for (const name of CACHE_VARIABLES) env[name] = join(cache, name.toLowerCase());
        const command = [request.command, ...request.args].map(shellQuote).join(' ');
        const wrapped = await SandboxManager.wrapWithSandbox(command, undefined, { filesystem: filesystemFor(request, attempt, cache) }, undefined, {
          commandId: id,
          commandText: request.command,
        });
        return { command: '/bin/sh', args: ['-c', wrapped], env };
      },
      bridge: (url: string) => {
        const host = hostOfUrl(url);
        if (host !== undefined) this.allow([host]);
        const id = `${attempt.spec}/${attempt.plan}#report`;
        return { [REPORT_PROXY_ENV]: innerProxyUrl(id) };
      },
      blocked: (): BlockedHost[] => {
        const out: BlockedHost[] = [];
        for (const [id, command] of ids) for (const [host, count] of this.refused.get(id) ?? []) out.push({ host, count, command });
        return out.sort((a, b) => b.count - a.count || a.host.localeCompare(b.host));
      },
    };
  }
}

/** The proxy's address as a process inside the sandbox reaches it, with the credentials that say which process asks. */
function innerProxyUrl(id: string): string {
  const token = SandboxManager.getProxyAuthToken() ?? '';
  const port = process.platform === 'linux' ? LINUX_INNER_PROXY_PORT : (SandboxManager.getProxyPort() ?? LINUX_INNER_PROXY_PORT);
  const user = `srt.${Buffer.from(id, 'utf8').toString('base64')}`;
  return `http://${encodeURIComponent(user)}:${encodeURIComponent(token)}@localhost:${port}`;
}

/**
 * The paths of one process: it writes to the worktree (whose git metadata sandbox-runtime keeps
 * read-only: harness commits what the agent leaves), its engine's folders and the attempt's
 * cache; it reads everything but credentials, and, on a runner, other steps' files.
 */
function filesystemFor(request: SandboxRequest, attempt: { worktree: string; logDir: string }, cache: string): SandboxRuntimeConfig['filesystem'] {
  const homes = [...new Set([homedir(), request.env.HOME].filter((h): h is string => h !== undefined && h !== ''))];
  const denyRead = homes.flatMap((h) => CREDENTIALS.map((c) => join(h, c))).filter((p) => existsSync(p));
  const allowWrite = [resolve(attempt.worktree), cache, ...(request.writes ?? [])];
  for (const spot of ENGINE_HOMES[request.engine] ?? []) {
    const set = request.env[spot.env];
    const dir = set ? (spot.under ? join(set, spot.under) : set) : join(request.env.HOME || homedir(), spot.home);
    mkdirSync(dir, { recursive: true });
    allowWrite.push(dir);
  }
  // On a runner, other steps' files in $RUNNER_TEMP (the workflow's command files among them) are hidden; the
  // attempt's own folder there (its MCP config, its answers, its cache) and what it writes stay as they are.
  const runnerTemp = request.env.RUNNER_TEMP;
  if (runnerTemp && existsSync(runnerTemp))
    denyRead.push(
      ...allBut(
        resolve(runnerTemp),
        [attempt.logDir, ...allowWrite].map((p) => resolve(p)),
      ),
    );
  return { denyRead, allowRead: [], allowWrite, denyWrite: [] };
}

/** Every entry under `root` that neither is nor holds one of `keep`: going down only towards what is kept. */
function allBut(root: string, keep: readonly string[]): string[] {
  const inside = keep.filter((k) => k === root || k.startsWith(`${root}${sep}`));
  if (inside.includes(root)) return [];
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return [root];
  }
  return entries.flatMap((name) => {
    const path = join(root, name);
    return inside.some((k) => k === path || k.startsWith(`${path}${sep}`)) ? allBut(path, inside) : [path];
  });
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
