import { createHash } from 'node:crypto';

/** Folder and branch names stay short enough to read in a branch list. */
export const SLUG_MAX = 48;

/**
 * A question or a pattern as a slug (lowercase a-z, 0-9, single `-`; the knowledge layout's
 * folder rule): accents dropped, cut at a word boundary. Text with no latin letters or digits
 * at all gets a name from its hash, so that the same text always gives the same slug, which
 * is what makes a knowledge PR for it findable again.
 */
export function slug(text: string, max: number = SLUG_MAX): string {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
  let out = '';
  for (const word of words) {
    const next = out === '' ? word : `${out}-${word}`;
    if (next.length > max) {
      if (out === '') out = word.slice(0, max);
      break;
    }
    out = next;
  }
  if (out !== '') return out;
  return `h-${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
}
