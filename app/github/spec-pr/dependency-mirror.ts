import { DEPENDENCY_LINKS_PER_KIND } from '../../engine/forge/limits.js';
import type { Gateway } from '../../gateway/gateway.js';

/**
 * GitHub's native issue dependencies, kept in step with the `needs:` labels, one edge per
 * request (the API has no batch form). The first answer that says the feature is not
 * there for harness stops every further dependency write in this sync: the labels carry
 * the dependencies either way.
 */
export class DependencyMirror {
  available = true;
  added = 0;
  removed = 0;
  refused = 0;
  /** Edges not mirrored because an issue has GitHub's most links of that kind (DEPENDENCY_LINKS_PER_KIND): no request is spent on them. */
  capped = 0;
  /**
   * Links between the spec's own plan issues that GitHub has and neither the spec nor the
   * record does (someone added them by hand, and no event told the App), which this sync took
   * away: issue number → the plans they named (app/github/graph says so on the issues).
   */
  readonly undone = new Map<number, string[]>();
  private readonly foreign = new Map<number, Set<string>>();

  /**
   * `blocking`: how many issues each plan's issue blocks already, counted from the records of
   * the issues it blocks (their marker lines: no read), so that no issue is asked to block
   * more than GitHub links.
   */
  constructor(
    private readonly github: Gateway,
    private readonly blocking = new Map<string, number>(),
  ) {}

  /**
   * The plans `issue` is blocked by as GitHub has them, or as its record says when that can be
   * taken at its word: GitHub's count of its blockers (`issue_dependencies_summary`, in the
   * list the sync reads anyway) equals the record's, and no race left duplicates (`race`).
   * Else one read of its blockers (a sync that died between creating the issue, its record
   * written with it, and mirroring its edges; a race whose duplicates it may point at).
   * `planOf` maps a listed plan issue's database id to its plan and whether it is the plan's
   * own issue; an edge to a duplicate is taken off here, and one to an issue that is no plan's
   * (a person's) is left alone.
   */
  async actualEdges(
    issue: { number: number; blockedByTotal?: number },
    recorded: readonly string[],
    planOf: ReadonlyMap<number, { plan: string; own: boolean }>,
    race: boolean,
  ): Promise<string[]> {
    if (!this.available || (!race && (issue.blockedByTotal === undefined || issue.blockedByTotal === recorded.length))) return [...recorded];
    const ids = await this.github.blockedByIds(issue.number);
    if (ids === 'unavailable') return [...recorded];
    const plans: string[] = [];
    for (const id of ids) {
      const found = planOf.get(id);
      if (!found) continue;
      if (found.own) {
        plans.push(found.plan);
        if (!recorded.includes(found.plan)) this.foreign.set(issue.number, (this.foreign.get(issue.number) ?? new Set()).add(found.plan));
      } else if ((await this.github.removeBlockedBy(issue.number, id)) === 'done') this.removed++;
    }
    return plans;
  }

  /** The edges a new issue will get, so that its record can be written with it: those GitHub takes, within its links per kind. */
  intended(wanted: readonly string[], issues: ReadonlyMap<string, { id: number }>): string[] {
    if (!this.available) return [];
    return wanted.filter((plan) => issues.has(plan) && (this.blocking.get(plan) ?? 0) < DEPENDENCY_LINKS_PER_KIND).slice(0, DEPENDENCY_LINKS_PER_KIND);
  }

  /**
   * Make issue `issueNumber` blocked by exactly the issues of `wanted`, given the edges
   * `recorded` as mirrored before; `issues` gives each plan's issue (its database id).
   * Returns the edges mirrored now, to be recorded on the issue's marker line.
   */
  async sync(issueNumber: number, wanted: readonly string[], recorded: readonly string[], issues: ReadonlyMap<string, { id: number }>): Promise<string[]> {
    const mirrored = new Set(recorded);
    for (const plan of recorded) {
      if (!this.available) break;
      if (wanted.includes(plan)) continue;
      const blocker = issues.get(plan);
      const outcome = blocker ? await this.github.removeBlockedBy(issueNumber, blocker.id) : 'done';
      if (outcome === 'done') {
        mirrored.delete(plan);
        if (blocker) this.removed++;
        this.blocking.set(plan, Math.max(0, (this.blocking.get(plan) ?? 0) - 1));
        if (blocker && this.foreign.get(issueNumber)?.has(plan)) this.undone.set(issueNumber, [...(this.undone.get(issueNumber) ?? []), plan]);
      } else if (outcome === 'unavailable') this.available = false;
    }
    for (const plan of wanted) {
      if (!this.available) break;
      if (mirrored.has(plan)) continue;
      const blocker = issues.get(plan);
      if (!blocker) continue;
      // GitHub refuses the 51st link of a kind: past it, the edge lives in the labels and the issue says so (plan-issue.ts).
      if (mirrored.size >= DEPENDENCY_LINKS_PER_KIND || (this.blocking.get(plan) ?? 0) >= DEPENDENCY_LINKS_PER_KIND) {
        this.capped++;
        continue;
      }
      const outcome = await this.github.addBlockedBy(issueNumber, blocker.id);
      if (outcome === 'done') {
        mirrored.add(plan);
        this.added++;
        this.blocking.set(plan, (this.blocking.get(plan) ?? 0) + 1);
      } else if (outcome === 'refused') this.refused++;
      else this.available = false;
    }
    return [...mirrored];
  }
}
