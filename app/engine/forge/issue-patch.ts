import { isManagedLabel, isStatusLabel } from './names.js';
import type { TrackedIssue } from './match-issues.js';

/** The fields of an issue a sync rewrites; absent fields are left alone. */
export interface IssuePatch {
  title?: string;
  body?: string;
  /** The whole list: GitHub replaces an issue's labels with what is sent. */
  labels?: string[];
  state?: 'open';
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((x) => set.has(x));
}

/**
 * What must change for `actual` to be `desired`, or undefined when nothing must: the one
 * PATCH a changed plan costs. Labels are sent only when harness's own changed, and then
 * with people's labels and the current status kept (the scheduler owns status). A plan
 * back in the spec after its issue was closed as not planned gets its issue reopened.
 */
export function issuePatch(desired: { title: string; body: string; labels: readonly string[] }, actual: TrackedIssue): IssuePatch | undefined {
  const patch: IssuePatch = {};
  if (actual.title !== desired.title) patch.title = desired.title;
  if ((actual.body ?? '') !== desired.body) patch.body = desired.body;
  const managed = actual.labels.filter((l) => isManagedLabel(l) && !isStatusLabel(l));
  if (!sameSet(managed, desired.labels)) {
    patch.labels = [...desired.labels, ...actual.labels.filter((l) => !isManagedLabel(l) || isStatusLabel(l))];
  }
  if (actual.state === 'closed' && actual.stateReason === 'not_planned') patch.state = 'open';
  return Object.keys(patch).length > 0 ? patch : undefined;
}
