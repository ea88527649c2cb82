import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** From app/, dist/app/ or a bundled action's dist/: a few directories at most. */
const LEVELS_UP = 6;

/**
 * The package's `templates/` directory, found by walking up from this module. The same walk
 * works from the sources, from dist/ and from a bundled action (a workflow that uses the
 * action gets the whole repository, templates/ included), so the templates are never copied
 * into code and never drift from the files people read.
 */
function templatesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i <= LEVELS_UP; i++) {
    if (existsSync(join(dir, 'templates', 'PLAN.md'))) return join(dir, 'templates');
    dir = dirname(dir);
  }
  throw new Error('harness templates/ directory not found above the app; it ships with the package');
}

const cache = new Map<string, Promise<string>>();

/** A template's text by its path under templates/, such as `SUMMARY.md` or `spike/HYPOTHESIS.md`. */
export function loadTemplate(name: string): Promise<string> {
  let text = cache.get(name);
  if (!text) {
    text = readFile(join(templatesDir(), name), 'utf8');
    cache.set(name, text);
  }
  return text;
}
