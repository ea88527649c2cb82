import type { GatewayRequest, Repo } from './request.js';

/** "This API supports blobs up to 100 megabytes in size" (REST: get a blob). */
export const BLOB_MAX_BYTES = 100 * 1024 * 1024;

/** GET /repos/{owner}/{repo}/git/blobs/{file_sha}: the blob's bytes (GitHub sends them base64-encoded). */
export async function getBlob(request: GatewayRequest, repo: Repo, sha: string): Promise<Uint8Array> {
  const { data } = await request('GET /repos/{owner}/{repo}/git/blobs/{file_sha}', { ...repo, file_sha: sha });
  const bytes = Buffer.from(data.content, data.encoding === 'base64' ? 'base64' : 'utf8');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Blobs one GraphQL query reads at most: a spec's plan files are a few kilobytes each, and the answer stays a few hundred. */
export const BLOBS_PER_QUERY = 50;
/** Below this many blobs, REST's one request each costs no more than a query. */
const BLOBS_WORTH_A_QUERY = 3;

interface GraphQLBlob {
  text?: string | null;
  isBinary?: boolean | null;
  isTruncated?: boolean;
  byteSize?: number;
}

/**
 * Many blobs' bytes, by sha: BLOBS_PER_QUERY to a GraphQL query (POST /graphql,
 * `repository.object(oid:)` as a Blob, each aliased), where REST reads one a request. GraphQL
 * gives a blob as UTF-8 text: a blob it calls binary or truncated, or whose text is not its
 * bytes (its `byteSize` differs from the text's UTF-8 length: not UTF-8 to begin with), is
 * read by REST (getBlob), as is every blob of a query that fails, and a few blobs at all.
 * A blob `known` holds is not asked for again.
 */
export async function getBlobs(request: GatewayRequest, repo: Repo, shas: readonly string[], known?: BlobMemory): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  // A blob never changes: one read before is the answer.
  for (const sha of new Set(shas)) {
    const bytes = known?.get(sha);
    if (bytes) out.set(sha, bytes);
  }
  const wanted = [...new Set(shas)].filter((sha) => !out.has(sha));
  if (wanted.length >= BLOBS_WORTH_A_QUERY) {
    for (let at = 0; at < wanted.length; at += BLOBS_PER_QUERY) {
      const batch = wanted.slice(at, at + BLOBS_PER_QUERY);
      const fields = batch.map((_sha, i) => `b${i}: object(oid: $o${i}) { ... on Blob { text isBinary isTruncated byteSize } }`);
      const query = `query Blobs($owner: String!, $name: String!, ${batch.map((_s, i) => `$o${i}: GitObjectID!`).join(', ')}) {\n  repository(owner: $owner, name: $name) {\n    ${fields.join('\n    ')}\n  }\n}`;
      const variables = Object.fromEntries([['owner', repo.owner], ['name', repo.repo], ...batch.map((sha, i) => [`o${i}`, sha])]);
      let found: Record<string, GraphQLBlob | null> | undefined;
      try {
        const { data } = (await request('POST /graphql', { query, variables })) as {
          data: { data?: { repository?: Record<string, GraphQLBlob | null> | null } };
        };
        found = data.data?.repository ?? undefined;
      } catch {
        found = undefined;
      }
      batch.forEach((sha, i) => {
        const blob = found?.[`b${i}`];
        if (!blob || typeof blob.text !== 'string' || blob.isBinary || blob.isTruncated) return;
        const bytes = new TextEncoder().encode(blob.text);
        if (bytes.byteLength === blob.byteSize) out.set(sha, bytes);
      });
    }
  }
  for (const sha of wanted) if (!out.has(sha)) out.set(sha, await getBlob(request, repo, sha));
  for (const sha of wanted) known?.set(sha, out.get(sha)!);
  return out;
}

/** Blobs read before, by sha (the App's memory keeps small ones): a blob named by its sha never changes. */
export interface BlobMemory {
  get(sha: string): Uint8Array | undefined;
  set(sha: string, bytes: Uint8Array): void;
}
