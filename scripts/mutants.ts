// `npm run mutants [-- --only <text>]`: each targeted mutation of scripts/mutants/list.ts applied
// in turn, its tests run (vitest, the files named), and the file put back whatever happens. A
// mutant the tests do not catch (they pass) survives: listed, and the exit code is 1. Not part
// of CI (each mutant costs a test run); run it when a claim's tests change.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MUTANTS, type Mutant } from './mutants/list.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const chosen = MUTANTS.filter((m) => only === undefined || m.claim.includes(only) || m.file.includes(only));

/** Applied, the tests run, the file restored: 'killed' when they failed, 'survived' when they passed. */
function tryMutant(m: Mutant): 'killed' | 'survived' {
  const path = join(ROOT, m.file);
  const original = readFileSync(path, 'utf8');
  const at = original.indexOf(m.from);
  if (at < 0 || original.indexOf(m.from, at + 1) >= 0)
    throw new Error(`${m.file}: the mutation's text must occur exactly once (found ${at < 0 ? 'none' : 'more than one'}); update scripts/mutants/list.ts`);
  const restore = () => writeFileSync(path, original);
  process.once('SIGINT', restore);
  try {
    writeFileSync(path, original.slice(0, at) + m.to + original.slice(at + m.from.length));
    const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...m.tests], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    return run.status === 0 ? 'survived' : 'killed';
  } finally {
    restore();
    process.removeListener('SIGINT', restore);
  }
}

const survived: Mutant[] = [];
for (const m of chosen) {
  const outcome = tryMutant(m);
  console.log(`${outcome === 'killed' ? 'killed  ' : 'SURVIVED'} ${m.claim} (${m.file})`);
  if (outcome === 'survived') survived.push(m);
}
console.log(`\n${chosen.length - survived.length} of ${chosen.length} mutants killed`);
if (survived.length > 0) process.exit(1);
