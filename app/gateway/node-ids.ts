/**
 * GraphQL node ids of issues, labels and the repository, as REST answers carry them (`node_id`
 * on an issue and on each of its labels) or GraphQL gave them: GitHub's GraphQL mutations name
 * what they change by these, so the gateway keeps those it has read, at no request, and a
 * write that needs one it has not seen asks for it, or goes by REST instead.
 *
 * Issue ids are kept for one gateway (one delivery, one worker run); label ids, stable for a
 * label's life, may be shared between gateways (the App's memory keeps them per installation
 * and repository, LABELS_KEPT at most). A label deleted and made again has a new id: a
 * mutation naming the old one fails, the id is forgotten, and the write goes by REST.
 */
import { LRUCache } from 'lru-cache';

/** A repository's label ids by name, the least recently used going past LABELS_KEPT. */
export type LabelIds = LRUCache<string, string>;

export function labelIds(): LabelIds {
  return new LRUCache<string, string>({ max: LABELS_KEPT });
}

export class NodeIds {
  readonly #issues = new Map<number, string>();
  /** The repository's node id, once a query asked for it. */
  repository: string | undefined;

  constructor(readonly labels: LabelIds = labelIds()) {}

  /** Keep the ids an issue as GitHub answered it carries. */
  see(issue: { number: number; node_id?: unknown; labels?: readonly unknown[] }): void {
    if (typeof issue.node_id === 'string' && issue.node_id !== '') this.#issues.set(issue.number, issue.node_id);
    for (const label of issue.labels ?? []) {
      const { name, node_id } = (label ?? {}) as { name?: unknown; node_id?: unknown };
      if (typeof name === 'string' && typeof node_id === 'string') this.seeLabel(name, node_id);
    }
  }

  /** Keep a label's id, as the most recently used. */
  seeLabel(name: string, nodeId: string): void {
    if (nodeId === '') return;
    this.labels.set(name, nodeId);
  }

  seeIssue(number: number, nodeId: string): void {
    this.#issues.set(number, nodeId);
  }

  issue(number: number): string | undefined {
    return this.#issues.get(number);
  }

  label(name: string): string | undefined {
    return this.labels.get(name);
  }

  forgetLabel(name: string): void {
    this.labels.delete(name);
  }
}

/** Label ids kept per repository: a spec of 1,000 plans has a few hundred `needs:` labels. */
export const LABELS_KEPT = 5_000;
