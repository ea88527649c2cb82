import type { Context } from 'probot';
import { ConditionalCache, conditionalRequests, type HookedOctokit } from '../gateway/conditional.js';
import { gateway, type Gateway } from '../gateway/gateway.js';

const gateways = new WeakMap<Context, Gateway>();

/**
 * The App's conditional reads (gateway/conditional.ts), shared by every delivery this process
 * handles: what one delivery read, the next asks again with its ETag, and a 304 costs nothing
 * from the installation's allowance.
 */
export const appReads = new ConditionalCache();

/** Who each installation's token belongs to: the App's bot, the same for every delivery. */
const logins = new Map<string, Promise<string>>();

function scopeOf(context: Context): string {
  const installation = (context.payload as { installation?: { id?: number } }).installation?.id;
  return installation === undefined ? 'token' : `installation:${installation}`;
}

/**
 * The delivery's client, its GETs made conditional (once per client): every request the App
 * makes goes through it, Probot's own (`context.config`) included.
 */
export function appOctokit(context: Context): Context['octokit'] {
  conditionalRequests(context.octokit as unknown as HookedOctokit, appReads, scopeOf(context));
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
    found = gateway(appOctokit(context).request, context.repo(), 'app', {
      selfLogin: (ask) => {
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
