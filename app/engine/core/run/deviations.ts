import picomatch from 'picomatch';
import { PICOMATCH_OPTIONS } from '../graph/glob.js';

export interface Deviation {
  description: string;
  reason: string;
  impact: 'low' | 'medium' | 'high';
  files: string[];
}

/**
 * Files a plan changed that its `files_modified` does not cover. The scheduler keeps
 * plans apart by those globs, so an undeclared write is how two parallel plans collide:
 * it is recorded in the SUMMARY as a deviation for a person to look at.
 */
export function undeclaredWrites(changed: readonly string[], filesModified: readonly string[], ignore: readonly string[] = []): Deviation[] {
  const declared = picomatch([...filesModified], PICOMATCH_OPTIONS);
  const ignored = ignore.length > 0 ? picomatch([...ignore], PICOMATCH_OPTIONS) : () => false;
  const outside = changed.filter((f) => !declared(f) && !ignored(f));
  if (outside.length === 0) return [];
  return [
    {
      description: `Changed ${outside.length === 1 ? 'a file' : `${outside.length} files`} outside files_modified: ${outside.slice(0, 10).join(', ')}${outside.length > 10 ? ', …' : ''}.`,
      reason: 'Not declared in the plan; parallel plans are kept apart only by their declared files.',
      impact: outside.length > 3 ? 'high' : 'medium',
      files: outside,
    },
  ];
}
