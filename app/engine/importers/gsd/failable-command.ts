/**
 * A GSD `<verify>` command as a check that can fail. Authors write for a person watching:
 * `npx tsc --noEmit 2>&1 | head -20 && grep -rn 'toFixed' src/ || echo "none found"`. Run by
 * sh as it is, its status is head's and echo's, always 0: a check that cannot fail. Each part
 * of the `&&`/`||`/`;` chain is read for what its author meant:
 *
 * - a filter on a build's or a test's output (`| grep -E "FAIL|Error"`) is for the eye: its
 *   status is the filter's, 0 exactly when something failed; the command's own is kept;
 * - a display trim at a pipeline's end (`| head -20`, `| tail -5`, `| wc -l`) takes the status
 *   away: for a build or a test (`tsc`, `bun run build`) the status is given back, without the
 *   trim and the filters before it (`| grep -E "error"`), as the author expected it to pass;
 *   a listing so trimmed (`grep -rn … | head`) was only looked at, and is left out;
 * - `|| echo "No hardcoded formats found"` after a search says the search must find nothing:
 *   it becomes `! grep …`; after anything else the fallback is left out (`|| true` too);
 * - an `echo` joined by `&&` or `;` says nothing of the status, and is left out; `a; b` keeps
 *   both as `a && b`.
 *
 * Undefined when nothing that can fail is left.
 */

/** Programs that only show what is there: their status says nothing unless asked to (`grep -q`). */
const LISTINGS = new Set(['grep', 'rg', 'ls', 'cat', 'find', 'wc', 'head', 'tail', 'sed', 'awk', 'tree', 'git']);
/** Stages that end a pipeline for a person's eyes; the status becomes theirs. */
const TRIMS = new Set(['head', 'tail', 'wc', 'sort', 'uniq', 'cat', 'tee', 'less', 'more', 'column']);
/** Stages that filter a command's output for display. */
const FILTERS = new Set(['grep', 'rg', 'sed', 'awk', 'cut', 'tr']);
/** A filter asked for its status (`grep -q`, `grep -c`), not its lines: a check the author meant. */
const ASKS_STATUS = /^\s*(?:grep|rg)\b.*\s-[a-zA-Z]*[qcl]/;
/** Segments that report, never check. */
const NOISE = /^(?:echo|printf|true|:|exit\s+0)\b/;
/** What a fallback says when the search before it was meant to find nothing. */
const ABSENCE = /\b(?:no|none|not found|nothing|clean|pass(?:ed)?|ok|closed|zero)\b/i;

type Operator = '&&' | '||' | ';';

interface Segment {
  text: string;
  /** The operator joining it to the segment before (undefined for the first). */
  op?: Operator;
}

export function failableCommand(command: string): string | undefined {
  const segments = splitTop(command.trim(), ['&&', '||', ';']);
  if (segments === undefined) return command.trim() || undefined;
  const kept: Segment[] = [];
  for (const segment of segments) {
    const text = segment.text.trim();
    if (text === '') continue;
    if (NOISE.test(text) && (splitTop(text, ['|'])?.length ?? 1) === 1) {
      // A fallback after a search that must find nothing: the search, negated.
      if (segment.op === '||' && kept.length > 0) {
        const last = kept[kept.length - 1]!;
        if (isListing(last.text) && firstProgram(last.text) !== 'ls' && ABSENCE.test(text) && !last.text.startsWith('!')) last.text = `! ${last.text}`;
      }
      continue;
    }
    const shaped = shapePipeline(text);
    if (shaped === undefined) continue;
    kept.push({ text: shaped, ...(segment.op ? { op: segment.op === ';' ? '&&' : segment.op } : {}) });
  }
  if (kept.length === 0) return undefined;
  return kept.map((s, i) => (i === 0 ? s.text : `${s.op ?? '&&'} ${s.text}`)).join(' ');
}

/** One pipeline: its display trim taken off; undefined when it was only a listing to look at. */
function shapePipeline(text: string): string | undefined {
  const stages = splitTop(text, ['|']);
  if (stages === undefined) return text;
  const parts = stages.map((s) => s.text.trim());
  let masked = false;
  while (parts.length > 1 && TRIMS.has(firstProgram(parts[parts.length - 1]!))) {
    parts.pop();
    masked = true;
  }
  if (masked && isListing(parts[0]!)) return undefined;
  // A build or a test whose output was filtered for the eye (`| grep -E "FAIL|Error"`): its own status is the check, not the filter's.
  if (!isListing(parts[0]!))
    while (parts.length > 1 && FILTERS.has(firstProgram(parts[parts.length - 1]!)) && !ASKS_STATUS.test(parts[parts.length - 1]!)) parts.pop();
  // stderr joined to stdout only to feed the stages taken off: harness keeps both streams itself.
  if (parts.length < stages.length) parts[parts.length - 1] = parts[parts.length - 1]!.replace(/\s*2>&1\s*$/, '');
  return parts.join(' | ');
}

function isListing(text: string): boolean {
  const program = firstProgram(text.replace(/^!\s*/, ''));
  return LISTINGS.has(program) && !/\s-[a-zA-Z]*q/.test(text.split('|')[0]!);
}

function firstProgram(text: string): string {
  const words = text.trim().split(/\s+/);
  // Variables set for the command (`CI=1 npm test`) are not the program.
  const program = words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) ?? '';
  return program.replace(/^\(+/, '');
}

/**
 * `text` split at the operators outside quotes, parentheses and escapes; undefined when its
 * quoting does not close (a command harness cannot read is left as it is).
 */
function splitTop(text: string, operators: readonly string[]): { text: string; op?: Operator }[] | undefined {
  const out: { text: string; op?: Operator }[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  let op: Operator | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && quote !== "'") {
      i++;
      continue;
    }
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      quote = c;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    if (depth > 0) continue;
    const found = operators.find((o) => text.startsWith(o, i) && !(o === '|' && (text[i + 1] === '|' || text[i - 1] === '|' || text[i - 1] === '>')));
    if (found === undefined) continue;
    out.push({ text: text.slice(start, i), ...(op ? { op } : {}) });
    op = found === '|' ? undefined : (found as Operator);
    i += found.length - 1;
    start = i + 1;
  }
  if (quote !== undefined) return undefined;
  out.push({ text: text.slice(start), ...(op ? { op } : {}) });
  return out;
}
