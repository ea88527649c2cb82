import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

/** Every package the CLI's modules import, following its relative imports from app/cli/main.ts (type-only imports aside). */
function cliPackages(): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm)) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else if (!spec.startsWith('node:')) packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  };
  visit(join(ROOT, 'app/cli/main.ts'));
  return packages;
}

describe('the published CLI', () => {
  it('needs only its dependencies: the App\'s server (Probot) is an optional peer, installed for the App alone', () => {
    const used = [...cliPackages()].sort();
    expect(used).toEqual(expect.arrayContaining(['@modelcontextprotocol/sdk', 'yaml', 'zod']));
    expect(used.filter((p) => !(p in pkg.dependencies))).toEqual([]);
    expect(used).not.toContain('probot');
    for (const app of ['probot', '@probot/adapter-github-actions']) {
      expect(pkg.dependencies).not.toHaveProperty(app);
      expect(pkg.peerDependenciesMeta?.[app]?.optional).toBe(true);
    }
  });
});
