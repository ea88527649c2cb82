import type { GatewayRequest, Repo } from './request.js';

/** "This API supports blobs up to 100 megabytes in size" (REST: get a blob). */
export const BLOB_MAX_BYTES = 100 * 1024 * 1024;

/** GET /repos/{owner}/{repo}/git/blobs/{file_sha}: the blob's bytes (GitHub sends them base64-encoded). */
export async function getBlob(request: GatewayRequest, repo: Repo, sha: string): Promise<Uint8Array> {
  const { data } = await request('GET /repos/{owner}/{repo}/git/blobs/{file_sha}', { ...repo, file_sha: sha });
  const bytes = Buffer.from(data.content, data.encoding === 'base64' ? 'base64' : 'utf8');
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
