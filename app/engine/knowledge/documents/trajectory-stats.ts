/**
 * What the trajectory says of each piece of knowledge, read in one pass (docs/design.md,
 * Knowledge): how often it was put into a brief (`match`), how often the plan was then
 * verified with it (`use`), how those attempts ended, when it was last matched and used and
 * when it was first seen, and when each lifecycle step (solidify, promote, deprecate,
 * extraction, approval, …) last happened to it. Skill audits, gene metrics and decay are all
 * computed from this, never from counters kept in the documents.
 *
 * Success is a verified plan and nothing else: an attempt that matched an entry and has no
 * `use` line (it failed, or the run stopped) counts as a failure of that application. The
 * trajectory is fed line by line or file by file, in any order of files; outcomes are put in
 * time order at the end.
 */

export interface EntryStats {
  entry: string;
  kind?: string;
  /** Attempts that had it in their brief. */
  matches: number;
  /** Attempts verified with it in their brief. */
  uses: number;
  /** Applications that ended verified, and those that did not (matched with no use). */
  successes: number;
  failures: number;
  /** successes / (successes + failures); undefined when it was never applied. */
  successRate?: number;
  /** The run of the same outcome at the end of its record. */
  consecutiveSuccesses: number;
  consecutiveFailures: number;
  firstSeen: string;
  lastMatch?: string;
  lastUse?: string;
  /** Distinct plans (project/spec/plan) verified with it: how widely it has proven itself. */
  places: number;
  /** Each other event type (solidify, promote, extraction, approval, …) and its latest timestamp. */
  events: Record<string, string>;
}

interface Building {
  entry: string;
  kind?: string;
  matches: number;
  uses: number;
  firstSeen: string;
  lastMatch?: string;
  lastUse?: string;
  /** Matched attempts not yet seen used, by attempt, with when. */
  open: Map<string, string>;
  /**
   * The latest matched attempt, kept apart from `open`: its use nearly always comes next (an
   * attempt's match and use lines are written together), so pairing them is one comparison,
   * not a hash; only attempts that overlap go through the map.
   */
  lastAttempt?: string;
  lastAt?: string;
  /** Resolved outcomes: when, and whether verified. */
  times: string[];
  oks: boolean[];
  places: Set<string>;
  events: Record<string, string>;
}

interface Line {
  timestamp?: unknown;
  type?: unknown;
  entry?: unknown;
  kind?: unknown;
  key?: unknown;
  project?: unknown;
  spec?: unknown;
  plan?: unknown;
  attempt?: unknown;
}

const NEEDLE = {
  timestamp: '"timestamp":"',
  type: '"type":"',
  entry: '"entry":"',
  kind: '"kind":"',
  key: '"key":"',
  project: '"project":"',
  spec: '"spec":"',
  plan: '"plan":"',
} as const;

const TIMESTAMP_FIRST = '{"timestamp":"';
const TYPE_NEXT = '","type":"';
const KEY_LAST = ',"key":"';

/** Bail out of the fast reading: the line is left to JSON.parse. */
const BAIL = null;

/**
 * A string field read off a line as harness writes it (JSON.stringify: no spaces, these values
 * without escapes), without building the whole object: a year of trajectory is most of an
 * audit's time otherwise. `,"name":"` can only be structure, never inside a string (a quote
 * there is escaped), so finding it is exact. undefined: the line has no such field; BAIL: it
 * is not plain enough to read this way.
 */
function field(line: string, needle: string, from = 0): string | undefined | typeof BAIL {
  let at = line.indexOf(needle, from);
  while (at > 0 && line.charCodeAt(at - 1) !== 44 /* , */ && line.charCodeAt(at - 1) !== 123 /* { */) at = line.indexOf(needle, at + 1);
  if (at < 0) return undefined;
  const start = at + needle.length;
  const end = line.indexOf('"', start);
  if (end < 0 || line.charCodeAt(end - 1) === 92 /* \\ */) return BAIL;
  return line.slice(start, end);
}

/** A match and its use share their key up to `/<type>/<entry>`: that prefix is the attempt. */
function attemptOf(line: Line, type: string, entry: string): string {
  const key = typeof line.key === 'string' ? line.key : '';
  const cut = key.length - entry.length - type.length - 2;
  if (cut >= 0 && key.endsWith(entry) && key.charCodeAt(cut) === 47 && key.startsWith(type, cut + 1) && key.charCodeAt(cut + 1 + type.length) === 47)
    return key.slice(0, cut);
  return `${String(line.project ?? '')}/${String(line.spec ?? '')}/${String(line.plan ?? '')}/${String(line.attempt ?? 1)}`;
}

export class TrajectoryStats {
  private readonly byEntry = new Map<string, Building>();
  /** Lines that were not a trajectory event (a person's note, a torn write): counted, never guessed at. */
  skipped = 0;
  lines = 0;

  /** Add one file's text (or any run of whole lines). */
  addText(text: string): void {
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = text.length;
      if (end > start) this.addLine(text.slice(start, end));
      start = end + 1;
    }
  }

  addLine(raw: string): void {
    const line = raw.charCodeAt(0) === 123 ? raw : raw.trim();
    if (line === '') return;
    this.lines++;
    if (line.charCodeAt(0) === 123 && line.charCodeAt(line.length - 1) === 125 && this.addFast(line)) return;
    let event: Line;
    try {
      event = line.startsWith('{') ? (JSON.parse(line) as Line) : {};
    } catch {
      event = {};
    }
    const { type, entry, timestamp } = event;
    if (typeof type !== 'string' || typeof entry !== 'string' || typeof timestamp !== 'string') {
      this.skipped++;
      return;
    }
    this.add(event, type, entry, timestamp);
  }

  /** The line read field by field; false when it must be parsed whole. */
  private addFast(line: string): boolean {
    // harness writes `{"timestamp":"<24 characters>","type":"…"` first: read those in place.
    let timestamp: string | undefined | typeof BAIL;
    let type: string | undefined | typeof BAIL;
    let after = 0;
    if (line.startsWith(TIMESTAMP_FIRST) && line.startsWith(TYPE_NEXT, 38)) {
      timestamp = line.slice(14, 38);
      const end = line.indexOf('"', 48);
      type = end < 0 ? BAIL : line.slice(48, end);
      after = end;
    } else {
      timestamp = field(line, NEEDLE.timestamp);
      type = field(line, NEEDLE.type);
    }
    const entry = field(line, NEEDLE.entry, after);
    if (typeof type !== 'string' || typeof entry !== 'string' || typeof timestamp !== 'string') return false;
    const b = this.byEntry.get(entry);
    const kind = b === undefined || b.kind === undefined ? field(line, NEEDLE.kind) : undefined;
    // The key comes last in harness's lines: found from the end, it is one short scan.
    const last = line.lastIndexOf(KEY_LAST);
    const key =
      type === 'match' || type === 'use'
        ? last > 0 && line.endsWith('"}') && line.indexOf('"', last + 8) === line.length - 2
          ? line.slice(last + 8, line.length - 2)
          : field(line, NEEDLE.key)
        : undefined;
    if (typeof key === 'string' && key.includes('\\')) return false;
    const event: Line = { kind, key };
    if (type === 'use') {
      event.project = field(line, NEEDLE.project);
      event.spec = field(line, NEEDLE.spec);
      event.plan = field(line, NEEDLE.plan);
    }
    if (kind === BAIL || key === BAIL || event.project === BAIL || event.spec === BAIL || event.plan === BAIL) return false;
    if (typeof key !== 'string' && (type === 'match' || type === 'use')) {
      // Without a key the attempt is told by project/spec/plan/attempt: the whole line is needed.
      return false;
    }
    this.add(event, type, entry, timestamp);
    return true;
  }

  private add(event: Line, type: string, entry: string, timestamp: string): void {
    let b = this.byEntry.get(entry);
    if (!b) {
      b = { entry, matches: 0, uses: 0, firstSeen: timestamp, open: new Map(), times: [], oks: [], places: new Set(), events: {} };
      this.byEntry.set(entry, b);
    }
    if (b.kind === undefined && typeof event.kind === 'string') b.kind = event.kind;
    if (timestamp < b.firstSeen) b.firstSeen = timestamp;
    if (type === 'match') {
      b.matches++;
      if (b.lastMatch === undefined || timestamp > b.lastMatch) b.lastMatch = timestamp;
      if (b.lastAttempt !== undefined) b.open.set(b.lastAttempt, b.lastAt!);
      b.lastAttempt = attemptOf(event, type, entry);
      b.lastAt = timestamp;
    } else if (type === 'use') {
      b.uses++;
      if (b.lastUse === undefined || timestamp > b.lastUse) b.lastUse = timestamp;
      const attempt = attemptOf(event, type, entry);
      let matched: string | undefined;
      if (attempt === b.lastAttempt) {
        matched = b.lastAt;
        b.lastAttempt = b.lastAt = undefined;
      } else if (b.open.size > 0) {
        matched = b.open.get(attempt);
        if (matched !== undefined) b.open.delete(attempt);
      }
      b.times.push(matched ?? timestamp);
      b.oks.push(true);
      b.places.add(`${String(event.project ?? '')}/${String(event.spec ?? '')}/${String(event.plan ?? '')}`);
    } else {
      const last = b.events[type];
      if (last === undefined || timestamp > last) b.events[type] = timestamp;
    }
  }

  /** Every entry's figures, by its path. */
  result(): Map<string, EntryStats> {
    const out = new Map<string, EntryStats>();
    for (const b of this.byEntry.values()) out.set(b.entry, finish(b));
    return out;
  }
}

function finish(b: Building): EntryStats {
  const times = [...b.times];
  const oks = [...b.oks];
  if (b.lastAttempt !== undefined) b.open.set(b.lastAttempt, b.lastAt!);
  for (const t of b.open.values()) {
    times.push(t);
    oks.push(false);
  }
  let ordered = true;
  for (let i = 1; i < times.length && ordered; i++) ordered = times[i - 1]! <= times[i]!;
  let order = times.map((_, i) => i);
  if (!ordered) order = order.sort((x, y) => (times[x]! < times[y]! ? -1 : times[x]! > times[y]! ? 1 : x - y));
  let successes = 0;
  for (const ok of oks) if (ok) successes++;
  const failures = oks.length - successes;
  let consecutiveSuccesses = 0;
  let consecutiveFailures = 0;
  for (let k = order.length - 1; k >= 0; k--) {
    const ok = oks[order[k]!]!;
    if (ok && consecutiveFailures === 0) consecutiveSuccesses++;
    else if (!ok && consecutiveSuccesses === 0) consecutiveFailures++;
    else break;
  }
  const stats: EntryStats = {
    entry: b.entry,
    matches: b.matches,
    uses: b.uses,
    successes,
    failures,
    consecutiveSuccesses,
    consecutiveFailures,
    firstSeen: b.firstSeen,
    places: b.places.size,
    events: b.events,
  };
  if (b.kind !== undefined) stats.kind = b.kind;
  if (oks.length > 0) stats.successRate = successes / oks.length;
  if (b.lastMatch !== undefined) stats.lastMatch = b.lastMatch;
  if (b.lastUse !== undefined) stats.lastUse = b.lastUse;
  return stats;
}

/** The stats of a whole trajectory given as texts (one per day file). */
export function trajectoryStats(texts: Iterable<string>): TrajectoryStats {
  const stats = new TrajectoryStats();
  for (const t of texts) stats.addText(t);
  return stats;
}
