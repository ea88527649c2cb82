import type { Context } from 'probot';
import { gateway, type Gateway } from '../gateway/gateway.js';

const gateways = new WeakMap<Context, Gateway>();

/**
 * The gateway for the repository a delivery is about, over the installation's client
 * (`context.octokit.request`, so Probot's auth, throttling and retries apply): one per
 * delivery, however many parts of the App ask for it.
 */
export function appGateway(context: Context): Gateway {
  let found = gateways.get(context);
  if (!found) gateways.set(context, (found = gateway(context.octokit.request, context.repo(), 'app')));
  return found;
}
