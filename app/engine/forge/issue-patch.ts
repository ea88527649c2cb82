import { isManagedLabel, isStatusLabel } from './names.js';
import type { TrackedIssue } from './match-issues.js';

/** The fields of an issue a sync rewrites; absent fields are left alone. */
export interface IssuePatch {
  title?: string;
  body?: string;
  state?: 'open';
  /**
   * harness's own labels to add and to take off, one label at a time: the whole list, written
   * back, would undo a status or a person's label set since the issue was read.
   */
  labels?: { add: string[]; remove: string[] };
}

/**
 * What must change for `actual` to be `desired`, or undefined when nothing must: a PATCH for
 * the title, body and state, and label writes only for harness's own labels that changed
 * (status aside: the scheduler owns it; people's labels are theirs). A plan back in the
 * spec after its issue was closed as not planned gets its issue reopened.
 */
export function issuePatch(desired: { title: string; body: string; labels: readonly string[] }, actual: TrackedIssue): IssuePatch | undefined {
  const patch: IssuePatch = {};
  if (actual.title !== desired.title) patch.title = desired.title;
  if ((actual.body ?? '') !== desired.body) patch.body = desired.body;
  const managed = actual.labels.filter((l) => isManagedLabel(l) && !isStatusLabel(l));
  const add = desired.labels.filter((l) => !managed.includes(l));
  const remove = managed.filter((l) => !desired.labels.includes(l));
  if (add.length > 0 || remove.length > 0) patch.labels = { add, remove };
  if (actual.state === 'closed' && actual.stateReason === 'not_planned') patch.state = 'open';
  return Object.keys(patch).length > 0 ? patch : undefined;
}
