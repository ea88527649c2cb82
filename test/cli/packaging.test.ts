import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { installedForUsers, pkg, resolved, ROOT } from '../../scripts/package-tree.js';

/** Every package the CLI's modules import, following its relative imports from app/cli/main.ts (type-only imports aside). */
function cliPackages(): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(
      /^\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm,
    )) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else if (!spec.startsWith('node:')) packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  };
  visit(join(ROOT, 'app/cli/main.ts'));
  return packages;
}

describe('the published CLI', () => {
  it("needs only its dependencies: the App's server (Probot) is an optional peer, installed for the App alone", () => {
    const used = [...cliPackages()].sort();
    expect(used).toEqual(expect.arrayContaining(['@modelcontextprotocol/server', 'yaml', 'zod']));
    expect(used.filter((p) => !(p in pkg.dependencies))).toEqual([]);
    expect(used).not.toContain('probot');
    for (const app of ['probot', '@probot/adapter-github-actions']) {
      expect(pkg.dependencies).not.toHaveProperty(app);
      expect(pkg.peerDependenciesMeta?.[app]?.optional).toBe(true);
    }
  });
});

describe('installing the published CLI on Node 20', () => {
  it('installs no package whose engines exclude Node 20 (npm would warn EBADENGINE)', () => {
    const excluded = [...installedForUsers()]
      .filter(([, entry]) => entry.engines?.node && !semver.satisfies('20.19.0', entry.engines.node))
      .map(([key, entry]) => `${key}@${entry.version} wants node ${entry.engines!.node}`);
    expect(excluded).toEqual([]);
  });

  it('installs no web server: the MCP server harness serves on stdio comes without the HTTP transports', () => {
    const servers = ['express', 'hono', '@hono/node-server', 'cors', 'body-parser', 'probot'];
    const installed = [...installedForUsers().keys()].map((key) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(installed.filter((name) => servers.includes(name))).toEqual([]);
    expect(installed).toContain('@modelcontextprotocol/server');
  });

  it("resolves every dependency within its own declared range: package.json's overrides do not ship, so a user would get what the range says", () => {
    const outside: string[] = [];
    for (const [key, entry] of installedForUsers()) {
      for (const [name, range] of Object.entries(entry.dependencies ?? {})) {
        const hit = resolved(key, name);
        if (hit?.[1].version && !semver.satisfies(hit[1].version, range))
          outside.push(`${key} wants ${name}@${range}, the lockfile gives ${hit[1].version} (an override)`);
      }
    }
    expect(outside).toEqual([]);
  });
});

describe("the lockfile's walk of what users install", () => {
  it('counts peers npm installs and optional dependencies where the lockfile has them, and refuses a dependency the lockfile lacks', () => {
    const packages = {
      'node_modules/a': {
        version: '1.0.0',
        dependencies: { b: '^1' },
        peerDependencies: { p: '^1', q: '^1' },
        peerDependenciesMeta: { q: { optional: true } },
        optionalDependencies: { o: '^1', gone: '^1' },
      },
      'node_modules/b': { version: '1.0.0' },
      'node_modules/p': { version: '1.0.0' },
      'node_modules/q': { version: '1.0.0' },
      'node_modules/o': { version: '1.0.0' },
    };
    expect([...installedForUsers({ dependencies: { a: '^1' } }, packages).keys()].sort()).toEqual([
      'node_modules/a',
      'node_modules/b',
      'node_modules/o',
      'node_modules/p',
    ]);
    const { 'node_modules/b': _b, ...withoutB } = packages;
    expect(() => installedForUsers({ dependencies: { a: '^1' } }, withoutB)).toThrow('package-lock.json resolves no b for node_modules/a: run npm install');
  });
});
