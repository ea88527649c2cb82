import type { ParseOptions } from '../../core/documents/parse-with.js';

/** Where each kind's folder sits in the knowledge layout (docs/design.md, Knowledge). */
export const FOLDER_PATTERNS = {
  skill: /(?:^|\/)skills(?:-archived)?\/([^/]+)\/SKILL\.md$/,
  spike: /(?:^|\/)spikes\/[^/]+\/([^/]+)\/(?:HYPOTHESIS|EXPERIMENT|DECISION)\.md$/,
  lesson: /(?:^|\/)lessons\/([^/]+)\/[^/]+\.lesson\.md$/,
} as const;

/** The folder a document must match: the one given, else the one its path shows, else none. */
export function folderOf(file: string, options: ParseOptions, kind: keyof typeof FOLDER_PATTERNS): string | undefined {
  if (options.folder !== undefined) return options.folder;
  return FOLDER_PATTERNS[kind].exec(file)?.[1];
}
