import picomatch from 'picomatch';
import { PICOMATCH_OPTIONS } from '../graph/glob.js';

/** At most this many files are named where a line is read (a reason, a PR's section); the SUMMARY lists them all. */
const NAMED = 10;

/** `a, b, c` for the first files, `…` when there are more. */
export function namedFiles(files: readonly string[]): string {
  return `${files
    .slice(0, NAMED)
    .map((f) => `\`${f}\``)
    .join(', ')}${files.length > NAMED ? `, … (${files.length} in all)` : ''}`;
}

/** What a verified plan that wrote outside its files_modified says where people look (its PR, its check run): the files, why it matters, how to be strict. */
export function deviationNote(files: readonly string[]): string {
  return `This plan changed files its \`files_modified\` does not declare: ${namedFiles(files)}. harness keeps plans that run at the same time apart by the files they declare, so another plan may have changed them too: review them before merging. \`strict_files: true\` in \`.github/harness.yml\` fails such a plan instead.`;
}

/** Why a plan fails under `strict_files: true`, the same locally and on a runner. */
export function strictFilesReason(files: readonly string[]): string {
  return `wrote outside its files_modified, which strict_files in .github/harness.yml does not allow: ${namedFiles(files)}. Declare the files in the plan, or take the writes out, and retry`;
}

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
