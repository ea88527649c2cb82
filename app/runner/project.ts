import { basename } from 'node:path';
import { projectName } from '../engine/forge/knowledge-draft.js';
import type { RunRepo } from './repo.js';

/**
 * The project this repository's knowledge is filed under (signals, spikes): the repository's
 * name as its origin remote has it, so that a clone anywhere files under the same name as the
 * App does on GitHub; else its directory's.
 */
export async function localProject(repo: RunRepo): Promise<string> {
  const url = await repo.git().config('remote.origin.url');
  const name = url
    ?.replace(/\/+$/, '')
    .split(/[/:]/)
    .at(-1)
    ?.replace(/\.git$/, '');
  return projectName(name || basename(repo.root));
}
