/**
 * GraphQL node ids of issues and labels, as REST answers carry them (`node_id` on an issue and
 * on each of its labels): GitHub's GraphQL mutations name issues and labels by these, so the
 * gateway keeps those it has read, at no request, and a write that needs one it has not seen
 * goes by REST instead (plan-issues.ts, setStatuses).
 *
 * Only status labels are kept: the labels a batched write names.
 *
 * Issue ids are kept for one gateway (one delivery, one worker run); label ids, stable for a
 * label's life, may be shared between gateways (the App's memory keeps them per installation
 * and repository). A label deleted and made again has a new id: a mutation naming the old one
 * fails, the id is forgotten, and the write goes by REST.
 */
import { isStatusLabel } from '../engine/forge/names.js';

export class NodeIds {
  readonly #issues = new Map<number, string>();

  constructor(readonly labels: Map<string, string> = new Map()) {}

  /** Keep the ids an issue as GitHub answered it carries. */
  see(issue: { number: number; node_id?: unknown; labels?: readonly unknown[] }): void {
    if (typeof issue.node_id === 'string' && issue.node_id !== '') this.#issues.set(issue.number, issue.node_id);
    for (const label of issue.labels ?? []) {
      const { name, node_id } = (label ?? {}) as { name?: unknown; node_id?: unknown };
      if (typeof name === 'string' && typeof node_id === 'string') this.seeLabel(name, node_id);
    }
  }

  /** Keep a label's id: the status labels only, the ones batched writes name (a spec's `needs:` labels are many, and never batched). */
  seeLabel(name: string, nodeId: string): void {
    if (nodeId !== '' && isStatusLabel(name)) this.labels.set(name, nodeId);
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
