#!/usr/bin/env node
// A checkout runs the TypeScript sources through tsx; the published package (which ships
// dist/ and no sources) runs the compiled CLI.
import { existsSync } from 'node:fs';

const source = new URL('../app/cli/main.ts', import.meta.url);
let main;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(source.href));
} else {
  ({ main } = await import(new URL('../dist/app/cli/main.js', import.meta.url).href));
}
process.exitCode = await main(process.argv.slice(2));
