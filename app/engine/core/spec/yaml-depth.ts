/**
 * How deeply YAML nests, measured before any parser sees it. Both parsers recurse once per
 * level, so a few kilobytes of "[[[[…" or "- - - …" (well under the frontmatter size cap)
 * overflow the stack; no real frontmatter comes near the limit below.
 */
export const MAX_YAML_DEPTH = 64;

export interface TooDeep {
  /** 1-based line of `raw` where the limit is first passed. */
  line: number;
  depth: number;
}

/**
 * The first line where `raw` nests deeper than `max`: flow brackets open across lines,
 * plus the "- " and "? " indicators that begin a line (each opens a level of its own).
 * Quoted strings and comments are skipped; block scalars may be over-counted, which only
 * matters for a block scalar of more than `max` unbalanced brackets, and then the author
 * is told where.
 */
export function yamlTooDeep(raw: string, max = MAX_YAML_DEPTH): TooDeep | undefined {
  return shallow(raw, max) ? undefined : walkDepth(raw, max);
}

/** yamlTooDeep's walk, character by character, without the shortcut (tests compare the two). */
export function walkDepth(raw: string, max = MAX_YAML_DEPTH): TooDeep | undefined {
  let flow = 0;
  let line = 1;
  let atLineStart = true;
  let compact = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 10 /* \n */) {
      line++;
      atLineStart = true;
      compact = 0;
      continue;
    }
    if (atLineStart) {
      if (c === 32 || c === 9) continue;
      // "- x", "- - x", "? x": each indicator followed by a space is one more level.
      if ((c === 45 /* - */ || c === 63) /* ? */ && (raw.charCodeAt(i + 1) === 32 || raw.charCodeAt(i + 1) === 9)) {
        compact++;
        if (flow + compact > max) return { line, depth: flow + compact };
        i++;
        continue;
      }
      atLineStart = false;
    }
    if (c === 35 /* # */ && (i === 0 || raw.charCodeAt(i - 1) === 32 || raw.charCodeAt(i - 1) === 10)) {
      while (i + 1 < raw.length && raw.charCodeAt(i + 1) !== 10) i++;
    } else if (c === 34 /* " */ || c === 39 /* ' */) {
      // A quote opens a string only where a scalar may start; elsewhere it is a character of a plain scalar.
      const before = i === 0 ? 32 : raw.charCodeAt(i - 1);
      if (before === 32 || before === 9 || before === 91 || before === 123 || before === 44 || before === 58 || before === 10) {
        const end = raw.indexOf(String.fromCharCode(c), i + 1);
        if (end === -1) return undefined; // the parser reports the unclosed string
        for (let k = i + 1; k < end; k++) if (raw.charCodeAt(k) === 10) line++;
        i = end;
      }
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      flow++;
      if (flow + compact > max) return { line, depth: flow + compact };
    } else if ((c === 93 /* ] */ || c === 125) /* } */ && flow > 0) {
      flow--;
    }
  }
  return undefined;
}

/** Two indicators that open a level each on one line: "- - x", "- ? x", "? - x". */
const TWO_INDICATORS = /[-?][ \t]+[-?][ \t]/;

/**
 * A bound that settles nearly every frontmatter without the walk above: depth is flow
 * brackets open plus the indicators that begin a line, so with no line beginning with two
 * indicators it is at most one more than the brackets that open anywhere in the text,
 * quoted or not. Frontmatter has a few of them.
 */
function shallow(raw: string, max: number): boolean {
  if (TWO_INDICATORS.test(raw)) return false;
  // One level for an indicator, one for each bracket.
  let bound = 1;
  if (bound > max) return false;
  for (let at = raw.indexOf('['); at !== -1; at = raw.indexOf('[', at + 1)) if (++bound > max) return false;
  for (let at = raw.indexOf('{'); at !== -1; at = raw.indexOf('{', at + 1)) if (++bound > max) return false;
  return true;
}
