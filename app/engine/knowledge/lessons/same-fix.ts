import type { SignalRecord } from '../signals/signal-record.js';

/**
 * What the repairs of a failure record as its fix, in a form two failures can be compared by:
 * one cause often shows in two wordings (lib/pq's `pq: relation "orders" does not exist` and
 * pgx's `ERROR: relation "orders" does not exist (SQLSTATE 42P01)`), and what tells that they
 * are one cause is that the same fix put both right. The fix is the same when the agents said
 * it in the same words, when the passing attempts' diffs added the same line, or when what
 * they said names the same code (`TestMain`, `testdb.Migrate`, `-p 1`): at least two such
 * names, and most of them shared.
 */
export interface FixEvidence {
  /** Each statement of the fix, in lowercase words. */
  texts: Set<string>;
  /** Each added line of a passing attempt's diff, whitespace collapsed. */
  lines: Set<string>;
  /** The code each statement names. */
  names: Set<string>[];
}

/** Names of code in a sentence: a quoted span, a flag with its value, a dotted or called name, an identifier with humps or underscores, a setting. */
const CODE = /`([^`\n]{2,80})`|(?<![\w-])(--?[A-Za-z][\w-]*(?:[= ][\w.:-]+)?)|\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?)|\b([a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*)\b|\b(\w+_\w+)\b|\b([A-Z][A-Z0-9_]{1,}=\S+)|\b(\w+\(\))/g;

function words(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
}

/** The names of code a statement of a fix gives. */
export function codeNames(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.slice(0, 2000).matchAll(CODE)) {
    const name = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? m[6] ?? m[7] ?? '').trim().toLowerCase().replace(/\s+/g, ' ');
    if (name.length >= 2) out.add(name);
  }
  return out;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : [];
}

/** Added lines too common to tell a fix: brackets, imports, a closing word. */
const TRIVIAL = /^(?:[\s{}()[\];,]*|import\b.*|from\s+\S+\s+import\b.*|package\s+\w+|use\s+[\w:]+;?|require\(.*\);?|end|return\b.*|\}\s*else\s*\{?)$/;

/** The fix the repairs among some signals record: their metadata.fix, and the agents' accounts of a repair. */
export function fixEvidence(signals: readonly SignalRecord[]): FixEvidence {
  const out: FixEvidence = { texts: new Set(), lines: new Set(), names: [] };
  const say = (text: string) => {
    const w = words(text);
    if (w === '' || out.texts.has(w)) return;
    out.texts.add(w);
    const names = codeNames(text);
    if (names.size > 0) out.names.push(names);
  };
  for (const s of signals) {
    const m = (s.signal.metadata ?? {}) as Record<string, unknown>;
    if (s.signal.type === 'repair' && m.fix !== null && typeof m.fix === 'object') {
      const fix = m.fix as Record<string, unknown>;
      for (const said of strings(fix.said)) say(said);
      if (Array.isArray(fix.added)) {
        for (const a of fix.added) {
          const line = typeof (a as { line?: unknown } | null)?.line === 'string' ? (a as { line: string }).line.replace(/\s+/g, ' ').trim() : '';
          if (line.length >= 6 && !TRIVIAL.test(line)) out.lines.add(line);
        }
      }
    } else if (m.repairs === true) {
      const said = s.text?.happened ?? s.summary;
      if (said) say(said.split('\n')[0]!);
    }
  }
  return out;
}

/** Names shared by two statements of a fix before they are the same fix, and the share of all their names. */
const SHARED_NAMES = 2;
const NAME_OVERLAP = 0.5;

/** Why two failures' fixes are the same fix, or undefined when nothing says they are. */
export function sameFix(a: FixEvidence, b: FixEvidence): string | undefined {
  for (const t of a.texts) if (b.texts.has(t)) return 'the same fix, in the same words';
  for (const l of a.lines) if (b.lines.has(l)) return `the same change (\`${l.length > 80 ? `${l.slice(0, 79)}…` : l}\`)`;
  for (const x of a.names) {
    for (const y of b.names) {
      const shared = [...x].filter((n) => y.has(n));
      const union = new Set([...x, ...y]).size;
      if (shared.length >= SHARED_NAMES && shared.length / union >= NAME_OVERLAP) return `the same fix in other words (both name ${shared.slice(0, 3).map((n) => `\`${n}\``).join(', ')})`;
    }
  }
  return undefined;
}

/** Whether there is any fix on record. */
export function hasFix(f: FixEvidence): boolean {
  return f.texts.size > 0 || f.lines.size > 0;
}
