import { comparePlanIds } from '../core/spec/model.js';
import { parseMarker, withMarkerRecord } from './plan-issue.js';

/**
 * Which of a plan's dependencies harness has mirrored as GitHub's native "blocked by"
 * relation, recorded on the marker line (`blocked_by=01-01,01-02`). With the record
 * in the body, a sync knows the native edges from the issue list alone, instead of one
 * dependency read per issue; the marker line is outside the hash, so recording never makes
 * the issue look edited. An edge someone removes by hand stays removed: the `needs:` labels,
 * not the native relation, are what the scheduler reads.
 */
export function mirroredEdges(body: string | null | undefined): string[] {
  return parseMarker(body)?.blockedBy ?? [];
}

/** The body with its marker line recording exactly `plans` (none: no record at all). */
export function withMirroredEdges(body: string, plans: Iterable<string>): string {
  const sorted = [...new Set(plans)].sort(comparePlanIds);
  return withMarkerRecord(body, 'blocked_by', sorted.length > 0 ? sorted.join(',') : undefined);
}
