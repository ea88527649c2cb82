import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_BYTES, MAX_PLAN_BYTES } from '../../app/engine/core/spec/limits.js';
import { readCapped, readSpecFiles } from '../../app/machine/spec-files.js';

// readSpecFiles reads a spec directory as the engine sees it: the paths it gives, the bytes
// (cut one byte past a limit) and the true size of a file over it, links reported unread.
describe('readSpecFiles', () => {
  let dir: string;
  const big = 'x'.repeat(MAX_PLAN_BYTES + 5_000);
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'harness-spec-files-'));
    await mkdir(join(dir, 'planning/plans/01-a/deeper'), { recursive: true });
    await mkdir(join(dir, 'planning/plans/02-b'), { recursive: true });
    await writeFile(join(dir, 'SPEC.md'), 'spec');
    await writeFile(join(dir, 'ROADMAP.md'), 'roadmap');
    await writeFile(join(dir, 'planning/plans/01-a/01-01-PLAN.md'), 'one');
    await writeFile(join(dir, 'planning/plans/01-a/deeper/01-02-PLAN.md'), 'two');
    await writeFile(join(dir, 'planning/plans/01-a/notes.md'), 'not a plan');
    await writeFile(join(dir, 'planning/plans/02-b/02-01-PLAN.md'), big);
    await writeFile(join(dir, 'planning/plans/02-b/02-02-PLAN.md'), '');
    await symlink('/etc/passwd', join(dir, 'planning/plans/02-b/02-03-PLAN.md'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  const text = (bytes: Uint8Array) => Buffer.from(bytes).toString();

  it('gives every plan by its spec-relative path, the documents first and links reported, however the directory is named', async () => {
    for (const given of [dir, `${dir}/`, relative(process.cwd(), dir), `${dir}/../${dir.split('/').pop()}`]) {
      const files = await readSpecFiles(given);
      const byPath = new Map(files.map((f) => [f.path, f]));
      expect(files.map((f) => f.path).sort()).toEqual(
        [
          'ROADMAP.md',
          'SPEC.md',
          'planning/plans/01-a/01-01-PLAN.md',
          'planning/plans/01-a/deeper/01-02-PLAN.md',
          'planning/plans/02-b/02-01-PLAN.md',
          'planning/plans/02-b/02-02-PLAN.md',
          'planning/plans/02-b/02-03-PLAN.md',
        ].sort(),
      );
      expect(files[0]!.link).toBe('/etc/passwd');
      expect(files.slice(1, 3).map((f) => f.path)).toEqual(['SPEC.md', 'ROADMAP.md']);
      expect(text(byPath.get('SPEC.md')!.bytes)).toBe('spec');
      expect(text(byPath.get('planning/plans/01-a/deeper/01-02-PLAN.md')!.bytes)).toBe('two');
      expect(byPath.get('planning/plans/02-b/02-02-PLAN.md')!).toMatchObject({ size: 0 });
      const over = byPath.get('planning/plans/02-b/02-01-PLAN.md')!;
      expect([over.bytes.length, over.size]).toEqual([MAX_PLAN_BYTES + 1, big.length]);
      expect(text(over.bytes)).toBe(big.slice(0, MAX_PLAN_BYTES + 1));
    }
  });

  it('readCapped: the whole file under the limit, one byte past it over the limit, with the true size', async () => {
    const path = join(dir, 'doc.md');
    for (const length of [0, 1, 70_000, MAX_DOCUMENT_BYTES, MAX_DOCUMENT_BYTES + 1, MAX_DOCUMENT_BYTES + 2, 3 * MAX_DOCUMENT_BYTES]) {
      const content = Buffer.alloc(length, 'ab');
      await writeFile(path, content);
      const file = readCapped(path, 'doc.md', MAX_DOCUMENT_BYTES);
      expect(file.size).toBe(length);
      expect(Buffer.from(file.bytes).equals(content.subarray(0, Math.min(length, MAX_DOCUMENT_BYTES + 1)))).toBe(true);
    }
    // A small limit after a large one: the bytes are the file's own, not what an earlier read left.
    await writeFile(path, 'short');
    expect(text(readCapped(path, 'doc.md', 3).bytes)).toBe('shor');
    expect(readCapped(path, 'doc.md', 3).size).toBe(5);
    expect(text(readCapped(path, 'doc.md', 100).bytes)).toBe('short');
  });
});
