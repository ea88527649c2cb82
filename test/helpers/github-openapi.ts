import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/**
 * GitHub's REST API for the fakes (github-repo.ts, and every request a test's Octokit sends
 * through nock, octokit.ts): each request is checked against GitHub's own OpenAPI description
 * of api.github.com (@octokit/openapi, the description GitHub publishes with Octokit's
 * extensions), as github-graphql.ts checks each GraphQL request against GitHub's schema. A
 * request passes when its method and path are an operation the description has, its query
 * parameters are ones the operation documents (with values of their types and enums), its JSON
 * body is valid against the operation's requestBody schema (required properties there, no
 * property the schema does not name, types and enums right), and the status it was answered
 * with is one the operation documents or one GitHub gives any endpoint (GENERIC_STATUSES).
 *
 * A violation is not answered differently (GitHub itself ignores a field it does not know): it
 * is kept, and test/setup.ts fails the test that made it, naming the method, the path, the
 * place in the description and the fix. The description (13 MB) is read and indexed once per
 * test worker, on the first request checked; each operation's schemas are compiled once.
 */

const DESCRIPTION = new URL('../../node_modules/@octokit/openapi/generated/api.github.com.json', import.meta.url);

/**
 * Statuses GitHub may answer any endpoint with, although an operation's description lists only
 * its own; the fakes answer them for fault injection, conditional reads and missing things:
 * - 304: a conditional GET (`If-None-Match` naming the ETag GitHub sent) of an unchanged
 *   resource: GitHub answers it on every endpoint that sends an ETag, and many operations'
 *   descriptions leave it out. GET only.
 * - 401: bad or expired credentials, on every endpoint.
 * - 403 and 429: a primary or secondary rate limit, with `retry-after` or `x-ratelimit-*`
 *   headers, on every endpoint (app/gateway/client.ts waits them out).
 * - 404: what is asked for is not there, or not visible to the token: GitHub answers 404 rather
 *   than 403 wherever a client may not see a resource, so any endpoint under a repository can
 *   give it (a comment deleted meanwhile, say).
 * - 500, 502, 503, 504: GitHub's own failures (an error, a timeout at its edge), which no
 *   operation promises never to give; the fakes inject them to test retries and resumption.
 */
export const GENERIC_STATUSES: ReadonlySet<number> = new Set([401, 403, 404, 429, 500, 502, 503, 504]);

/**
 * Statuses GitHub gives that an operation's description leaves out, each with why the fake
 * answers it: the app must handle what GitHub really sends. Keep this short; anything else the
 * fake answers must be documented.
 */
export const UNDOCUMENTED_STATUSES: readonly { method: string; template: string; status: number; why: string }[] = [
  {
    method: 'GET',
    template: '/repos/{owner}/{repo}/commits/{ref}/check-runs',
    status: 422,
    why: 'a ref that names no commit or branch is answered 422 "No commit found for SHA: <ref>", not the 404 one might expect (app/gateway/check-runs.ts reads both)',
  },
  {
    method: 'POST',
    template: '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
    status: 422,
    why: 'the workflow on that ref has no `workflow_dispatch` trigger, or was sent an input it does not declare ("Unexpected inputs provided"): app/gateway/workflows.ts dispatches again without an input an older workflow lacks',
  },
];

type Schema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
  'x-multi-segment'?: boolean;
}

interface Operation {
  method: string;
  template: string;
  operationId: string;
  docs: string | undefined;
  /** The template's segments: literal text, or a pattern with the parameters it holds. */
  segments: ({ literal: string } | { pattern: RegExp; names: string[]; multi: boolean })[];
  parameters: Parameter[];
  /** The JSON body's schema, as the description has it ($refs in place); undefined: the operation takes no JSON body. */
  body: Schema | undefined;
  bodyRequired: boolean;
  /** Another content type than JSON (a raw upload): its body is not checked. */
  rawBody: boolean;
  statuses: Set<string>;
  compiled?: { body?: ValidateFunction; query: ValidateFunction; path: ValidateFunction };
}

interface Description {
  version: string;
  doc: { components: Record<string, Record<string, unknown>> };
  operations: Operation[];
  /** The operations by the first and fourth segments of their templates (`repos`, `issues`), `{}` for a parameter there. */
  byPrefix: Map<string, Operation[]>;
  /** Those whose segments do not stay in place: a parameter first, or a multi-segment one before the fourth. */
  unplaced: Operation[];
}

let description: Description | undefined;

/** GitHub's description, read and indexed once per process. */
function githubDescription(): Description {
  if (description) return description;
  const doc = JSON.parse(readFileSync(DESCRIPTION, 'utf8')) as {
    info: { version: string };
    paths: Record<string, Record<string, unknown>>;
    components: Record<string, Record<string, unknown>>;
  };
  const resolve = <T>(x: unknown): T => {
    const ref = (x as { $ref?: string }).$ref;
    if (!ref) return x as T;
    const [, , kind, name] = ref.split('/');
    return doc.components[kind!]![name!] as T;
  };
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    const shared = ((item.parameters as unknown[] | undefined) ?? []).map((p) => resolve<Parameter>(p));
    for (const [method, raw] of Object.entries(item)) {
      if (!['get', 'put', 'post', 'patch', 'delete'].includes(method)) continue;
      const op = raw as {
        operationId: string;
        externalDocs?: { url: string };
        parameters?: unknown[];
        requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
        responses: Record<string, unknown>;
      };
      const parameters = [...shared, ...(op.parameters ?? []).map((p) => resolve<Parameter>(p))];
      const multi = new Set(parameters.filter((p) => p['x-multi-segment']).map((p) => p.name));
      const content = op.requestBody?.content ?? {};
      operations.push({
        method: method.toUpperCase(),
        template,
        operationId: op.operationId,
        docs: op.externalDocs?.url,
        segments: template
          .split('/')
          .slice(1)
          .map((segment) => {
            if (!segment.includes('{')) return { literal: segment };
            const names = [...segment.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
            const source = segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '(.+?)');
            return { pattern: new RegExp(`^${source}$`), names, multi: names.some((n) => multi.has(n)) };
          }),
        parameters,
        body: content['application/json']?.schema,
        bodyRequired: op.requestBody?.required === true,
        rawBody: op.requestBody !== undefined && content['application/json'] === undefined,
        statuses: new Set(Object.keys(op.responses)),
      });
    }
  }
  const byPrefix = new Map<string, Operation[]>();
  const unplaced: Operation[] = [];
  for (const op of operations) {
    const shape = op.segments.map((seg) => ('literal' in seg ? seg.literal : seg.multi ? '{+}' : '{}'));
    if (shape[0] === '{}' || shape[0] === '{+}' || shape.slice(0, 3).includes('{+}')) unplaced.push(op);
    else byPrefix.set(prefixKey(shape), [...(byPrefix.get(prefixKey(shape)) ?? []), op]);
  }
  description = { version: doc.info.version, doc, operations, byPrefix, unplaced };
  return description;
}

/** The operation's path parameters (raw, still percent-encoded) when `segments` (the request's) fit its template; undefined otherwise. */
function fit(op: Operation, segments: string[]): { params: Record<string, string>; literals: number; spans: number } | undefined {
  const params: Record<string, string> = {};
  let literals = 0;
  let spans = 0;
  const walk = (t: number, s: number): boolean => {
    if (t === op.segments.length) return s === segments.length;
    const seg = op.segments[t]!;
    if ('literal' in seg) {
      if (segments[s] !== seg.literal) return false;
      literals++;
      if (walk(t + 1, s + 1)) return true;
      literals--;
      return false;
    }
    // A multi-segment parameter (a ref, a file path) may take slashes; any other one segment.
    const most = seg.multi ? segments.length - s - (op.segments.length - t - 1) : 1;
    for (let n = 1; n <= most && s + n <= segments.length; n++) {
      const m = seg.pattern.exec(segments.slice(s, s + n).join('/'));
      if (!m) continue;
      seg.names.forEach((name, i) => (params[name] = m[i + 1]!));
      spans += n - 1;
      if (walk(t + 1, s + n)) return true;
      spans -= n - 1;
    }
    return false;
  };
  return walk(0, 0) ? { params, literals, spans } : undefined;
}

/** The operation a request is for: of the templates its path fits, the one with the most literal segments (`/issues/comments/{id}` before `/issues/{n}`). */
function prefixKey(segments: readonly string[]): string {
  return `${segments[0] ?? ''} ${segments[3] ?? ''}`;
}

/** The operations a request's path may fit: those whose first and fourth segments are its own or a parameter, and the unplaced ones. */
function candidates(segments: readonly string[]): Operation[] {
  const { byPrefix, unplaced } = githubDescription();
  const first = segments[0] ?? '';
  return [
    ...(byPrefix.get(prefixKey(segments)) ?? []),
    ...(segments[3] === undefined ? [] : [...(byPrefix.get(`${first} {}`) ?? []), ...(byPrefix.get(`${first} {+}`) ?? [])]),
    ...unplaced,
  ];
}

/** Each path's operations, as found (a test repeats the same paths many times). */
const found = new Map<string, ReturnType<typeof operationFor>>();

function operationFor(method: string, pathname: string): { op?: Operation; params: Record<string, string>; others: Operation[] } {
  const key = `${method} ${pathname}`;
  const known = found.get(key);
  if (known) return known;
  if (found.size >= 10_000) found.clear();
  const segments = pathname.split('/').slice(1);
  const fits = candidates(segments)
    .map((op) => ({ op, fit: fit(op, segments) }))
    .filter((x): x is { op: Operation; fit: NonNullable<ReturnType<typeof fit>> } => x.fit !== undefined)
    .sort((a, b) => b.fit.literals - a.fit.literals || a.fit.spans - b.fit.spans);
  const best = fits.find((x) => x.op.method === method);
  // Without the method: the operations of the template the path fits best, to name the methods it has.
  const result = { op: best?.op, params: best?.fit.params ?? {}, others: fits.filter((x) => x.op.template === fits[0]?.op.template).map((x) => x.op) };
  found.set(key, result);
  return result;
}

/**
 * An OpenAPI 3.0 schema as the JSON Schema Ajv validates: $refs to components inlined (a cycle
 * accepts anything below it), `nullable` as a null type, and every object schema that names its
 * properties closed to others (`additionalProperties: false`), unless it says otherwise or is
 * one part of an allOf: GitHub ignores a field it does not know, so a misspelt or invented one
 * would otherwise pass unnoticed. `text`: the schema of a path or query parameter, read from text.
 */
function jsonSchema(schema: Schema, components: Description['doc']['components'], text = false, inAllOf = false, seen: string[] = []): Schema {
  const ref = schema.$ref as string | undefined;
  if (ref) {
    if (seen.includes(ref)) return {};
    const [, , kind, name] = ref.split('/');
    return jsonSchema(components[kind!]![name!] as Schema, components, text, inAllOf, [...seen, ref]);
  }
  const out: Schema = {};
  const sub = (s: unknown, allOf = false) => jsonSchema(s as Schema, components, text, allOf, seen);
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties') out.properties = Object.fromEntries(Object.entries(value as Record<string, Schema>).map(([k, v]) => [k, sub(v)]));
    else if (key === 'items' || key === 'not') out[key] = sub(value);
    else if (key === 'additionalProperties') out[key] = typeof value === 'object' ? sub(value) : value;
    // A parameter's text can read as more than one branch (`7` as an integer and as a string): any one will do.
    else if (key === 'oneOf' && text) out.anyOf = (value as Schema[]).map((s) => sub(s));
    else if (key === 'oneOf' || key === 'anyOf' || key === 'allOf') out[key] = (value as Schema[]).map((s) => sub(s, key === 'allOf'));
    else if (key === 'format') {
      // Only date-time is checked (the times harness sends); other formats are documentation here.
      if (value === 'date-time') out.format = value;
    } else if (
      [
        'type',
        'required',
        'enum',
        'maxLength',
        'minLength',
        'pattern',
        'minimum',
        'maximum',
        'maxItems',
        'minItems',
        'uniqueItems',
        'maxProperties',
        'minProperties',
      ].includes(key)
    )
      out[key] = value;
  }
  if (out.properties && out.additionalProperties === undefined && !inAllOf) out.additionalProperties = false;
  if (schema.nullable === true) {
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (out.type === undefined) return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
let ajv: { strict: Ajv; coercing: Ajv } | undefined;

function compiled(op: Operation): NonNullable<Operation['compiled']> {
  if (op.compiled) return op.compiled;
  const make = (coerceTypes: boolean) => new Ajv({ allErrors: true, strict: false, coerceTypes, formats: { 'date-time': DATE_TIME } });
  ajv ??= { strict: make(false), coercing: make(true) };
  const { components } = githubDescription().doc;
  // Query and path values arrive as text: the coercing instance reads `100` as the integer a per_page asks for.
  const of = (where: 'query' | 'path') => {
    const params = op.parameters.filter((p) => p.in === where);
    return ajv!.coercing.compile({
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p.name, p.schema ? jsonSchema(p.schema, components, true) : {}])),
      required: params.filter((p) => p.required).map((p) => p.name),
      additionalProperties: false,
    });
  };
  op.compiled = { query: of('query'), path: of('path'), ...(op.body ? { body: ajv.strict.compile(jsonSchema(op.body, components)) } : {}) };
  return op.compiled;
}

/** The description's place of an operation, as a JSON pointer (`#/paths/~1repos~1{owner}…/patch`). */
function pointer(op: Operation): string {
  return `#/paths/${op.template.replace(/~/g, '~0').replace(/\//g, '~1')}/${op.method.toLowerCase()}`;
}

function where(op: Operation): string {
  return `GitHub's OpenAPI description (api.github.com ${githubDescription().version}) of ${op.operationId}, ${op.method} ${op.template}${op.docs ? ` (${op.docs})` : ''}`;
}

/** Ajv's errors as sentences, each with the schema path it failed at. */
function explain(errors: ErrorObject[], base: string, what: string, parameters = false): string[] {
  // oneOf/anyOf say only that no branch fitted; the branches' own errors say why, and come first.
  const specific = errors.filter((e) => !['oneOf', 'anyOf', 'if'].includes(e.keyword));
  return (specific.length > 0 ? specific : errors).slice(0, 6).map((e) => {
    const at = `${what}${e.instancePath}`;
    // A parameter's schema sits in its own entry of the operation's parameters: `parameters (state: schema/enum)`.
    const inParameter = /^#\/properties\/([^/]+)\/?(.*)$/.exec(e.schemaPath);
    const schemaPath = !parameters ? `${base}${e.schemaPath.slice(1)}` : inParameter ? `${base} (${inParameter[1]}: schema/${inParameter[2]})` : base;
    if (e.keyword === 'additionalProperties') {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      return `${at} has \`${extra}\`, which the schema does not name (${schemaPath}): leave it out, or name the field the description has`;
    }
    if (e.keyword === 'enum') {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
      return `${at} must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')} (${schemaPath})`;
    }
    if (e.keyword === 'required')
      return `${at} lacks \`${(e.params as { missingProperty: string }).missingProperty}\`, which is required (${schemaPath}): send it`;
    return `${at} ${e.message ?? e.keyword} (${schemaPath})`;
  });
}

export interface CheckedRequest {
  method: string;
  /** The path and query as sent (percent-encoded, as on the wire). */
  url: string;
  /** The JSON body, for writes. */
  body?: unknown;
  /** The status it was answered with; undefined or 0: no answer (a dropped connection). */
  status?: number;
}

/**
 * What GitHub's description says is wrong with a request and its answer: one sentence per
 * problem, naming the method, the path, the place in the description and the fix; none when
 * the request is one GitHub documents and the status one the operation (or any endpoint) gives.
 */
export function openApiProblems(request: CheckedRequest): string[] {
  const method = request.method.toUpperCase();
  const url = new URL(request.url, 'https://api.github.com');
  const { op, params, others } = operationFor(method, url.pathname);
  const said = `${method} ${decodeURIComponent(url.pathname)}${url.search ? decodeURIComponent(url.search) : ''}`;
  if (!op) {
    const methods = [...new Set(others.map((o) => `${o.method} ${o.template}`))];
    return [
      methods.length > 0
        ? `${said}: GitHub's OpenAPI description (api.github.com ${githubDescription().version}) has no ${method} for this path, only ${methods.join('; ')}: use a documented method`
        : `${said}: no operation in GitHub's OpenAPI description (api.github.com ${githubDescription().version}) has this path: use a documented endpoint (docs.github.com/rest)`,
    ];
  }
  const problems: string[] = [];
  const check = compiled(op);
  const base = pointer(op);
  const decodedParams = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, decodeURIComponent(v)]));
  if (!check.path(decodedParams)) problems.push(...explain(check.path.errors ?? [], `${base}/parameters`, 'the path parameters', true));
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = v;
  if (!check.query(query))
    problems.push(
      ...explain(check.query.errors ?? [], `${base}/parameters`, 'the query', true).map((p) =>
        p.includes('which the schema does not name')
          ? `${p.replace(/: leave it out.*$/, '')}: it is not a query parameter of this operation; documented are ${
              op.parameters
                .filter((x) => x.in === 'query')
                .map((x) => x.name)
                .join(', ') || 'none'
            }`
          : p,
      ),
    );
  if (request.body !== undefined && !op.rawBody) {
    if (!check.body) problems.push(`the request has a body, and the operation takes none (${base}): send no body`);
    else if (!check.body(request.body)) problems.push(...explain(check.body.errors ?? [], `${base}/requestBody/content/application~1json/schema`, 'the body'));
  } else if (request.body === undefined && op.bodyRequired) problems.push(`the operation requires a body (${base}/requestBody), and none was sent`);
  const status = request.status;
  if (status !== undefined && status !== 0 && !op.statuses.has(String(status)) && !op.statuses.has('default') && !GENERIC_STATUSES.has(status)) {
    const known = UNDOCUMENTED_STATUSES.some((u) => u.method === method && u.template === op.template && u.status === status);
    if (!known && !(status === 304 && method === 'GET'))
      problems.push(
        `answered ${status}, which the operation does not document (${base}/responses): answer one of ${[...op.statuses].join(', ')}, or one GitHub gives any endpoint (${[...GENERIC_STATUSES].join(', ')}, and 304 to a conditional GET)`,
      );
  }
  return problems.map((p) => `${said}: ${p}. See ${where(op)}.`);
}

/** The header the fake GitHub (github-repo.ts) marks its answers with: checked there, the tests' Octokit need not check them again. */
export const FAKE_HEADER = 'x-harness-fake-github';

const pending: string[] = [];

/** Checks a request (openApiProblems) and keeps what is wrong for the running test to fail on (test/setup.ts). */
export function checkAgainstOpenApi(request: CheckedRequest, from: string): void {
  // One problem once, whoever saw it (a dropped answer of the fake is seen by the tests' Octokit too).
  for (const problem of openApiProblems(request)) if (!pending.some((p) => p.endsWith(`: ${problem}`))) pending.push(`${from}: ${problem}`);
}

/** The problems kept since the last call, and forgets them: test/setup.ts fails a test that left any. */
export function takeOpenApiViolations(): string[] {
  return pending.splice(0);
}
