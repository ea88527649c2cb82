import type { Problem } from '../../core/spec/problem.js';
import { checkFileId } from '../documents/gene.js';
import { parseKnowledge } from '../documents/parse.js';
import { GeneSchema, type Gene } from '../documents/schema.js';

/**
 * A gene file read for decisions (decay, export, audits), fast: a store holds thousands and a
 * YAML parser takes a good part of a millisecond for each. The frontmatter harness writes is a
 * plain subset of YAML (one `key: value` a line, flow lists, block lists of scalars, plain or
 * double-quoted scalars without escapes); that subset is read directly and checked against the
 * same schema. Anything outside it (a nested map, a comment, a quote with escapes, a block
 * scalar) goes to the full parser, so the result is what parseKnowledge gives, never a guess.
 */

export type ReadGene = { gene: Gene } | { problem: Problem };

const PLAIN = /^[A-Za-z0-9_(][A-Za-z0-9_.:+\-/ ,;()'?!]*$/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** A scalar of the subset, or undefined when it is outside it. */
function scalar(raw: string): unknown {
  const v = raw.trim();
  if (v.startsWith('"')) {
    if (v.length < 2 || !v.endsWith('"') || v.slice(1, -1).includes('"') || v.includes('\\')) return undefined;
    return v.slice(1, -1);
  }
  if (NUMBER.test(v)) return Number(v);
  if (v === 'true' || v === 'false') return v === 'true';
  // YAML's plain scalars that are not strings (null, ~, yes in 1.1, .inf, octal, …) and anything with ": " or " #" are left to the parser.
  if (
    !PLAIN.test(v) ||
    v.includes(': ') ||
    v.endsWith(':') ||
    /^(?:null|Null|NULL|~|y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$/.test(v) ||
    /^0[0-7xob]/.test(v) ||
    /^[-+]?\.(?:inf|nan)/i.test(v)
  )
    return undefined;
  return v;
}

function flowList(raw: string): unknown[] | undefined {
  const inner = raw.trim().slice(1, -1).trim();
  if (inner === '') return [];
  if (/[[\]{}]/.test(inner)) return undefined;
  const items: unknown[] = [];
  // Commas inside a quoted item would split it: quoted items with commas go to the parser.
  for (const part of inner.split(',')) {
    const value = scalar(part);
    if (value === undefined) return undefined;
    items.push(value);
  }
  return items;
}

function subset(yaml: string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  let list: unknown[] | undefined;
  const blocks: unknown[][] = [];
  for (const line of yaml.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('  - ') || line.startsWith('- ')) {
      if (!list) return undefined;
      const value = scalar(line.slice(line.indexOf('- ') + 2));
      if (value === undefined) return undefined;
      list.push(value);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0 || line.startsWith(' ') || line.includes('#')) return undefined;
    const key = line.slice(0, colon);
    if (!/^[a-z_]+$/.test(key) || Object.hasOwn(out, key)) return undefined;
    const rest = line.slice(colon + 1).trim();
    list = undefined;
    if (rest === '') {
      list = [];
      blocks.push(list);
      out[key] = list;
    } else if (rest.startsWith('[')) {
      if (!rest.endsWith(']')) return undefined;
      const items = flowList(rest);
      if (!items) return undefined;
      out[key] = items;
    } else {
      const value = scalar(rest);
      if (value === undefined) return undefined;
      out[key] = value;
    }
  }
  // `key:` with nothing under it is null in YAML, not an empty list: the parser says what it means.
  return blocks.some((b) => b.length === 0) ? undefined : out;
}

function full(path: string, text: string): ReadGene {
  const parsed = parseKnowledge('gene', path, text);
  const error = parsed.problems.find((p) => p.severity === 'error');
  if (!parsed.data || error) return { problem: error ?? ({ file: path, line: 1, severity: 'error', code: 'yaml', message: 'not a gene' } as Problem) };
  return { gene: parsed.data };
}

export function readGene(path: string, text: string): ReadGene {
  if (!text.startsWith('---\n')) return full(path, text);
  const close = text.indexOf('\n---\n', 3);
  if (close < 0) return full(path, text);
  const data = subset(text.slice(4, close + 1));
  if (!data) return full(path, text);
  const checked = GeneSchema.safeParse(data);
  if (!checked.success) return full(path, text);
  const gene = checked.data;
  if (checkFileId(path, gene.id, '.gene.md', 1).length > 0 || Date.parse(gene.updated) < Date.parse(gene.created)) return full(path, text);
  return { gene };
}
