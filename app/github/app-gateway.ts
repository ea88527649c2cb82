import type { Context } from 'probot';
import { conditionalRequests, type HookedOctokit } from '../gateway/conditional.js';
import { gateway, type Gateway } from '../gateway/gateway.js';
import type { LimitWait } from '../gateway/limit-model.js';
import { memoryOf } from './app-memory.js';
import { labelIds as newLabelIds } from '../gateway/node-ids.js';

/** Blobs the App's memory keeps (app-memory.ts, blobs) are this small at most (a plan file, not a build artefact): 80 MB at the very most. */
const REMEMBERED_BLOB_MAX_BYTES = 16 * 1024;

const gateways = new WeakMap<Context, Gateway>();

function scopeOf(context: Context): string {
  const installation = (context.payload as { installation?: { id?: number } }).installation?.id;
  return installation === undefined ? 'token' : `installation:${installation}`;
}

/** The wait on a GitHub limit the delivery's installation is in now, if any (its status comment says so). */
export function limitWaitFor(context: Context): LimitWait | undefined {
  return memoryOf(context).limitWaitOf(scopeOf(context));
}

/**
 * A worker the delivery dispatched will open its plan PR under the installation's token: that
 * content-generating request is counted now, in the App's own content windows, so that the App
 * and its workers together keep GitHub's content limits (limit-model.ts, bookContent).
 */
export function bookWorkerContent(context: Context, requests = 1): void {
  memoryOf(context).paceOf(scopeOf(context))?.bookContent(requests);
}

/**
 * The delivery's client, its GETs made conditional (once per client) through the App's memory
 * of earlier answers (app-memory.ts): every request the App makes goes through it, Probot's
 * own (`context.config`) included.
 */
export function appOctokit(context: Context): Context['octokit'] {
  const scope = scopeOf(context);
  const memory = memoryOf(context);
  conditionalRequests(context.octokit as unknown as HookedOctokit, memory.reads, scope, memory.paceOf(scope));
  return context.octokit;
}

/**
 * The gateway for the repository a delivery is about, over the installation's client
 * (`context.octokit.request`, so Probot's auth, throttling and retries apply): one per
 * delivery, however many parts of the App ask for it.
 */
export function appGateway(context: Context): Gateway {
  let found = gateways.get(context);
  if (!found) {
    const scope = scopeOf(context);
    const repo = context.repo();
    const labelsKey = `${scope}:${repo.owner}/${repo.repo}`.toLowerCase();
    const memory = memoryOf(context);
    let labelIds = memory.labelIds.get(labelsKey);
    if (!labelIds) memory.labelIds.set(labelsKey, (labelIds = newLabelIds()));
    found = gateway(appOctokit(context).request, repo, 'app', {
      labelIds,
      blobs: {
        get: (sha) => memory.blobs.get(`${scope} ${sha}`),
        set: (sha, bytes) => {
          if (bytes.byteLength <= REMEMBERED_BLOB_MAX_BYTES) memory.blobs.set(`${scope} ${sha}`, bytes);
        },
      },
      selfLogin: (ask) => {
        const logins = memoryOf(context).logins;
        let login = logins.get(scope);
        if (!login) {
          login = ask();
          logins.set(scope, login);
          // A failed answer is not kept: the next delivery asks again.
          login.catch(() => logins.delete(scope));
        }
        return login;
      },
    });
    gateways.set(context, found);
  }
  return found;
}
