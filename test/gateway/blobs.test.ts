import nock from 'nock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BLOBS_PER_QUERY } from '../../app/gateway/blobs.js';
import { gateway, type Gateway } from '../../app/gateway/gateway.js';
import { FakeGitHub } from '../helpers/github-repo.js';
import { testOctokit } from '../helpers/octokit.js';

/**
 * Many blobs read at once (app/gateway/blobs.ts, getBlobs): fifty to a GraphQL query,
 * validated against GitHub's schema by the fake, where REST reads one a request; REST for a
 * few, and for whatever GraphQL cannot give byte for byte.
 */

const R = '/repos/Codertocat/Hello-World';
const COMMIT = 'c0ffee0000000000000000000000000000000000';
let github: FakeGitHub;
let gw: Gateway;

beforeEach(() => {
  nock.disableNetConnect();
  github = new FakeGitHub();
  github.install();
  gw = gateway(testOctokit().request, { owner: github.owner, repo: github.repo }, 'app');
});
afterEach(() => {
  nock.cleanAll();
});

/** Commit `files` and learn their blobs' shas through the tree (as readSpecFiles does), then forget that read. */
async function blobsOf(files: Record<string, string | Uint8Array>): Promise<string[]> {
  github.commit(COMMIT, files);
  const tree = await gw.tree(github.treeAt(COMMIT, '')!, true);
  github.requests.length = 0;
  github.statuses.length = 0;
  const sha = new Map(tree.entries.map((e) => [e.path, e.sha]));
  return Object.keys(files).map((p) => sha.get(p)!);
}

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

describe('reading many blobs', () => {
  it('reads five plan files in one GraphQL query, byte for byte', async () => {
    const files = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`plans/01-0${i + 1}-PLAN.md`, `# Plan ${i + 1}\n\nDéjà vu — ✓\n`]));
    const shas = await blobsOf(files);

    const read = await gw.blobs(shas);

    expect(github.log()).toEqual(['POST /graphql']);
    expect(github.statuses).toEqual([200]);
    expect((github.requests[0]!.body as { query: string }).query).toMatch(/^query Blobs\(\$owner: String!, \$name: String!, \$o0: GitObjectID!/);
    expect(Object.keys(files).map((_p, i) => text(read.get(shas[i]!)))).toEqual(Object.values(files));
  });

  it(`takes a query per ${BLOBS_PER_QUERY}`, async () => {
    const files = Object.fromEntries(Array.from({ length: BLOBS_PER_QUERY * 2 + 1 }, (_, i) => [`plans/p${i}.md`, `plan ${i}\n`]));
    const shas = await blobsOf(files);

    const read = await gw.blobs(shas);

    expect(github.log()).toEqual(['POST /graphql', 'POST /graphql', 'POST /graphql']);
    expect(read.size).toBe(BLOBS_PER_QUERY * 2 + 1);
    expect(text(read.get(shas.at(-1)!))).toBe(`plan ${BLOBS_PER_QUERY * 2}\n`);
  });

  it('reads a binary blob, and text that is not UTF-8, by REST: GraphQL would not give their bytes', async () => {
    const latin1 = Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café\n" in Latin-1
    const binary = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]);
    const shas = await blobsOf({ 'a.md': 'a\n', 'b.md': 'b\n', 'latin1.md': latin1, 'image.png': binary });

    const read = await gw.blobs(shas);

    expect(github.log()).toEqual(['POST /graphql', `GET ${R}/git/blobs/${shas[2]}`, `GET ${R}/git/blobs/${shas[3]}`]);
    expect([...read.get(shas[2]!)!]).toEqual([...latin1]);
    expect([...read.get(shas[3]!)!]).toEqual([...binary]);
    expect(text(read.get(shas[0]!))).toBe('a\n');
  });

  it('reads two blobs by REST: a query would save nothing', async () => {
    const shas = await blobsOf({ 'SPEC.md': 'spec\n', 'ROADMAP.md': 'roadmap\n' });

    await gw.blobs(shas);

    expect(github.log()).toEqual([`GET ${R}/git/blobs/${shas[0]}`, `GET ${R}/git/blobs/${shas[1]}`]);
  });

  it('reads them all by REST when the query fails', async () => {
    const shas = await blobsOf({ 'a.md': 'a\n', 'b.md': 'b\n', 'c.md': 'c\n' });
    github.fail = (method, url) => (method === 'POST' && url === '/graphql' ? 502 : undefined);

    const read = await gw.blobs(shas);

    expect(github.log().filter((l) => l !== 'POST /graphql')).toEqual(shas.map((s) => `GET ${R}/git/blobs/${s}`));
    expect(text(read.get(shas[2]!))).toBe('c\n');
  });
});
