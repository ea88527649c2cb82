// What a user's `npm install spec-harness` installs, as this checkout's package-lock.json resolves
// it: read by test/cli/packaging.test.ts (what the lockfile promises) and by
// scripts/check-package.ts (what an install of the packed tarball really gives).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface PackageJson {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface LockEntry {
  version?: string;
  dev?: boolean;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;
/** package-lock.json's `packages`: each installed package by its path under node_modules. */
export type LockPackages = Record<string, LockEntry>;
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: LockPackages };

/** The lockfile entry npm resolves `name` to from the package at `from` (node_modules lookup, nearest first). */
export function resolved(from: string, name: string, packages: LockPackages = lock.packages): [string, LockEntry] | undefined {
  for (let dir = from; ; dir = dir.slice(0, dir.lastIndexOf('/node_modules/')) || '') {
    const key = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (packages[key]) return [key, packages[key]];
    if (!dir) return undefined;
  }
}

/**
 * Every package a user's install brings, the dependencies transitively, as the lockfile resolves
 * them (by lockfile path). A dependency the lockfile does not hold is an error, never skipped: the
 * tree would be smaller than what users get.
 */
export function installedForUsers(
  root: Pick<PackageJson, 'dependencies' | 'optionalDependencies'> = pkg,
  packages: LockPackages = lock.packages,
): Map<string, LockEntry> {
  const found = new Map<string, LockEntry>();
  const visit = (from: string, entry: Pick<LockEntry, 'dependencies' | 'optionalDependencies' | 'peerDependencies' | 'peerDependenciesMeta'>) => {
    // npm installs a package's peers unless they are optional, and its optional dependencies where they install (the lockfile holds those this platform gets).
    const peers = Object.keys(entry.peerDependencies ?? {}).filter((name) => entry.peerDependenciesMeta?.[name]?.optional !== true);
    const optional = new Set(Object.keys(entry.optionalDependencies ?? {}));
    for (const name of [...Object.keys(entry.dependencies ?? {}), ...peers, ...optional]) {
      const hit = resolved(from, name, packages);
      if (!hit && optional.has(name)) continue;
      if (!hit) throw new Error(`package-lock.json resolves no ${name} for ${from || 'the package'}: run npm install`);
      if (found.has(hit[0])) continue;
      found.set(hit[0], hit[1]);
      visit(hit[0], hit[1]);
    }
  };
  visit('', root);
  return found;
}
