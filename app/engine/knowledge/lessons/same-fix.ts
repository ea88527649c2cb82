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
  /** Each statement: the code it names, and its content words. */
  statements: { names: Set<string>; words: Set<string> }[];
}

/** Names of code in a sentence: a quoted span, a flag with its value, a dotted or called name, an identifier with humps or underscores, a setting. */
const CODE =
  /`([^`\n]{2,80})`|(?<![\w-])(--?[A-Za-z][\w-]*(?:[= ][\w.:-]+)?)|\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?)|\b([a-z]+[A-Z]\w*|[A-Z][a-z0-9]+[A-Z]\w*)\b|\b(\w+_\w+)\b|\b([A-Z][A-Z0-9_]{1,}=[^\s;,.)]+)|\b(\w+\(\))/g;

function words(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/**
 * The names of code a statement of a fix gives, each as its last two dotted parts and without
 * a call's brackets: `django.utils.timezone.now()` and `timezone.now` are one name, as two
 * people writing the same fix would mean them.
 */
export function codeNames(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.slice(0, 2000).matchAll(CODE)) {
    const raw = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? m[6] ?? m[7] ?? '').trim().toLowerCase().replace(/\s+/g, ' ').replace(/\(\)$/, '');
    const name = /^[\w.]+$/.test(raw) ? raw.split('.').slice(-2).join('.') : raw;
    if (name.length >= 2) out.add(name);
  }
  return out;
}

/** Words that say nothing of which fix it is. */
const PLAIN = new Set(
  'the a an and or of in on at to for with from by into so that this it its is are be as not no instead than then when each every all any use run make add so'.split(
    ' ',
  ),
);

/** The content words of a statement, stemmed roughly: what two wordings of one fix share. */
function contentWords(text: string): Set<string> {
  return new Set(
    words(text)
      .split(' ')
      .filter((w) => w.length > 2 && !PLAIN.has(w))
      .map((w) => w.replace(/(?:ing|ed|es|s)$/, '')),
  );
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : [];
}

/** Added lines too common to tell a fix: brackets, imports, a closing word. */
const TRIVIAL = /^(?:[\s{}()[\];,]*|import\b.*|from\s+\S+\s+import\b.*|package\s+\w+|use\s+[\w:]+;?|require\(.*\);?|end|return\b.*|\}\s*else\s*\{?)$/;

/** The fix the repairs among some signals record: their metadata.fix, and the agents' accounts of a repair. */
export function fixEvidence(signals: readonly SignalRecord[]): FixEvidence {
  const out: FixEvidence = { texts: new Set(), lines: new Set(), statements: [] };
  const say = (text: string) => {
    const w = words(text);
    if (w === '' || out.texts.has(w)) return;
    out.texts.add(w);
    out.statements.push({ names: codeNames(text), words: contentWords(text) });
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
/** With one name in common, the share of their content words two statements must have in common too. */
const WORD_OVERLAP = 0.35;
/** With no code named on either side, the share of their content words that makes them one fix. */
const PLAIN_OVERLAP = 0.6;

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const shared = [...a].filter((x) => b.has(x)).length;
  const union = new Set([...a, ...b]).size;
  return union === 0 ? 0 : shared / union;
}

/** Why two failures' fixes are the same fix, or undefined when nothing says they are. */
export function sameFix(a: FixEvidence, b: FixEvidence): string | undefined {
  for (const t of a.texts) if (b.texts.has(t)) return 'the same fix, in the same words';
  // What the agents said of the fix is the fix; a line both diffs added (an assignment, a setting) tells only where neither said anything.
  if (a.statements.length === 0 || b.statements.length === 0) {
    for (const l of a.lines) if (b.lines.has(l)) return `the same change (\`${l.length > 80 ? `${l.slice(0, 79)}…` : l}\`)`;
    return undefined;
  }
  for (const x of a.statements) {
    for (const y of b.statements) {
      const shared = [...x.names].filter((n) => y.names.has(n));
      const union = new Set([...x.names, ...y.names]).size;
      if (shared.length >= SHARED_NAMES && shared.length / union >= NAME_OVERLAP)
        return `the same fix in other words (both name ${shared
          .slice(0, 3)
          .map((n) => `\`${n}\``)
          .join(', ')})`;
      // One name in common, and much of what they say around it: `tmp_path` in two sentences that both speak of workers sharing a directory.
      if (shared.length >= 1 && jaccard(x.words, y.words) >= WORD_OVERLAP)
        return `the same fix in other words (both name \`${shared[0]}\` and say much the same around it)`;
      // Neither names any code: the same words, nearly all of them.
      if (x.names.size === 0 && y.names.size === 0 && jaccard(x.words, y.words) >= PLAIN_OVERLAP) return 'the same fix in nearly the same words';
    }
  }
  return undefined;
}

/** Whether there is any fix on record. */
export function hasFix(f: FixEvidence): boolean {
  return f.texts.size > 0 || f.lines.size > 0;
}

/** A fix as one statement says it (a lesson's Recommendation): what it recommends now, not every fix its evidence ever recorded. */
export function statedFix(text: string): FixEvidence {
  const first = (text.split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ').trim();
  const w = words(first);
  return w === ''
    ? { texts: new Set(), lines: new Set(), statements: [] }
    : { texts: new Set([w]), lines: new Set(), statements: [{ names: codeNames(first), words: contentWords(first) }] };
}

/**
 * Whether a repair made after a fix failed records another fix: it names code the fix did not
 * (`@mock_aws` where the lesson said `@mock_s3`; mentioning the old name as gone does not make it
 * the same), or, where neither names code, it is not the same fix in words.
 */
export function fixChanged(old: FixEvidence, fresh: FixEvidence): boolean {
  const known = new Set(old.statements.flatMap((x) => [...x.names]));
  const named = fresh.statements.filter((x) => x.names.size > 0);
  if (known.size > 0 && named.length > 0) return named.some((x) => [...x.names].some((n) => !known.has(n)));
  return sameFix(old, fresh) === undefined;
}
