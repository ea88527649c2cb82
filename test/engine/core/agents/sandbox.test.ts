import { describe, expect, it } from 'vitest';
import {
  blockedHostsLine,
  blockedHostsMarkdown,
  ECOSYSTEMS,
  engineHosts,
  expandHosts,
  githubHosts,
  networkEntryProblem,
} from '../../../../app/engine/core/agents/sandbox.js';
import { parseConfig } from '../../../../app/engine/core/config/parse.js';

describe('the network policy of the agents sandbox', () => {
  it('takes host names, wildcards under a domain, ports, IPv4 addresses and the ecosystem sets', () => {
    for (const ok of ['api.example.com', '*.corp.dev', 'registry.npmjs.org:443', '10.0.0.5:5432', 'node', 'PYTHON', 'Api.Example.com'])
      expect(networkEntryProblem(ok), ok).toBeUndefined();
  });

  it('refuses what would open everything or cannot be a host, saying what to write', () => {
    expect(networkEntryProblem('*')).toBe('"*" would allow every host: name the hosts, or a wildcard under a domain ("*.example.com")');
    expect(networkEntryProblem('*example.com')).toContain('would allow every host');
    expect(networkEntryProblem('npm')).toBe(
      `"npm" is no ecosystem set (${Object.keys(ECOSYSTEMS).join(', ')}) and no full host name: write it with its domain`,
    );
    expect(networkEntryProblem('https://api.example.com/v1')).toContain('is neither a host');
    expect(networkEntryProblem('300.1.1.1')).toBe('"300.1.1.1" is no IPv4 address');
    expect(networkEntryProblem(`${'a'.repeat(64)}.com`)).toContain('is neither a host');
  });

  it('expands each set into its hosts, each host once, lowercased', () => {
    expect(expandHosts(['node', 'registry.npmjs.org', 'API.example.com'])).toEqual([...ECOSYSTEMS.node!, 'api.example.com']);
  });

  it("gives each engine its API's hosts, and the host its base-URL variable names (a gateway, a fake API)", () => {
    expect(engineHosts('claude', {})).toEqual(['api.anthropic.com', 'statsig.anthropic.com']);
    expect(engineHosts('claude', { ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080/v1' })).toEqual(['api.anthropic.com', 'statsig.anthropic.com', '127.0.0.1:8080']);
    expect(engineHosts('codex', { OPENAI_BASE_URL: 'https://llm.corp.dev' })).toContain('llm.corp.dev');
    expect(engineHosts('gemini', { GOOGLE_GEMINI_BASE_URL: 'not a url' })).toEqual([
      'generativelanguage.googleapis.com',
      'cloudcode-pa.googleapis.com',
      'oauth2.googleapis.com',
    ]);
    expect(engineHosts('command', { ANTHROPIC_BASE_URL: 'http://x.dev' })).toEqual([]);
  });

  it('allows the configured GitHub server: github.com and its hosts, or a GitHub Enterprise Server and its subdomains', () => {
    expect(githubHosts({})).toEqual(['github.com', 'api.github.com', '*.githubusercontent.com', 'codeload.github.com', 'uploads.github.com']);
    expect(githubHosts({ GITHUB_SERVER_URL: 'https://ghe.corp.dev', GITHUB_API_URL: 'https://ghe.corp.dev/api/v3' })).toEqual([
      'ghe.corp.dev',
      '*.ghe.corp.dev',
    ]);
  });

  it('says what was refused, how often, who asked, and the line that allows it', () => {
    const blocked = [
      { host: 'registry.npmjs.org:443', count: 3, command: 'claude' },
      { host: 'api.example.com', count: 1, command: 'claude' },
    ];
    expect(blockedHostsMarkdown(blocked)).toEqual([
      'The sandbox refused 2 hosts the agent asked for:',
      '- `registry.npmjs.org:443`: refused 3 times (asked by `claude`)',
      '- `api.example.com`: refused 1 time (asked by `claude`)',
      '',
      'If they are legitimate, allow them in `.github/harness.yml`: `network: { allowed: ["registry.npmjs.org", "api.example.com"] }`',
    ]);
    expect(blockedHostsMarkdown([])).toEqual([]);
    expect(blockedHostsLine(blocked)).toBe(
      'the sandbox refused registry.npmjs.org:443 (3×, claude), api.example.com (1×, claude); allow a legitimate host with network: { allowed: [...] } in .github/harness.yml',
    );
  });

  it('.github/harness.yml: a bad entry is a problem naming the file, the line and the fix', () => {
    const { problems } = parseConfig('slots: 2\nnetwork:\n  allowed: [node, "*"]\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: '.github/harness.yml', line: 3 });
    expect(problems[0]!.message).toContain('"*" would allow every host');
    const { config } = parseConfig('network:\n  allowed: [node, "*.corp.dev"]\n  blocked: [evil.corp.dev]\n');
    expect(config?.network).toEqual({ allowed: ['node', '*.corp.dev'], blocked: ['evil.corp.dev'] });
  });
});
