#!/usr/bin/env node
// How the CLI runs. The published package ships dist/ and no sources: it runs the compiled
// CLI. A checkout runs the compiled CLI too when `npm run build` output is at least as new
// as every source file (compiling through tsx costs more than the command itself on a
// small spec), and the TypeScript sources through tsx otherwise, so an edit takes effect
// at once. HARNESS_FROM_SOURCE=1 always runs the sources.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../app/cli/main.ts', import.meta.url);
const compiled = new URL('../dist/app/cli/main.js', import.meta.url);

/** Is dist/ built from the sources as they are now? Every source file's time against the build's. */
function builtIsFresh() {
  let built;
  try {
    built = statSync(compiled).mtimeMs;
  } catch {
    return false;
  }
  const app = fileURLToPath(new URL('../app', import.meta.url));
  for (const entry of readdirSync(app, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    if (statSync(`${entry.parentPath}/${entry.name}`).mtimeMs > built) return false;
  }
  // A source deleted since the build leaves its output behind, harmlessly unless imported:
  // the sources that import it changed too, and are newer than the build.
  return true;
}

let main;
if (existsSync(source) && (process.env.HARNESS_FROM_SOURCE === '1' || !builtIsFresh())) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(source.href));
} else {
  ({ main } = await import(compiled.href));
}
process.exitCode = await main(process.argv.slice(2));
