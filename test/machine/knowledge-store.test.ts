import { mkdtemp, readFile, rm, symlink, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, REDACTED } from '../../app/machine/content-safety.js';
import { readKnowledgeStore, writeKnowledgeFiles } from '../../app/machine/knowledge-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'harness-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the knowledge store on this machine', () => {
  it('is empty where there is none yet', async () => {
    expect(await readKnowledgeStore(join(dir, '.harness/knowledge'))).toEqual({ files: [], unread: [] });
  });

  it('reads its Markdown documents and trajectory logs, and says what it did not read', async () => {
    const root = join(dir, 'store');
    await mkdir(join(root, 'lessons/testing'), { recursive: true });
    await mkdir(join(root, 'trajectory'), { recursive: true });
    await writeFile(join(root, 'lessons/testing/busy.lesson.md'), '---\ncategory: testing\n---\n');
    await writeFile(join(root, 'trajectory/2026-11-23.jsonl'), '{"event":"match"}\n');
    await writeFile(join(root, 'notes.txt'), 'not knowledge');
    await symlink('/etc/passwd', join(root, 'lessons/testing/escape.lesson.md'));

    const store = await readKnowledgeStore(root);

    expect(store.files.map((f) => f.path)).toEqual(['lessons/testing/busy.lesson.md', 'trajectory/2026-11-23.jsonl']);
    expect(store.unread).toEqual([{ path: 'lessons/testing/escape.lesson.md', reason: 'a symbolic link; not followed' }]);
  });

  it('reads a store larger than a planning tree may be: ten thousand signals are a year of work, not a wrong path', async () => {
    const root = join(dir, 'store');
    const day = join(root, 'signals/web/2026-11-23');
    await mkdir(day, { recursive: true });
    await Promise.all(
      Array.from({ length: 6_000 }, (_, i) => writeFile(join(day, `${String(i).padStart(5, '0')}-struggle.signal.md`), '---\ntype: struggle\n---\n')),
    );

    const store = await readKnowledgeStore(root);

    expect(store.files).toHaveLength(6_000);
    expect(store.files[0]?.path).toBe('signals/web/2026-11-23/00000-struggle.signal.md');
  });

  it('writes every file through the content-safety pass', async () => {
    const root = join(dir, 'store');
    const token = `ghp_${'Zq8'.repeat(12)}`;

    const written = await writeKnowledgeFiles(
      root,
      [{ path: 'signals/app/2026-11-23/20261123T100000Z-struggle.signal.md', text: `push failed with ${token} in ${dir}/repo/src/a.ts\n` }],
      { roots: [join(dir, 'repo')] },
    );

    expect(await readFile(join(root, 'signals/app/2026-11-23/20261123T100000Z-struggle.signal.md'), 'utf8')).toBe(
      `push failed with ${REDACTED} in ${PROJECT_ROOT}/src/a.ts\n`,
    );
    expect(written).toEqual([
      { path: 'signals/app/2026-11-23/20261123T100000Z-struggle.signal.md', redactions: [{ rule: '@secretlint/secretlint-rule-github', line: 1 }] },
    ]);
  });

  it('refuses a path that leaves the store, before writing anything', async () => {
    const root = join(dir, 'store');
    await expect(
      writeKnowledgeFiles(
        root,
        [
          { path: 'lessons/a.lesson.md', text: 'a' },
          { path: '../outside.md', text: 'b' },
        ],
        {},
      ),
    ).rejects.toThrow(/outside/);
    expect(await readKnowledgeStore(root)).toEqual({ files: [], unread: [] });
  });
});
