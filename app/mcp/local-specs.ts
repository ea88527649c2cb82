import { join, relative, resolve } from 'node:path';
import { CONFIG_PATH, parseConfig } from '../engine/core/config/parse.js';
import { DEFAULT_CONFIG } from '../engine/core/config/schema.js';
import { specIdFromDir } from '../engine/importers/gsd/spec-id.js';
import { isDirectory, listIfExists, readTextIfExists } from '../machine/files.js';
import { McpToolError } from './tool-result.js';

/** A spec of the repository: its directory as the CLI takes it (relative to the root, `/`-separated) and its id. */
export interface LocalSpec {
  dir: string;
  id: string;
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---/;
const ID_LINE = /^id:\s*["']?([^"'\s#]+)/m;

/**
 * The specs of one repository, found where the App looks for them: each directory under the
 * configured `specs_root` (.github/harness.yml, default docs/specs) that holds a SPEC.md.
 */
export class LocalSpecs {
  constructor(readonly root: string) {}

  async specsRoot(): Promise<string> {
    const text = await readTextIfExists(join(this.root, CONFIG_PATH));
    // A configuration with errors is reported by harness_validate; the listing still finds the specs at the default place.
    const config = text === undefined ? DEFAULT_CONFIG : (parseConfig(text).config ?? DEFAULT_CONFIG);
    return config.specs_root.replace(/\/+$/, '');
  }

  async list(): Promise<LocalSpec[]> {
    const root = await this.specsRoot();
    const entries = (await listIfExists(join(this.root, root))) ?? [];
    const specs: LocalSpec[] = [];
    for (const entry of entries.filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
      const dir = `${root}/${entry.name}`;
      const id = await this.idOf(dir);
      if (id !== undefined) specs.push({ dir, id });
    }
    return specs;
  }

  /** The spec `named` means: an id (`SPC-001`) or a directory, relative to the repository root. */
  async resolve(named: string): Promise<LocalSpec> {
    const wanted = named.trim().replace(/\\/g, '/').replace(/\/+$/, '');
    const specs = await this.list();
    const found = specs.find((s) => s.id === wanted || s.dir === wanted || s.dir === wanted.replace(/^\.\//, ''));
    if (found) return found;
    // A spec outside specs_root is still one when its directory is given.
    const dir = relative(this.root, resolve(this.root, wanted)).split('\\').join('/');
    if (!dir.startsWith('..') && (await isDirectory(join(this.root, dir)))) {
      const id = await this.idOf(dir);
      if (id !== undefined) return { dir, id };
    }
    const known = specs.length
      ? `the specs here are ${specs.map((s) => `${s.id} (${s.dir})`).join(', ')}`
      : `there is no spec under ${await this.specsRoot()}/ (a directory holding SPEC.md)`;
    throw new McpToolError(`no spec "${named}" in ${this.root}: ${known}; name one by its id or its directory`);
  }

  private async idOf(dir: string): Promise<string | undefined> {
    const text = await readTextIfExists(join(this.root, dir, 'SPEC.md'));
    if (text === undefined) return undefined;
    const frontmatter = FRONTMATTER.exec(text)?.[1] ?? '';
    return ID_LINE.exec(frontmatter)?.[1] ?? specIdFromDir(dir) ?? dir;
  }
}
