import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';

/**
 * When a directory given as a spec is a GSD project's planning directory (or the project
 * holding one), the advice a newcomer needs: `harness import` it. Undefined otherwise,
 * including for any directory with a SPEC.md, which is a spec whatever else it holds.
 */
export function gsdImportHint(dir: string, cwd: string, shown: string): string | undefined {
  const full = resolve(cwd, dir);
  if (existsSync(join(full, 'SPEC.md'))) return undefined;
  const planning = basename(full) === '.planning' ? full : existsSync(join(full, '.planning')) ? join(full, '.planning') : undefined;
  const looksGsd = planning !== undefined || (existsSync(join(full, 'phases')) && existsSync(join(full, 'ROADMAP.md')));
  if (!looksGsd) return undefined;
  const what =
    planning !== undefined && planning !== full
      ? 'holds a GSD planning directory (.planning/), not a harness spec'
      : 'is a GSD planning directory, not a harness spec';
  return `${shown} ${what}; convert it first: harness import ${shown} docs/specs/SPC-001-<name> (then harness validate docs/specs/SPC-001-<name>)`;
}
