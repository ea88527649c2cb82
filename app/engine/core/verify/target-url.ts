import type { CheckContext } from './check-result.js';

const ABSOLUTE = /^https?:\/\//i;

/**
 * A check's URL: absolute as written, or a path on the plan's server. The base may carry a
 * path of its own ("http://127.0.0.1:3000/app"), which `new URL(path, base)` would drop, so
 * the two are joined as text. Returns a string error when there is no server to join with.
 */
export function targetUrl(target: string, ctx: CheckContext): { url: string } | { error: string } {
  if (ABSOLUTE.test(target)) return { url: target };
  if (ctx.baseUrl === undefined) {
    return {
      error: ctx.serveError ?? `${target} is a path but the plan has no serve: add serve { command, url } to the plan (or phase), or use an absolute URL`,
    };
  }
  return { url: `${ctx.baseUrl.replace(/\/+$/, '')}/${target.replace(/^\/+/, '')}` };
}
