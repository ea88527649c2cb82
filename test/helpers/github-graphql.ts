import { readFileSync } from 'node:fs';
import { buildSchema, execute, parse, validate, type GraphQLSchema } from 'graphql';

/**
 * GitHub's GraphQL API for the fake (github-repo.ts): every query and mutation harness sends is
 * parsed and validated against GitHub's own published schema (@octokit/graphql-schema, the
 * schema GitHub serves at api.github.com/graphql), then executed by graphql-js over the fake's
 * state through the few fields harness uses. A query the real API would reject (a field that
 * does not exist, a wrong input type, a missing variable) is answered as GitHub answers it:
 * 200 with `errors` and no `data`.
 */

let schema: GraphQLSchema | undefined;

/** GitHub's schema, built once per process (a few hundred milliseconds). */
export function githubSchema(): GraphQLSchema {
  if (!schema) {
    // The package exports only its index, which parses the 5 MB JSON form too: the SDL is read from beside it.
    const path = new URL('../../node_modules/@octokit/graphql-schema/schema.graphql', import.meta.url);
    schema = buildSchema(readFileSync(path, 'utf8'), { assumeValidSDL: true });
  }
  return schema;
}

/** What the fake gives the executor: the root fields harness asks for, over the fake's state. */
export type GraphQLRoot = Record<string, unknown>;

/** GitHub's answer to a GraphQL request: [status, body]. */
export function answerGraphQL(body: unknown, root: GraphQLRoot): [number, unknown] {
  const { query, variables } = (body ?? {}) as { query?: unknown; variables?: Record<string, unknown> };
  if (typeof query !== 'string') return [400, { message: 'Problems parsing JSON' }];
  let document;
  try {
    document = parse(query);
  } catch (e) {
    return [200, { errors: [{ message: e instanceof Error ? e.message : String(e) }] }];
  }
  const problems = validate(githubSchema(), document);
  if (problems.length > 0) return [200, { errors: problems.map((p) => ({ message: p.message })) }];
  const result = execute({ schema: githubSchema(), document, rootValue: root, variableValues: variables ?? {} });
  if (result instanceof Promise) throw new Error('the fake resolves GraphQL synchronously');
  // graphql-js's errors as GitHub's: `type` where GitHub gives one (NOT_FOUND), the path to the field.
  const errors = result.errors?.map((e) => ({
    ...(e.originalError && 'type' in e.originalError ? { type: (e.originalError as { type: string }).type } : {}),
    message: e.message,
    path: e.path,
  }));
  return [200, { ...(result.data === undefined ? {} : { data: result.data }), ...(errors && errors.length > 0 ? { errors } : {}) }];
}

/** A resolver's failure as GitHub reports it: `NOT_FOUND` for an id that names nothing. */
export class GraphQLFailure extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}
