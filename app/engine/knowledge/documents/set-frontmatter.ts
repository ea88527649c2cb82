import { isMap, parseDocument } from 'yaml';
import { problem, type Problem } from '../../core/spec/problem.js';

const OPENING = /^---[ \t]*$/;
const CLOSING = /\n(?:---|\.\.\.)[ \t]*(?:\n|$)/;

export type FrontmatterEdit = { ok: true; text: string } | { ok: false; problem: Problem };

/**
 * Set some frontmatter keys of a Markdown document written by someone else (an agent, a
 * person), leaving every other key, its comments and the body as they were: the keys harness
 * owns are made right rather than argued about. `undefined` removes a key. A document whose
 * frontmatter cannot be read is not guessed at: the problem says where it is.
 */
export function setFrontmatter(file: string, text: string, values: Readonly<Record<string, unknown>>): FrontmatterEdit {
  const normal = (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text).replace(/\r\n?/g, '\n');
  const firstEnd = normal.indexOf('\n');
  if (firstEnd === -1 || !OPENING.test(normal.slice(0, firstEnd))) {
    return {
      ok: false,
      problem: problem(file, 1, 'frontmatter-missing', 'no YAML frontmatter: start the file with a line "---", the keys, and a closing "---"'),
    };
  }
  const rest = normal.slice(firstEnd);
  const close = CLOSING.exec(rest);
  if (!close)
    return {
      ok: false,
      problem: problem(file, 1, 'frontmatter-unclosed', 'frontmatter opened on line 1 is never closed: add a line "---" after the last key'),
    };
  const yaml = rest.slice(1, close.index + 1);
  const body = rest.slice(close.index + close[0].length);
  const doc = parseDocument(yaml, { uniqueKeys: true, prettyErrors: false });
  const error = doc.errors[0];
  if (error) {
    const line = 1 + yaml.slice(0, error.pos[0]).split('\n').length;
    return { ok: false, problem: problem(file, line, 'yaml', `malformed YAML: ${error.message.split('\n')[0]}`) };
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    return { ok: false, problem: problem(file, 2, 'field-type', 'frontmatter must be a mapping of keys to values, like "spike: my-question"') };
  }
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) doc.delete(key);
    else doc.set(key, value);
  }
  return { ok: true, text: `---\n${doc.toString({ lineWidth: 0, flowCollectionPadding: false })}---\n${body}` };
}
