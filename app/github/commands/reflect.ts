import { KNOWLEDGE_ROOT } from '../../engine/forge/knowledge-draft.js';
import { lessonDraft, lessonSlug } from '../../engine/forge/lesson-draft.js';
import { signalRecord } from '../../engine/forge/signal-record.js';
import { reflect as recurringPatterns, type Pattern, type SignalRecord } from '../../engine/knowledge/reflect.js';
import type { DirectoryEntry } from '../../gateway/contents.js';
import type { TreeEntry } from '../../gateway/trees.js';
import { loadTemplate } from '../../machine/templates.js';
import type { Invocation } from './invocation.js';
import { openKnowledgePr } from './knowledge.js';

/**
 * Each signal is one blob read (GET /git/blobs/{sha}); the newest this many are read, which
 * keeps a reflection within a few percent of an installation's hourly request budget.
 */
export const MAX_SIGNALS_READ = 300;

/** Lesson PRs one reflection opens at most: reviewers take a few at a time; the next reflection offers the rest. */
export const MAX_LESSON_PRS = 5;

/**
 * `/harness reflect`: reads the signals under `.harness/knowledge/signals/` on the default
 * branch, finds the recurring patterns (engine/knowledge/reflect.ts) and opens a lesson PR
 * for each one that has no lesson yet. The reads: GET /contents/.harness/knowledge (the
 * folder's entries, with the tree sha of `signals/` and `lessons/`), GET /git/trees/{sha}
 * ?recursive=1 for each, and one GET /git/blobs/{sha} per signal.
 */
export async function reflect(inv: Invocation): Promise<string> {
  const folders = await knowledgeFolders(inv);
  const signalsDir = folders.find((e) => e.name === 'signals' && e.type === 'dir');
  if (!signalsDir) return `I found no signals to reflect on: there is no \`${KNOWLEDGE_ROOT}/signals/\` on \`${inv.defaultBranch}\` yet.`;

  const files = (await treeBlobs(inv, signalsDir.sha))
    .filter((e) => e.path.endsWith('.signal.md'))
    // Signals are filed by date and timestamp, so the file name orders them; newest first.
    .sort((a, b) => basename(b.path).localeCompare(basename(a.path)) || b.path.localeCompare(a.path))
    .slice(0, MAX_SIGNALS_READ);
  const records: SignalRecord[] = [];
  const unreadable: string[] = [];
  for (const f of files) {
    const path = `${KNOWLEDGE_ROOT}/signals/${f.path}`;
    const read = signalRecord(path, new TextDecoder().decode(await inv.github.blob(f.sha)));
    if ('signal' in read) records.push(read);
    else unreadable.push(`\`${read.file}\`: ${read.problem}`);
  }

  const lines = [`Read ${records.length} signal${records.length === 1 ? '' : 's'} under \`${KNOWLEDGE_ROOT}/signals/\`${files.length === MAX_SIGNALS_READ ? ` (the newest ${MAX_SIGNALS_READ})` : ''}.`];
  if (unreadable.length > 0) lines.push(`${unreadable.length} could not be read and were left out: ${unreadable.slice(0, 5).join('; ')}${unreadable.length > 5 ? '; …' : ''}`);
  const patterns = recurringPatterns(records);
  if (patterns.length === 0) {
    lines.push('', 'Nothing to distil yet: no two signals of one type share a tag.');
    return lines.join('\n');
  }

  const lessonsDir = folders.find((e) => e.name === 'lessons' && e.type === 'dir');
  const filed = new Set(lessonsDir ? (await treeBlobs(inv, lessonsDir.sha)).map((e) => basename(e.path).replace(/\.lesson\.md$/, '')) : []);
  const template = await loadTemplate('lesson.md');
  lines.push('', `Found ${patterns.length} recurring pattern${patterns.length === 1 ? '' : 's'}:`);
  let opened = 0;
  for (const pattern of patterns) {
    const slug = lessonSlug(pattern);
    if (filed.has(slug)) {
      lines.push(`- ${describe(pattern)}: a lesson \`${slug}\` is filed already`);
      continue;
    }
    if (opened === MAX_LESSON_PRS) {
      lines.push(`- ${describe(pattern)}: left for the next reflection (${MAX_LESSON_PRS} lesson PRs at a time)`);
      continue;
    }
    const pr = await openKnowledgePr(inv, lessonDraft({ template, pattern, today: inv.now() }));
    if (pr.state === 'opened') opened++;
    const how = { opened: 'opened', open: 'already open', merged: 'merged already', closed: 'closed without merging' }[pr.state];
    lines.push(`- ${describe(pattern)}: lesson PR #${pr.number} (${how})`);
  }
  return lines.join('\n');
}

function describe(pattern: Pattern): string {
  return `${pattern.signals.length} \`${pattern.type}\` signals tagged ${pattern.tags.map((t) => `\`${t}\``).join(', ')}`;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The entries of `.harness/knowledge/` on the default branch; none when it does not exist. */
async function knowledgeFolders(inv: Invocation): Promise<DirectoryEntry[]> {
  return (await inv.github.directory(KNOWLEDGE_ROOT, inv.defaultBranch)) ?? [];
}

/** Every file below a tree, paths relative to it (GET /git/trees/{sha}?recursive=1). */
async function treeBlobs(inv: Invocation, sha: string): Promise<TreeEntry[]> {
  const tree = await inv.github.tree(sha, true);
  if (tree.truncated) inv.log.warn(`the tree ${sha} is larger than GitHub returns at once; reflecting on the part it returned`);
  return tree.entries.filter((e) => e.type === 'blob');
}
