/**
 * The stand-in agent CLIs that speak MCP (codex, gemini, copilot and the MCP-speaking claude),
 * bundled once per test run with the MCP SDK's client inlined. Each agent run starts its
 * stand-in as a process of its own; loaded from node_modules, the SDK's client is a few hundred
 * ES modules, about 0.35 s of CPU a start on two cores before the stand-in reads its first
 * argument. Bundled, the same code starts in a fraction of that. The stand-ins' own sources stay
 * the fixtures (test/fixtures/<cli>/…): a bundle is built from them at the run's start
 * (test/global-setup.ts), and a fixture beside it that a stand-in imports (its flag list, for
 * one) is imported from where it is, not copied.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { FIXTURES } from './paths.js';
import { sharedDir } from './temp.js';

/** Each bundled stand-in, by the fixture it is built from (relative to test/fixtures). */
export const BUNDLED_STANDINS = ['codex/codex-standin.mjs', 'gemini/gemini-standin.mjs', 'copilot/copilot-standin.mjs', 'claude/mcp-claude.mjs'] as const;
export type BundledStandIn = (typeof BUNDLED_STANDINS)[number];

const bundleName = (fixture: BundledStandIn): string => `standin-${fixture.replaceAll('/', '-')}`;

/** Relative imports stay imports of the fixture files themselves, by absolute path: they read files beside them (import.meta.url). */
const fixturesInPlace: Plugin = {
  name: 'fixtures-in-place',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) =>
      args.importer.startsWith(FIXTURES) ? { path: resolve(args.resolveDir, args.path), external: true } : undefined,
    );
  },
};

/** Bundle every stand-in into `dir` (the run's shared directory). */
export async function buildStandIns(dir: string): Promise<void> {
  for (const fixture of BUNDLED_STANDINS) {
    await build({
      entryPoints: [join(FIXTURES, fixture)],
      outfile: join(dir, bundleName(fixture)),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: `node${process.versions.node.split('.')[0]}`,
      // The SDK's dependencies are CommonJS that require Node's modules.
      banner: { js: "import { createRequire as __standinCreateRequire } from 'node:module';\nconst require = __standinCreateRequire(import.meta.url);" },
      plugins: [fixturesInPlace],
      logLevel: 'silent',
    });
  }
}

/** The script a stand-in's PATH shim runs: the run's bundle of `fixture`, or the fixture itself where no bundle was built (a file run outside the test run's setup). */
export function standInScript(fixture: BundledStandIn): string {
  const bundle = join(sharedDir(), bundleName(fixture));
  return existsSync(bundle) ? bundle : join(FIXTURES, fixture);
}
