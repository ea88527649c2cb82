import { HarnessError } from '../engine/core/error.js';
import type { GatewayRequest } from './request.js';

/**
 * Who the token harness holds belongs to: the App's bot (`<slug>[bot]`) for an installation
 * token. REST's GET /app wants the App's JWT, which a token alone (Probot's adapter for
 * Actions, the worker) does not have; GraphQL's `viewer` answers for any token in one request.
 * Markers harness writes (a checkpoint question, a sticky status comment) are trusted only
 * when this login wrote them: anyone may type a marker.
 */
export async function viewerLogin(request: GatewayRequest): Promise<string> {
  const { data } = (await request('POST /graphql', { query: 'query { viewer { login } }' })) as { data: { data?: { viewer?: { login?: string } } } };
  const login = data.data?.viewer?.login;
  if (typeof login !== 'string' || login === '') {
    throw new HarnessError("POST /graphql did not say who the token belongs to (viewer.login): harness cannot tell its own comments from others' without it");
  }
  return login;
}
