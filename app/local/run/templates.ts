import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's templates/ directory, found from this module whether run from sources or dist/. */
function templatesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'templates', 'PLAN.md')) && existsSync(join(dir, 'package.json'))) return join(dir, 'templates');
    dir = dirname(dir);
  }
  throw new Error('harness templates/ directory not found next to the package');
}

const cache = new Map<string, Promise<string>>();

/** A template's text, e.g. loadTemplate('SUMMARY.md'). */
export function loadTemplate(name: string): Promise<string> {
  let text = cache.get(name);
  if (!text) {
    text = readFile(join(templatesDir(), name), 'utf8');
    cache.set(name, text);
  }
  return text;
}
