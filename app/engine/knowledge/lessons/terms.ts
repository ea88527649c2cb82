/**
 * The words of a signal or a lesson as reflection compares them. Signals describe one problem
 * in different words ("database is locked", "SQLITE_BUSY", "the db was locked by another
 * connection"), so words are reduced to a common stem, identifiers are split into their parts,
 * a few abbreviations people use for the same thing are folded together, and the words that
 * say nothing about a problem (function words, harness's own vocabulary) are left out.
 */

/** A word reduced for comparison, and the word as it was written (lowercased). */
export interface Term {
  stem: string;
  word: string;
  /** The stem's number, the same for the same stem everywhere (stemOf gives it back). */
  id: number;
}

/** Stems numbered as they are first met: vectors index words by number, not by string. */
const STEM_IDS = new Map<string, number>();
const STEMS: string[] = [];

function stemId(stem: string): number {
  let id = STEM_IDS.get(stem);
  if (id === undefined) {
    id = STEMS.length;
    STEM_IDS.set(stem, id);
    STEMS.push(stem);
  }
  return id;
}

/** The stem a term id stands for. */
export function stemOf(id: number): string {
  return STEMS[id]!;
}

/** Function words and the vocabulary every signal and lesson shares, which tells problems apart not at all. */
const STOPWORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by can cannot could ' +
    'did do does doing done down during each either else ever every few for from further get got had has have having he her here hers him his how ' +
    'however i if in into is it its itself just least less like made make makes many may me might more most much must my neither no nor not now of ' +
    'off on once one only or other our ours out over own per same she should since so some such than that the their theirs them then there these ' +
    'they this those though through thus to too under until up upon us use used uses using very via was we were what when where whether which ' +
    'while who whom whose why will with within without would yet you your yours ' +
    // harness's own words: in every signal and every drafted lesson, so they tell nothing apart
    'harness signal signals lesson lessons evidence agent agents attempt attempts plan plans spec specs phase phases recur recurs recurred recurring occurrence occurrences ' +
    'happened context cause potential time times again still another first second third three two four five several'
  ).split(' '),
);

/** Abbreviations and variants that name the same thing: folded before stemming. */
const SYNONYMS: Readonly<Record<string, string>> = {
  db: 'database',
  dbs: 'database',
  databases: 'database',
  repo: 'repository',
  repos: 'repository',
  deps: 'dependency',
  dep: 'dependency',
  configuration: 'config',
  configurations: 'config',
  configured: 'config',
  configure: 'config',
  configuring: 'config',
  conf: 'config',
  concurrent: 'parallel',
  concurrently: 'parallel',
  concurrency: 'parallel',
  parallelism: 'parallel',
  simultaneously: 'parallel',
  env: 'environment',
  envs: 'environment',
  auth: 'authentication',
  authenticate: 'authentication',
  creds: 'credential',
  credentials: 'credential',
  perms: 'permission',
  permissions: 'permission',
  timeouts: 'timeout',
  timedout: 'timeout',
  deadlock: 'lock',
  deadlocked: 'lock',
  locks: 'lock',
  locked: 'lock',
  locking: 'lock',
  err: 'error',
  errors: 'error',
  errored: 'error',
  msg: 'message',
  dir: 'directory',
  dirs: 'directory',
  folder: 'directory',
  folders: 'directory',
  tmp: 'temporary',
  temp: 'temporary',
  pkg: 'package',
  pkgs: 'package',
  packages: 'package',
};

const VOWEL = /[aeiouy]/;

/**
 * A light suffix-stripping stemmer: enough that "failing", "failed" and "fails" meet at "fail",
 * "retries" and "retried" at "retry", "tests" and "testing" at "test". It keeps short words
 * whole, since stripping them loses more than it joins.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith('ies') || w.endsWith('ied')) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (/(?:ch|sh|x|z|ss)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);

  for (const suffix of ['ing', 'ed']) {
    if (!w.endsWith(suffix)) continue;
    const base = w.slice(0, -suffix.length);
    if (base.length < 3 || !VOWEL.test(base)) break;
    w = base;
    // running → run, stopped → stop; but "fall" and "pass" keep their doubled letter.
    if (/([b-df-hj-np-rtv-z])\1$/.test(w) && !/(?:ll|ss|zz|ff)$/.test(w)) w = w.slice(0, -1);
    break;
  }
  if (w.endsWith('tion') && w.length > 6) w = `${w.slice(0, -3)}`;
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

/** Hex ids and hashes: facts of one occurrence, never of a pattern. */
const HEX = /^[0-9a-f]{7,}$/;

/** Numbers, times, ids and hashes: more digits than letters, or hex. */
function isNoise(word: string): boolean {
  let digits = 0;
  for (const c of word) if (c >= '0' && c <= '9') digits++;
  return digits > word.length - digits || (digits > 0 && HEX.test(word));
}

/** What each raw word (lowercased, split) becomes: a term, or nothing. Words repeat a lot across signals. */
const TERM_OF = new Map<string, Term | null>();
/** The cache is a convenience, not a store: it is emptied rather than let grow without bound. */
const TERM_CACHE_MAX = 200_000;

function termOf(raw: string): Term | null {
  let term = TERM_OF.get(raw);
  if (term !== undefined) return term;
  term = null;
  if (!isNoise(raw)) {
    const word = withoutVersion(raw);
    if (word.length >= 2 && !STOPWORDS.has(word)) {
      const folded = SYNONYMS[word] ?? word;
      const s = stem(folded);
      if (s.length >= 2 && !STOPWORDS.has(s)) term = { stem: s, word: folded, id: stemId(s) };
    }
  }
  if (TERM_OF.size >= TERM_CACHE_MAX) TERM_OF.clear();
  TERM_OF.set(raw, term);
  return term;
}

/** A trailing version number is not part of the name: sqlite3 and sqlite, node20 and node. */
function withoutVersion(word: string): string {
  const m = /^([a-z]{4,})\d+$/.exec(word);
  return m ? m[1]! : word;
}

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

const HUMP = /([a-z])([A-Z])/g;

/** The terms of a text, in order, repeats kept (they weigh in); identifiers split at `_`, `-`, `.`, `/` and camelCase humps. */
export function terms(text: string): Term[] {
  const out: Term[] = [];
  const push = (raw: string) => {
    const parts = /[a-z][A-Z]/.test(raw) ? raw.replace(HUMP, '$1 $2').split(' ') : [raw];
    for (const part of parts) {
      const term = termOf(part.toLowerCase());
      if (term) out.push(term);
    }
  };
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const alnum = i < text.length && isAlnum(text.charCodeAt(i));
    if (alnum && start === -1) start = i;
    else if (!alnum && start !== -1) {
      push(text.slice(start, i));
      start = -1;
    }
  }
  return out;
}
