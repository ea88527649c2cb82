import { join } from 'node:path';
import { parseFrontmatter } from '../engine/core/spec/frontmatter.js';
import { WorkerError } from './worker-error.js';
import { listIfExists, readTextIfExists } from '../machine/files.js';

/**
 * The spec directory under specs_root whose SPEC.md names the spec: the inputs carry the spec
 * id, and the directory name ("SPC-002-notifications") is the author's to choose.
 */
export async function findSpecDir(root: string, specsRoot: string, spec: string): Promise<string> {
  const base = join(root, specsRoot);
  const entries = await listIfExists(base);
  if (!entries) throw new WorkerError(`no specs root ${specsRoot} in the checkout (specs_root in .github/harness.yml, or the action's specs-root input)`);
  const found: string[] = [];
  for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const text = await readTextIfExists(join(base, entry.name, 'SPEC.md'));
    if (text === undefined) continue;
    const fm = parseFrontmatter('SPEC.md', text);
    if (fm.ok && fm.frontmatter.data.id === spec) found.push(entry.name);
  }
  if (found.length === 0) throw new WorkerError(`no spec ${spec} under ${specsRoot}: no SPEC.md there has id: ${spec}`);
  if (found.length > 1) throw new WorkerError(`spec ${spec} is in more than one directory under ${specsRoot}: ${found.join(', ')}`);
  return `${specsRoot.replace(/\/+$/, '')}/${found[0]}`;
}
