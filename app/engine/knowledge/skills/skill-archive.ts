import { parseKnowledge } from '../documents/parse.js';
import { setFrontmatter } from '../documents/set-frontmatter.js';

/**
 * A skill as it is kept in the archive (`skills-archived/<name>/SKILL.md`): the same file, with
 * when and why it was archived under metadata and a Changelog line, so that deduplication
 * still finds it and a person reading it knows why it is there. A file whose frontmatter cannot
 * be edited is kept as it is, with the Changelog line: the archive never loses a rejected skill.
 */
export function archivedSkill(path: string, text: string, o: { day: string; reason: string; by?: string }): string {
  const reason = o.reason.replace(/\s+/g, ' ').trim().slice(0, 500);
  const metadata = parseKnowledge('skill', path, text).data?.metadata ?? {};
  const edited = setFrontmatter(path, text, { metadata: { ...metadata, 'archived-on': o.day, 'archived-reason': reason } });
  const base = edited.ok ? edited.text : text;
  const line = `- archived on ${o.day}${o.by ? ` by @${o.by}` : ''}: ${reason}`;
  return /\n## Changelog[ \t]*\n/.test(base)
    ? base.replace(/(\n## Changelog[ \t]*\n(?:[ \t]*\n)?)/, `$1${line}\n`)
    : `${base.trimEnd()}\n\n## Changelog\n\n${line}\n`;
}

/** The archive's path for an active skill's path. */
export function archivePath(path: string): string {
  return path.replace(/(^|\/)skills\/([^/]+)\/SKILL\.md$/, '$1skills-archived/$2/SKILL.md');
}
