import { problem, type Problem } from '../spec/problem.js';

export interface Section {
  /** Heading level: 2 for "## ". */
  level: number;
  /** The heading's text, as written. */
  title: string;
  /** File line of the heading. */
  line: number;
  /** The lines under the heading, up to the next heading of the same or a higher level. */
  content: string;
}

const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/;
const FENCE = /^[ \t]{0,3}(```+|~~~+)/;

/** The body's headings with their content, skipping anything inside fenced code blocks. */
export function sections(body: string, bodyLine: number): Section[] {
  const lines = body.split('\n');
  const found: { level: number; title: string; index: number }[] = [];
  let fence: string | undefined;
  lines.forEach((text, index) => {
    const f = FENCE.exec(text);
    if (f) {
      const marker = f[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return;
    }
    if (fence !== undefined) return;
    const h = HEADING.exec(text);
    if (h) found.push({ level: h[1]!.length, title: h[2]!, index });
  });
  return found.map((h, i) => {
    let end = lines.length;
    for (let k = i + 1; k < found.length; k++) {
      if (found[k]!.level <= h.level) {
        end = found[k]!.index;
        break;
      }
    }
    return { level: h.level, title: h.title, line: bodyLine + h.index, content: lines.slice(h.index + 1, end).join('\n') };
  });
}

function normalize(title: string): string {
  return title
    .toLowerCase()
    .replace(/[:.]+$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The first "## " section with this title (case and trailing colon ignored). */
export function findSection(all: readonly Section[], title: string): Section | undefined {
  const want = normalize(title);
  return all.find((s) => s.level === 2 && normalize(s.title) === want);
}

/**
 * Each required "## " section must be present and say something. `template` names the
 * template to copy a missing section from.
 */
export function requireSections(file: string, body: string, bodyLine: number, required: readonly string[], template: string): Problem[] {
  const all = sections(body, bodyLine);
  const problems: Problem[] = [];
  for (const title of required) {
    const section = findSection(all, title);
    if (!section) {
      problems.push(problem(file, bodyLine, 'field-missing', `missing the section "## ${title}"; add it to the body (see ${template})`));
    } else if (section.content.replace(/<!--[\s\S]*?-->/g, '').trim() === '') {
      problems.push(problem(file, section.line, 'field-value', `the section "## ${title}" is empty; write what belongs there`));
    }
  }
  return problems;
}
