import { cp, readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PruneJson } from '../../app/cli/commands/prune.js';
import type { CliIO } from '../../app/cli/io.js';
import { main } from '../../app/cli/main.js';
import type { KnowledgeExport } from '../../app/engine/knowledge/genes/export.js';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { FIXTURES } from '../helpers/paths.js';
import { makeRepo, git } from '../helpers/repo.js';
import { applications, geneText } from '../engine/knowledge/genes/gene-helpers.js';

const STORE = join(FIXTURES, 'knowledge', 'genes', 'store');
const SIGNATURE = 'checks:01-02/unit';

async function harness(args: string[], cwd: string, env: Record<string, string | undefined> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd, env: { PATH: process.env.PATH, ...env }, isTTY: false };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

async function repoWithStore(): Promise<string> {
  const root = await makeRepo({});
  await cp(STORE, join(root, '.harness/knowledge'), { recursive: true });
  git(root, 'add', '-A');
  git(root, 'commit', '--quiet', '-m', 'signals');
  return root;
}

async function trajectoryLines(root: string): Promise<{ type: string; entry: string }[]> {
  const dir = join(root, '.harness/knowledge/trajectory');
  const names = (await readdir(dir)).sort();
  const texts = await Promise.all(names.map((n) => readFile(join(dir, n), 'utf8')));
  return texts.flatMap((t) =>
    t
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; entry: string }),
  );
}

describe('harness prune', () => {
  it('solidifies a failure repaired in two plans into a candidate gene, once, with one trajectory line', async () => {
    const root = await repoWithStore();
    const dry = await harness(['prune', '--dry-run', '--json', '--at', '2026-03-08T12:00:00Z'], root);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    const report = JSON.parse(dry.stdout) as PruneJson;
    expect(report.solidified).toHaveLength(1);
    const gene = report.solidified[0]!;
    expect(gene).toMatchObject({ signature: SIGNATURE, name: 'Repair: the check 01-02/unit failing' });
    expect(gene.evidence).toEqual([
      '.harness/knowledge/signals/notes-service/2026-03-02/2026-03-02T09-14-00Z-repair.signal.md',
      '.harness/knowledge/signals/notes-service/2026-03-06/2026-03-06T14-02-00Z-repair.signal.md',
    ]);
    // One repair of another failure waits for a second.
    expect(report.waiting).toEqual([{ signature: 'agent:error: listen eaddrinuse: address already in use :::#', repairs: 1 }]);
    expect(report.written).toEqual([]);
    expect(git(root, 'status', '--porcelain')).toBe('');

    const run = await harness(['prune', '--at', '2026-03-08T12:00:00Z'], root);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`  new       ${gene.path}\n            candidate: Repair: the check 01-02/unit failing (2 repairs)`);
    const parsed = parseKnowledge('gene', gene.path, await readFile(join(root, '.harness/knowledge', gene.path), 'utf8'));
    expect(parsed.problems).toEqual([]);
    expect(parsed.data).toMatchObject({
      type: 'pattern',
      status: 'candidate',
      signals: [SIGNATURE],
      validation: ['npm test -- notes'],
      usage_count: 0,
      scenarios: ['SPC-001', 'SPC-002'],
      tags: ['database', 'sqlite'],
    });
    // The agent's own account of the fix is the strategy.
    expect(parsed.body).toContain('Giving each vitest worker its own SQLite file');

    const again = await harness(['prune', '--json', '--at', '2026-03-08T13:00:00Z'], root);
    expect((JSON.parse(again.stdout) as PruneJson).solidified).toEqual([]);
    expect(await trajectoryLines(root)).toEqual([expect.objectContaining({ type: 'solidify', entry: gene.path })]);
  });

  it('decays on its clock: deprecated at 7 days without an application, removed at 14, each one trajectory line, nothing before', async () => {
    const root = await makeRepo({});
    const id = 'gene-20260301-0a1b2c3d';
    const path = `genes/${id}.gene.md`;
    await mkdir(join(root, '.harness/knowledge/genes'), { recursive: true });
    await mkdir(join(root, '.harness/knowledge/trajectory'), { recursive: true });
    await writeFile(join(root, '.harness/knowledge', path), geneText({ id, status: 'active', success_rate: 1, usage_count: 2 }));
    // Applied on 1 and 2 March, verified both times.
    await writeFile(join(root, '.harness/knowledge/trajectory/2026-03-01.jsonl'), applications(path, [true, true], new Date('2026-03-01T00:00:00Z')));
    const at = async (when: string) => JSON.parse((await harness(['prune', '--json', '--at', when], root)).stdout) as PruneJson;

    expect((await at('2026-03-08T23:59:59Z')).changes).toEqual([]);
    expect((await at('2026-03-09T00:00:00Z')).changes).toEqual([
      { path, action: 'deprecate', from: 'active', to: 'deprecated', reason: 'not applied for 7 days since its last application (deprecated after 7)' },
    ]);
    expect((await at('2026-03-15T23:59:59Z')).changes).toEqual([]);
    const removal = await at('2026-03-16T00:00:00Z');
    expect(removal.changes).toEqual([
      { path, action: 'remove', from: 'deprecated', to: null, reason: 'deprecated and not applied for 14 days since its last application (removed after 14)' },
    ]);
    expect(removal.removed).toEqual([path]);
    expect(await readdir(join(root, '.harness/knowledge/genes'))).toEqual([]);
    expect((await trajectoryLines(root)).filter((l) => l.type !== 'match' && l.type !== 'use').map((l) => l.type)).toEqual(['deprecate', 'remove']);
  });

  it('does not solidify again the repairs a removed gene was made from', async () => {
    const root = await repoWithStore();
    const json = async (when: string) => JSON.parse((await harness(['prune', '--json', '--at', when], root)).stdout) as PruneJson;
    const [made] = (await json('2026-03-08T12:00:00Z')).solidified;
    expect((await json('2026-03-15T12:00:00Z')).changes.map((c) => c.action)).toEqual(['deprecate']);
    expect((await json('2026-03-22T12:00:00Z')).changes.map((c) => [c.action, c.path])).toEqual([['remove', made!.path]]);
    const after = await json('2026-03-23T12:00:00Z');
    expect(after.solidified).toEqual([]);
    expect(after.changes).toEqual([]);
  });

  it('says a broken gene file by file and line, and exits 1', async () => {
    const root = await makeRepo({});
    await mkdir(join(root, '.harness/knowledge/genes'), { recursive: true });
    await writeFile(
      join(root, '.harness/knowledge/genes/gene-20260301-0a1b2c3d.gene.md'),
      geneText({ id: 'gene-20260301-0a1b2c3d' }).replace('usage_count: 0', 'usage_count: many'),
    );
    const run = await harness(['prune'], root);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^genes\/gene-20260301-0a1b2c3d\.gene\.md:\d+: /m);
  });

  it('refuses an --at that is not a time', async () => {
    const run = await harness(['prune', '--at', 'next week'], await makeRepo({}));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--at next week: not an ISO-8601 time');
  });
});

describe('harness export', () => {
  it('writes the store as one JSON snapshot: documents whole, genes with their computed record, the trajectory per entry', async () => {
    const root = await repoWithStore();
    await harness(['prune', '--at', '2026-03-08T12:00:00Z'], root);
    const run = await harness(['export', '--out', 'snapshot.json', '--at', '2026-03-09T00:00:00Z'], root);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'harness export: wrote snapshot.json: 0 lessons, 0 skills (0 archived), 1 gene, 0 capsules, 0 spike documents, 5 signals (counted), 1 trajectory entry\n',
    );
    const snapshot = JSON.parse(await readFile(join(root, 'snapshot.json'), 'utf8')) as KnowledgeExport;
    expect(snapshot).toMatchObject({ format: 'harness-knowledge-export', version: 1, exported_at: '2026-03-09T00:00:00.000Z', project: expect.any(String) });
    expect(snapshot.signals).toBeUndefined();
    expect(snapshot.genes).toHaveLength(1);
    expect(snapshot.genes[0]).toMatchObject({
      kind: 'gene',
      frontmatter: { status: 'candidate', signals: [SIGNATURE] },
      computed: { tier: 1, metrics: { usageCount: 0, from: 'gene' } },
    });
    expect(snapshot.genes[0]!.text).toContain('## Constraints');
    expect(snapshot.trajectory.entries).toEqual([
      expect.objectContaining({ entry: snapshot.genes[0]!.path, events: { solidify: '2026-03-08T12:00:00.000Z' } }),
    ]);

    const withSignals = JSON.parse((await harness(['export', '--signals'], root)).stdout) as KnowledgeExport;
    expect(withSignals.signals!.map((s) => s.kind)).toEqual(['signal', 'signal', 'signal', 'signal', 'signal']);
  });

  it("keeps secrets and this machine's paths out of the snapshot", async () => {
    const root = await makeRepo({});
    const id = 'gene-20260301-0a1b2c3d';
    await mkdir(join(root, '.harness/knowledge/genes'), { recursive: true });
    await writeFile(
      join(root, '.harness/knowledge/genes', `${id}.gene.md`),
      geneText({ id, description: `Read the token from ${root}/secrets.txt: hunter2-token-value-123` }),
    );
    const run = await harness(['export'], root, { DEPLOY_TOKEN: 'hunter2-token-value-123' });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('hunter2-token-value-123');
    expect(run.stdout).not.toContain(root);
  });
});
