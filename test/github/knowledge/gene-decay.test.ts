import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scheduledDecay } from '../../../app/github/knowledge/scheduled-decay.js';
import { parseKnowledge } from '../../../app/engine/knowledge/documents/parse.js';
import { FakeGitHub } from '../../helpers/github-repo.js';
import { testOctokit } from '../../helpers/octokit.js';
import { FIXTURES } from '../../helpers/paths.js';
import { applications, geneText } from '../../engine/knowledge/genes/gene-helpers.js';

/**
 * Gene decay on a schedule (templates/workflows/harness-decay.yml runs the app action with
 * `command: decay`), on the fake GitHub: every change is a PR, the lifecycle lines collect on
 * one PR, and publishable knowledge is proposed to the shared repository by a PR there.
 */

const R = '/repos/Codertocat/Hello-World';
const BASE = 'ba5e000000000000000000000000000000000003';
const STORE = join(FIXTURES, 'knowledge', 'genes', 'store');
const ACTIVE = 'gene-20260301-0a1b2c3d';
const OLD = 'gene-20260220-0e0e0e0e';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

function repository(config: string, extra: Record<string, string> = {}): FakeGitHub {
  const files: Record<string, string> = { 'README.md': '# Hello\n', '.github/harness.yml': config, ...extra };
  for (const entry of readdirSync(STORE, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      files[`.harness/knowledge/${relative(STORE, join(entry.parentPath, entry.name))}`] = readFileSync(join(entry.parentPath, entry.name), 'utf8');
  }
  // An active gene applied on 1 and 2 March; a deprecated one last applied on 1 March.
  files[`.harness/knowledge/genes/${ACTIVE}.gene.md`] = geneText({ id: ACTIVE, status: 'active', success_rate: 1, usage_count: 2, publishable: true });
  files[`.harness/knowledge/genes/${OLD}.gene.md`] = geneText({
    id: OLD,
    status: 'deprecated',
    created: '2026-02-20T00:00:00Z',
    updated: '2026-02-20T00:00:00Z',
    last_used: '2026-03-01T00:00:00Z',
  });
  files['.harness/knowledge/trajectory/2026-03-01.jsonl'] = applications(`genes/${ACTIVE}.gene.md`, [true, true], new Date('2026-03-01T00:00:00Z'));
  const github = new FakeGitHub();
  github.commit(BASE, files);
  github.branches.set('master', BASE);
  github.install({ ownOnly: true });
  return github;
}

function decayAt(when: string, warnings: string[] = []) {
  return scheduledDecay({
    request: testOctokit().request,
    repo: { owner: 'Codertocat', repo: 'Hello-World' },
    base: 'master',
    env: {},
    cwd: '/home/runner/work/Hello-World',
    log: { info: () => undefined, warn: (m) => warnings.push(m) },
    now: new Date(when),
  });
}

const writesOf = (github: FakeGitHub, from = 0) => github.writes(from).map((w) => `${w.method} ${w.url}`);

describe('scheduled gene decay', () => {
  it('proposes the candidate gene, then the deprecation at 7 days and the removal at 14, each its own PR, and nothing before', async () => {
    const github = repository('knowledge:\n  genes: { solidify_after: 2 }\n');

    const first = await decayAt('2026-03-08T23:59:59Z');
    expect(github.log().slice(0, 3)).toEqual([
      `GET ${R}/contents/.github?ref=master`,
      expect.stringMatching(new RegExp(`^GET ${R}/git/blobs/`)),
      `GET ${R}/contents/.harness/knowledge?ref=master`,
    ]);
    expect(first.decay.proposed.map((p) => [p.action, p.path, p.pr?.state])).toEqual([
      ['solidify', expect.stringMatching(/^genes\/gene-20260302-[0-9a-f]{8}\.gene\.md$/), 'opened'],
    ]);
    const solidifyPr = github.pullRequests[0]!;
    expect(solidifyPr).toMatchObject({
      head: expect.stringMatching(/^harness\/knowledge\/gene\/gene-20260302-[0-9a-f]{8}$/),
      base: 'master',
      labels: ['harness:knowledge', 'gene'],
    });
    expect(solidifyPr.body.split('\n')[0]).toBe(`<!-- harness:gene solidify ${first.decay.proposed[0]!.path} -->`);
    // The lifecycle line collects on its own PR.
    const lifecycle = github.pullRequests[1]!;
    expect(lifecycle).toMatchObject({ head: 'harness/knowledge/gene/lifecycle', title: 'harness trajectory: gene lifecycle' });
    const line = JSON.parse(github.fileAt(lifecycle.head, '.harness/knowledge/trajectory/2026-03-08.jsonl')!.trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ type: 'solidify', entry: first.decay.proposed[0]!.path, pr: solidifyPr.number, to: 'candidate' });

    // The same day again: nothing new.
    const before = github.writes().length;
    const again = await decayAt('2026-03-08T23:59:59Z');
    expect(again.decay.proposed.map((p) => p.pr?.state)).toEqual(['open']);
    expect(github.writes().length).toBe(before);

    // 7 days after the active gene's last application: its deprecation, with exactly these writes.
    const from = github.requests.length;
    const week = await decayAt('2026-03-09T00:00:00Z');
    expect(week.decay.proposed.map((p) => [p.action, p.path, p.pr?.state])).toEqual([
      ['solidify', first.decay.proposed[0]!.path, 'open'],
      ['deprecate', `genes/${ACTIVE}.gene.md`, 'opened'],
    ]);
    const deprecation = github.pullRequests.find((p) => p.head.startsWith(`harness/knowledge/gene/${ACTIVE}-deprecate-`))!;
    expect(writesOf(github, from)).toEqual([
      `POST ${R}/git/trees`,
      `POST ${R}/git/commits`,
      `POST ${R}/git/refs`,
      `POST ${R}/pulls`,
      `POST ${R}/issues/${deprecation.number}/labels`,
      `POST ${R}/git/trees`,
      `POST ${R}/git/commits`,
      `PATCH ${R}/git/refs/heads/harness/knowledge/gene/lifecycle`,
    ]);
    expect(github.writes(from)[3]!.body).toMatchObject({ head: deprecation.head, base: 'master', title: `harness gene: deprecate Gene ${ACTIVE}` });
    const changed = parseKnowledge('gene', `genes/${ACTIVE}.gene.md`, github.fileAt(deprecation.head, `.harness/knowledge/genes/${ACTIVE}.gene.md`)!);
    expect(changed.data).toMatchObject({ status: 'deprecated', updated: '2026-03-09T00:00:00.000Z', usage_count: 2, success_rate: 1 });

    // The deprecated gene: last applied 1 March, removed from the 15th.
    expect((await decayAt('2026-03-14T23:59:59Z')).decay.proposed.map((p) => p.action)).toEqual(['solidify', 'deprecate']);
    const to = github.requests.length;
    const fortnight = await decayAt('2026-03-15T00:00:00Z');
    expect(fortnight.decay.proposed.map((p) => [p.action, p.pr?.state])).toEqual([
      ['solidify', 'open'],
      ['remove', 'opened'],
      ['deprecate', 'open'],
    ]);
    const removal = github.pullRequests.find((p) => p.head.startsWith(`harness/knowledge/gene/${OLD}-remove-`))!;
    const tree = github.writes(to).find((w) => w.url === `${R}/git/trees`)!.body as { tree: unknown[] };
    expect(tree.tree).toEqual([{ path: `.harness/knowledge/genes/${OLD}.gene.md`, mode: '100644', type: 'blob', sha: null }]);
    expect(github.fileAt(removal.head, `.harness/knowledge/genes/${OLD}.gene.md`)).toBeUndefined();
    expect(fortnight.summary).toContain(
      `- remove \`genes/${OLD}.gene.md\`: deprecated and not applied for 14 days since its last application (removed after 14) (#${removal.number}, opened)`,
    );
  });

  it('does not propose again a change whose PR a person closed', async () => {
    const github = repository('{}\n');
    await decayAt('2026-03-09T00:00:00Z');
    const deprecation = github.pullRequests.find((p) => p.head.startsWith(`harness/knowledge/gene/${ACTIVE}-deprecate-`))!;
    github.close(deprecation.number);
    const before = github.writes().length;
    const next = await decayAt('2026-03-10T00:00:00Z');
    expect(next.decay.proposed.find((p) => p.action === 'deprecate')!.pr!.state).toBe('closed');
    expect(github.writes().length).toBe(before);
  });

  it('proposes a publishable active gene to the shared repository named in knowledge.shared, by a PR there, once', async () => {
    const github = repository('knowledge:\n  shared: acme/shared\n');
    const shared = new FakeGitHub('acme', 'shared');
    shared.commit(BASE, { 'README.md': '# Shared knowledge\n', '.harness/knowledge/genes/.gitkeep': '' });
    shared.branches.set('main', BASE);
    shared.defaultBranch = 'main';
    shared.install({ ownOnly: true });

    const run = await decayAt('2026-03-03T00:00:00Z');
    expect(run.federation!.published.map((p) => [p.kind, p.path, p.pr?.state])).toEqual([['gene', `genes/${ACTIVE}.gene.md`, 'opened']]);
    expect(shared.log()).toEqual([
      'GET /repos/acme/shared',
      'GET /repos/acme/shared/contents/.harness/knowledge?ref=main',
      expect.stringMatching(/^GET \/repos\/acme\/shared\/git\/trees\/[0-9a-f]{40}\?recursive=1$/),
      expect.stringMatching(
        /^GET \/repos\/acme\/shared\/pulls\?head=acme:harness\/knowledge\/gene\/Hello-World\/gene-20260301-0a1b2c3d-[0-9a-f]{8}&state=all&per_page=100$/,
      ),
      'GET /repos/acme/shared/git/ref/heads/main',
      `GET /repos/acme/shared/git/commits/${BASE}`,
      'POST /repos/acme/shared/git/trees',
      'POST /repos/acme/shared/git/commits',
      'POST /repos/acme/shared/git/refs',
      'POST /repos/acme/shared/pulls',
      `POST /repos/acme/shared/issues/${shared.pullRequests[0]!.number}/labels`,
    ]);
    const pr = shared.pullRequests[0]!;
    expect(pr).toMatchObject({ base: 'main', title: `harness: publish gene ${ACTIVE} from Hello-World`, labels: ['harness:knowledge', 'gene'] });
    expect(shared.fileAt(pr.head, `.harness/knowledge/genes/${ACTIVE}.gene.md`)).toBe(github.fileAt('master', `.harness/knowledge/genes/${ACTIVE}.gene.md`));
    // The project's trajectory records the publication.
    const lines = github
      .fileAt('harness/knowledge/gene/lifecycle', '.harness/knowledge/trajectory/2026-03-03.jsonl')!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; entry: string; pr?: number });
    expect(lines.filter((l) => l.type === 'publish')).toEqual([expect.objectContaining({ entry: `genes/${ACTIVE}.gene.md`, pr: pr.number })]);

    const before = shared.writes().length;
    await decayAt('2026-03-03T06:00:00Z');
    expect(shared.writes().length).toBe(before);
  });
});
