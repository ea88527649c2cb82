import type { GatewayRequest } from './request.js';

/** The `next` page of a `Link` header, as GitHub sends it: `<https://…&page=2>; rel="next", <…>; rel="last"`. */
function nextPage(link: string | undefined): string | undefined {
  return /<([^>]+)>;\s*rel="next"/.exec(link ?? '')?.[1];
}

/**
 * The pages of a list, one request each, in order. The first request is the route with the
 * parameters as given; each next one is the `Link: rel="next"` address GitHub answered
 * with, which is how GitHub asks integrations to page (rather than counting pages: a list
 * that changes between two requests still ends where GitHub says). `items` takes a page's
 * entries out of endpoints that wrap them (`{ total_count, workflow_runs }`).
 */
export async function* pages<T>(
  request: GatewayRequest,
  route: string,
  params: Record<string, unknown>,
  items: (data: unknown) => T[] = (data) => data as T[],
): AsyncGenerator<T[]> {
  let response = await request(route, params);
  for (;;) {
    yield items(response.data);
    const next = nextPage(response.headers.link);
    if (next === undefined) return;
    response = await request({ method: 'GET', url: next });
  }
}

/** Every entry of a list, all pages read (see pages). */
export async function paginate<T>(request: GatewayRequest, route: string, params: Record<string, unknown>, items?: (data: unknown) => T[]): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages(request, route, params, items)) all.push(...page);
  return all;
}
