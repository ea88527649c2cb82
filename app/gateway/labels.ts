import { hasStatus } from './github-error.js';
import { PAGE_SIZE } from './limits.js';
import { paginate } from './paginate.js';
import type { NodeIds } from './node-ids.js';
import type { GatewayRequest, Repo } from './request.js';

export interface Label {
  name: string;
  /** Six hex digits, no `#`. */
  color: string;
  description: string | null;
}

/** GET /repos/{owner}/{repo}/labels?per_page=100, every page. */
export async function listLabels(request: GatewayRequest, repo: Repo): Promise<Label[]> {
  const all = await paginate<Label>(request, 'GET /repos/{owner}/{repo}/labels', { ...repo, per_page: PAGE_SIZE });
  return all.map((l) => ({ name: l.name, color: l.color, description: l.description }));
}

/**
 * POST /repos/{owner}/{repo}/labels. `exists` when GitHub answers 422 (the name is taken):
 * another delivery, or a person, created it first, which is what was wanted.
 */
export async function createLabel(request: GatewayRequest, repo: Repo, label: Label): Promise<'created' | 'exists'> {
  try {
    await request('POST /repos/{owner}/{repo}/labels', {
      ...repo,
      name: label.name,
      color: label.color,
      ...(label.description ? { description: label.description } : {}),
    });
    return 'created';
  } catch (e) {
    if (hasStatus(e, 422)) return 'exists';
    throw e;
  }
}

/**
 * POST /repos/{owner}/{repo}/issues/{issue_number}/labels (200): adds to the issue's labels,
 * leaving the others as they are, whoever set them meanwhile. GitHub answers with every label
 * the issue has now: their names.
 */
export async function addLabels(request: GatewayRequest, repo: Repo, issueNumber: number, labels: readonly string[]): Promise<string[]> {
  const { data } = await request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', { ...repo, issue_number: issueNumber, labels: [...labels] });
  return Array.isArray(data) ? (data as { name?: unknown }[]).flatMap((l) => (typeof l?.name === 'string' ? [l.name] : [])) : [];
}

/**
 * DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name} (200). A label the issue
 * no longer has (GitHub answers 404) is `absent`: someone took it off first, which is what
 * was wanted.
 */
export async function removeLabel(request: GatewayRequest, repo: Repo, issueNumber: number, name: string): Promise<'removed' | 'absent'> {
  try {
    await request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', { ...repo, issue_number: issueNumber, name });
    return 'removed';
  } catch (e) {
    if (hasStatus(e, 404)) return 'absent';
    throw e;
  }
}

/** Labels one GraphQL query looks up by name at most. */
const LABELS_PER_QUERY = 50;
/** Labels one GraphQL request creates at most: 5 of GraphQL's 2,000 secondary points a minute each. */
const LABELS_PER_MUTATION = 25;

/**
 * Every label of `names` known by its node id, and the repository's (NodeIds), for a GraphQL
 * write that names them: those not known yet are looked up, LABELS_PER_QUERY to a query
 * (`repository.label(name:)`, aliased), and those the repository does not have are created,
 * LABELS_PER_MUTATION to a request (`createLabel`), coloured as `colors` says, else as GitHub
 * colours a label REST makes on the fly (ededed). True when every id is known after; a failure
 * leaves the rest unknown, and the caller writes by REST, which names labels by name.
 */
export async function knowLabels(
  request: GatewayRequest,
  repo: Repo,
  ids: NodeIds,
  names: readonly string[],
  colors: Readonly<Record<string, { color: string; description?: string }>> = {},
): Promise<boolean> {
  const unknown = [...new Set(names)].filter((n) => ids.label(n) === undefined);
  try {
    if (ids.repository === undefined || unknown.length > 0) {
      for (let at = 0; at === 0 || at < unknown.length; at += LABELS_PER_QUERY) {
        const batch = unknown.slice(at, at + LABELS_PER_QUERY);
        const query = `query Labels($owner: String!, $name: String!${batch.map((_n, i) => `, $n${i}: String!`).join('')}) {\n  repository(owner: $owner, name: $name) {\n    id\n    ${batch.map((_n, i) => `l${i}: label(name: $n${i}) { id name }`).join('\n    ')}\n  }\n}`;
        const variables = Object.fromEntries([['owner', repo.owner], ['name', repo.repo], ...batch.map((n, i) => [`n${i}`, n])]);
        const { data } = (await request('POST /graphql', { query, variables })) as {
          data: { data?: { repository?: Record<string, { id?: unknown; name?: unknown } | string | null> | null } };
        };
        const found = data.data?.repository;
        if (!found || typeof found.id !== 'string') return false;
        ids.repository = found.id;
        batch.forEach((n, i) => {
          const label = found[`l${i}`];
          if (label && typeof label === 'object' && typeof label.id === 'string' && label.name === n) ids.seeLabel(n, label.id);
        });
      }
    }
    const missing = unknown.filter((n) => ids.label(n) === undefined);
    for (let at = 0; at < missing.length; at += LABELS_PER_MUTATION) {
      const batch = missing.slice(at, at + LABELS_PER_MUTATION);
      const fields = batch.map(
        (_n, i) =>
          `c${i}: createLabel(input: {repositoryId: $repository, name: $n${i}, color: $k${i}${colors[batch[i]!]?.description ? `, description: $d${i}` : ''}}) { label { id name } }`,
      );
      const declared = [
        '$repository: ID!',
        ...batch.flatMap((n, i) => [`$n${i}: String!`, `$k${i}: String!`, ...(colors[n]?.description ? [`$d${i}: String`] : [])]),
      ];
      const variables: Record<string, unknown> = { repository: ids.repository };
      batch.forEach((n, i) => {
        variables[`n${i}`] = n;
        variables[`k${i}`] = colors[n]?.color ?? 'ededed';
        if (colors[n]?.description) variables[`d${i}`] = colors[n]!.description;
      });
      const query = `mutation CreateLabels(${declared.join(', ')}) {\n  ${fields.join('\n  ')}\n}`;
      const { data } = (await request('POST /graphql', { query, variables })) as {
        data: { data?: Record<string, { label?: { id?: unknown; name?: unknown } } | null> | null };
      };
      batch.forEach((n, i) => {
        const label = data.data?.[`c${i}`]?.label;
        if (label && typeof label.id === 'string') ids.seeLabel(n, label.id);
      });
    }
  } catch {
    return false;
  }
  return names.every((n) => ids.label(n) !== undefined);
}
