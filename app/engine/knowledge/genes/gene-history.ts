import { setFrontmatter, type FrontmatterEdit } from '../documents/set-frontmatter.js';

/**
 * A gene file changed by its lifecycle: the keys harness owns set, and one line added to its
 * History section, so that the file itself tells what happened to it and why (the trajectory
 * tells it in order across the store).
 */
export function changeGene(file: string, text: string, values: Readonly<Record<string, unknown>>, historyLine: string): FrontmatterEdit {
  const edited = setFrontmatter(file, text, values);
  if (!edited.ok) return edited;
  return { ok: true, text: addHistory(edited.text, historyLine) };
}

const PLACEHOLDER = /\{\{\s*history\s*\}\}\n?/;

/** `- line` at the end of the History section (made when missing); an unfilled `{{history}}` gives way to it. */
export function addHistory(text: string, line: string): string {
  const entry = `- ${line.replace(/\s+/g, ' ').trim()}\n`;
  const heading = /^## History[ \t]*$/m.exec(text);
  if (!heading) return `${text.replace(/\n*$/, '\n')}\n## History\n\n${entry}`;
  const start = heading.index + heading[0].length;
  const next = /^## /m.exec(text.slice(start));
  const end = next ? start + next.index : text.length;
  let section = text.slice(start, end).replace(PLACEHOLDER, '');
  section = `${section.replace(/\s*$/, '')}\n${section.trim() === '' ? '\n' : ''}${entry}`;
  return `${text.slice(0, start)}${section}${next ? '\n' : ''}${text.slice(end)}`;
}
