import { desiredSpecIssue, matchSpecIssue, type SpecSource } from '../../engine/forge/spec-issue.js';
import type { Spec } from '../../engine/core/spec/model.js';
import type { Gateway } from '../../gateway/gateway.js';
import type { IssueRecord } from '../../gateway/issues.js';
import { SUB_ISSUES_PER_PARENT } from '../../engine/forge/limits.js';

export interface SpecIssueSync {
  /** The tracking issue's number after the sync. */
  number: number;
  created: boolean;
  updated: boolean;
  /** Other open tracking issues of the spec, closed as duplicates. */
  duplicates: number[];
  /** How many sub-issues GitHub says it has (`sub_issues_summary.total`), where GitHub reports it: none for a new one. */
  subIssuesTotal?: number;
  /** Every issue under the labels `harness:spec,spec:<id>` as listed: the phase issues are found in it too. */
  listed: IssueRecord[];
}

/**
 * The spec's tracking issue as the spec says (spec-issue.ts): found by its marker under the
 * labels `harness:spec,spec:<id>` (one list read), created when there is none, its title and
 * body put right when they differ, and the duplicates two racing first syncs can leave
 * closed (the lowest-numbered one is kept, the same rule as plan issues). Its state is left
 * to people: GitHub does not close a parent when its sub-issues are done, and someone closing
 * the spec's issue by hand is saying something harness should not undo.
 */
export async function syncSpecIssue(github: Gateway, input: { spec: Spec; specPath: string; blobBase: string; source?: SpecSource }): Promise<SpecIssueSync> {
  const desired = desiredSpecIssue(input);
  const listed = await github.trackingIssues(input.spec.id);
  const { issue, duplicates } = matchSpecIssue(input.spec.id, listed);
  const closed: number[] = [];
  for (const extra of duplicates) {
    await github.updateIssue(extra.number, { state: 'closed', state_reason: 'duplicate' });
    closed.push(extra.number);
  }
  if (!issue) {
    const created = await github.createIssue(desired);
    return { number: created.number, created: true, updated: false, duplicates: closed, subIssuesTotal: 0, listed };
  }
  const changed = issue.title !== desired.title || (issue.body ?? '') !== desired.body;
  if (changed) await github.updateIssue(issue.number, { title: desired.title, body: desired.body });
  return {
    number: issue.number,
    created: false,
    updated: changed,
    duplicates: closed,
    ...(issue.subIssuesTotal === undefined ? {} : { subIssuesTotal: issue.subIssuesTotal }),
    listed,
  };
}

/**
 * The tracking issue's sub-issues as GitHub has them, when the records cannot be taken at their
 * word: a sync that died between creating a plan issue (its record written with it) and adding
 * it, or a race that left duplicates. GitHub's count (`sub_issues_summary.total`, in the list
 * the sync reads anyway) against the records' says which: equal, and no race to clean up, no
 * read; else one (a parent holds 100 at most). Undefined: go by the records.
 */
export async function actualSubIssues(
  github: Gateway,
  tracking: Pick<SpecIssueSync, 'number' | 'created' | 'subIssuesTotal'>,
  recorded: number,
  race: boolean,
): Promise<Set<number> | undefined> {
  if (tracking.created || (!race && (tracking.subIssuesTotal === undefined || tracking.subIssuesTotal === recorded))) return undefined;
  const ids = await github.subIssueIds(tracking.number);
  return ids === 'unavailable' ? undefined : new Set(ids);
}

/**
 * The plan issues as sub-issues of the spec's tracking issue, one request each (the API has
 * no batch form). Which tracking issue a plan issue was added to is recorded on its marker
 * line (`parent=`), so a sync knows it from the issue list alone, unless GitHub's own list was
 * read (actualSubIssues), which then decides. The first answer that says sub-issues are not
 * there for harness stops every further sub-issue write in this sync, as for the
 * dependencies: the plan issues and their labels stand on their own.
 */
export class SubIssueMirror {
  available = true;
  added = 0;
  removed = 0;
  refused = 0;
  /** Plan issues not added because the tracking issue holds GitHub's most already (SUB_ISSUES_PER_PARENT). */
  overLimit = 0;

  /**
   * `held`: how many plan issues record this parent already (their marker lines say so: no
   * read); `actual`: the parent's sub-issues as GitHub listed them, when they were read.
   */
  constructor(
    private readonly github: Gateway,
    readonly parent: number,
    private held = 0,
    private readonly actual?: ReadonlySet<number>,
  ) {
    if (actual) this.held = actual.size;
  }

  /** Can one more plan issue become a sub-issue? GitHub refuses past SUB_ISSUES_PER_PARENT: no request is spent on that. */
  get hasRoom(): boolean {
    return this.available && this.held < SUB_ISSUES_PER_PARENT;
  }

  /** Make `issue` a sub-issue of the tracking issue, given the parent it records; the parent to record now. */
  async add(issue: { id: number }, recorded: number | undefined): Promise<number | undefined> {
    const member = this.actual ? this.actual.has(issue.id) : recorded === this.parent;
    if (member) return this.parent;
    // A record of this parent that GitHub does not bear out is dropped unless the add below makes it true.
    const kept = recorded === this.parent ? undefined : recorded;
    if (!this.available) return kept;
    if (!this.hasRoom) {
      this.overLimit++;
      return kept;
    }
    // A record naming another issue is a duplicate tracking issue a race left: move it over.
    const outcome = await this.github.addSubIssue(this.parent, issue.id, recorded !== undefined);
    if (outcome === 'done') {
      this.added++;
      this.held++;
      return this.parent;
    }
    if (outcome === 'refused') this.refused++;
    else this.available = false;
    return kept;
  }

  /** An issue GitHub created as a sub-issue of this parent (gateway createSubIssue): counted as added; the parent to record. */
  adopted(): number {
    this.added++;
    this.held++;
    return this.parent;
  }

  /**
   * Take `issue` out of the tracking issue it records. A removed plan's issue is closed as not
   * planned, and GitHub's progress bar counts every closed sub-issue as done: left in, it
   * would show progress that never happened.
   */
  async remove(issue: { id: number }, recorded: number | undefined): Promise<number | undefined> {
    if (recorded === undefined || !this.available) return recorded;
    const outcome = await this.github.removeSubIssue(recorded, issue.id);
    if (outcome === 'done') {
      this.removed++;
      if (recorded === this.parent) this.held--;
      return undefined;
    }
    if (outcome === 'unavailable') this.available = false;
    return recorded;
  }
}
