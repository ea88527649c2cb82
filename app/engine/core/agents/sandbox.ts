/**
 * The sandbox an agent's processes run in (`harness run --sandbox`, and on a runner when
 * `.github/harness.yml` has a `network:` section): connections go only to the hosts allowed,
 * through a filtering proxy; writes go only to the worktree and the agent's own folders;
 * credential files cannot be read. The machine adapter (app/machine/sandbox.ts) builds it on
 * Anthropic's sandbox-runtime; this module is the policy, pure: which hosts, which sets, and how
 * a refusal is said.
 */

/** Set inside the agents' sandbox: the proxy (with its credentials) the harness MCP server reaches its bridge through, as nothing else leaves the sandbox. */
export const REPORT_PROXY_ENV = 'HARNESS_REPORT_PROXY';

/** One agent process to be started inside the sandbox. */
export interface SandboxRequest {
  /** The engine the process is (claude, codex, gemini, copilot, command, script): its API hosts are allowed. */
  engine: string;
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string | undefined>;
  /** Folders outside the worktree the engine writes to besides its home (copilot's usage file's). */
  writes?: readonly string[];
}

/** What to start instead: the same command, inside the sandbox. */
export interface SandboxedCommand {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
}

/** A host the sandbox refused during an attempt. */
export interface BlockedHost {
  /** As the process asked for it, with its port when it named one (`registry.npmjs.org:443`). */
  host: string;
  /** How many connections to it were refused. */
  count: number;
  /** The command that asked: the agent process whose tree made the connection. */
  command: string;
}

/** The sandbox of one attempt at one plan. */
export interface AgentSandbox {
  wrap(request: SandboxRequest): Promise<SandboxedCommand>;
  /**
   * The reporting bridge the agent's harness MCP server talks to (http://127.0.0.1:port): the
   * one loopback address the sandbox lets through. Returns the variables the server needs to
   * reach it from inside.
   */
  bridge(url: string): Record<string, string>;
  /** Everything refused so far in this attempt, most refused first. */
  blocked(): BlockedHost[];
}

/** What the runtime offers the lifecycle: a sandbox for each attempt. */
export interface AgentSandboxes {
  forAttempt(attempt: { spec: string; plan: string; worktree: string; logDir: string }): AgentSandbox;
}

/**
 * The hosts each ecosystem set names (`network: { allowed: [node, python] }`): the registries
 * and download hosts its package manager reaches to install. docs/security.md lists them.
 */
export const ECOSYSTEMS: Readonly<Record<string, readonly string[]>> = {
  node: ['registry.npmjs.org', '*.npmjs.org', 'registry.yarnpkg.com', 'repo.yarnpkg.com', 'nodejs.org', 'registry.npmmirror.com'],
  python: ['pypi.org', 'files.pythonhosted.org', '*.pythonhosted.org', 'bootstrap.pypa.io'],
  go: ['proxy.golang.org', 'sum.golang.org', 'go.dev', 'golang.org', 'storage.googleapis.com'],
  rust: ['crates.io', 'index.crates.io', 'static.crates.io', 'static.rust-lang.org', 'sh.rustup.rs'],
  java: ['repo.maven.apache.org', 'repo1.maven.org', 'plugins.gradle.org', 'services.gradle.org', 'downloads.gradle.org', 'jcenter.bintray.com'],
  dotnet: ['api.nuget.org', '*.nuget.org', 'dotnetcli.azureedge.net', 'builds.dotnet.microsoft.com'],
  ruby: ['rubygems.org', '*.rubygems.org', 'index.rubygems.org'],
  php: ['packagist.org', 'repo.packagist.org', 'getcomposer.org'],
  containers: [
    'registry-1.docker.io',
    'auth.docker.io',
    'production.cloudflare.docker.com',
    'ghcr.io',
    'pkg-containers.githubusercontent.com',
    'quay.io',
    'mcr.microsoft.com',
  ],
  linux: [
    'deb.debian.org',
    'security.debian.org',
    'archive.ubuntu.com',
    'security.ubuntu.com',
    'ports.ubuntu.com',
    'azure.archive.ubuntu.com',
    'dl-cdn.alpinelinux.org',
  ],
};

/** Each engine's own API hosts: always allowed for that engine's processes. */
export const ENGINE_HOSTS: Readonly<Record<string, readonly string[]>> = {
  claude: ['api.anthropic.com', 'statsig.anthropic.com'],
  codex: ['api.openai.com', 'auth.openai.com', 'chatgpt.com'],
  gemini: ['generativelanguage.googleapis.com', 'cloudcode-pa.googleapis.com', 'oauth2.googleapis.com'],
  copilot: ['api.githubcopilot.com', '*.githubcopilot.com'],
  command: [],
  script: [],
};

/** The variables an engine reads its API's address from: a host there is the engine's own too (a proxy, a gateway, a fake API in tests). */
export const ENGINE_BASE_URLS: Readonly<Record<string, readonly string[]>> = {
  claude: ['ANTHROPIC_BASE_URL'],
  codex: ['OPENAI_BASE_URL'],
  gemini: ['GOOGLE_GEMINI_BASE_URL', 'GOOGLE_VERTEX_BASE_URL'],
  copilot: ['COPILOT_PROVIDER_BASE_URL'],
};

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST = new RegExp(`^(?:\\*\\.)?(?:${LABEL}\\.)*${LABEL}(?::\\d{1,5})?$`);
const IPV4 = /^(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5})?$/;

/**
 * Why `entry` is no host pattern or ecosystem set, or undefined when it is one: a name such as
 * `api.example.com`, a wildcard `*.corp.dev`, either with `:port`, an IPv4 address, or a set.
 */
export function networkEntryProblem(entry: string): string | undefined {
  const e = entry.trim().toLowerCase();
  if (Object.hasOwn(ECOSYSTEMS, e)) return undefined;
  if (e === '*' || (e.startsWith('*') && !e.startsWith('*.')))
    return `"${entry}" would allow every host: name the hosts, or a wildcard under a domain ("*.example.com")`;
  if (IPV4.test(e))
    return e
      .split(/[.:]/)
      .slice(0, 4)
      .every((n) => Number(n) <= 255)
      ? undefined
      : `"${entry}" is no IPv4 address`;
  if (!HOST.test(e) || e.length > 260)
    return `"${entry}" is neither a host ("api.example.com", "*.corp.dev", "host:443") nor an ecosystem set (${Object.keys(ECOSYSTEMS).join(', ')})`;
  if (!e.includes('.') && !e.includes(':'))
    return `"${entry}" is no ecosystem set (${Object.keys(ECOSYSTEMS).join(', ')}) and no full host name: write it with its domain`;
  return undefined;
}

/** Entries as hosts: each ecosystem set replaced by its hosts, lowercased, each once. */
export function expandHosts(entries: readonly string[]): string[] {
  const out = new Set<string>();
  for (const raw of entries) {
    const e = raw.trim().toLowerCase();
    for (const host of ECOSYSTEMS[e] ?? [e]) out.add(host);
  }
  return [...out];
}

/** `host[:port]` of a URL, or undefined when it is none. */
export function hostOfUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.port ? `${u.hostname}:${u.port}` : u.hostname;
  } catch {
    return undefined;
  }
}

/** The GitHub hosts of the configured server (GITHUB_SERVER_URL, GitHub Enterprise Server included): git over HTTPS, the API, raw files. */
export function githubHosts(env: Record<string, string | undefined>): string[] {
  const server = hostOfUrl(env.GITHUB_SERVER_URL) ?? 'github.com';
  const api = hostOfUrl(env.GITHUB_API_URL);
  const hosts =
    server === 'github.com'
      ? ['github.com', 'api.github.com', '*.githubusercontent.com', 'codeload.github.com', 'uploads.github.com']
      : [server, `*.${server.replace(/:\d+$/, '')}`];
  if (api !== undefined) hosts.push(api);
  return [...new Set(hosts)];
}

/** The hosts an engine's processes may reach beyond the repository's list: its API (and the one its variables point at). */
export function engineHosts(engine: string, env: Record<string, string | undefined>): string[] {
  const from = (ENGINE_BASE_URLS[engine] ?? []).map((name) => hostOfUrl(env[name])).filter((h): h is string => h !== undefined);
  return [...new Set([...(ENGINE_HOSTS[engine] ?? []), ...from])];
}

/** The host a refusal names, without the port, for the line that allows it. */
function bareHost(host: string): string {
  return host.replace(/:\d+$/, '');
}

/** What was blocked, as Markdown lines: each host, how often, who asked, and the line that allows it. */
export function blockedHostsMarkdown(blocked: readonly BlockedHost[]): string[] {
  if (blocked.length === 0) return [];
  const lines = blocked.map((b) => `- \`${b.host}\`: refused ${b.count} ${b.count === 1 ? 'time' : 'times'} (asked by \`${b.command}\`)`);
  const hosts = [...new Set(blocked.map((b) => bareHost(b.host)))];
  return [
    `The sandbox refused ${blocked.length === 1 ? 'a host' : `${blocked.length} hosts`} the agent asked for:`,
    ...lines,
    '',
    `If ${hosts.length === 1 ? 'it is' : 'they are'} legitimate, allow ${hosts.length === 1 ? 'it' : 'them'} in \`.github/harness.yml\`: \`network: { allowed: [${hosts.map((h) => JSON.stringify(h)).join(', ')}] }\``,
  ];
}

/** One line for a log or a note: the hosts refused and their counts. */
export function blockedHostsLine(blocked: readonly BlockedHost[]): string | undefined {
  if (blocked.length === 0) return undefined;
  const shown = blocked.slice(0, 5).map((b) => `${b.host} (${b.count}×, ${b.command})`);
  return `the sandbox refused ${shown.join(', ')}${blocked.length > 5 ? `, and ${blocked.length - 5} more` : ''}; allow a legitimate host with network: { allowed: [...] } in .github/harness.yml`;
}
