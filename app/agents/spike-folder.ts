import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KNOWLEDGE_ROOT } from '../engine/forge/knowledge-draft.js';
import { SPIKE_FILES } from '../engine/knowledge/spikes/spike-files.js';
import { listIfExists } from '../machine/files.js';

/**
 * The folders in a checkout that hold a spike of this name, `.harness/knowledge/spikes/<project>/<slug>`,
 * whichever project it was filed under: a spike's branch and its worker know the name, and
 * the project is the one who opened it chose.
 */
export async function findSpikeFolders(root: string, slug: string): Promise<string[]> {
  const spikes = `${KNOWLEDGE_ROOT}/spikes`;
  const found: string[] = [];
  for (const entry of (await listIfExists(join(root, spikes))) ?? []) {
    if (entry.isDirectory() && existsSync(join(root, spikes, entry.name, slug, SPIKE_FILES.hypothesis))) found.push(`${spikes}/${entry.name}/${slug}`);
  }
  return found.sort();
}
