/**
 * The words of a text as surfacing compares them: lowercase, identifiers split where people
 * would read a space (`SQLITE_BUSY`, `dbPool`, `better-sqlite3`), the words that say nothing
 * about a subject left out, and each word cut to a rough stem so that "locked", "locks" and
 * "locking" are one word. A lesson and a plan rarely use the same form of a word; without
 * the stem they would look unrelated.
 */

const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does done for from had has have how if in into is it its ' +
    'may might more most must no not of on once only or other our out over own so some such than that the their ' +
    'them then there these they this those through to too under until up very was we were what when where which ' +
    'while who why will with within without would you your all any each every also just about after again against ' +
    'before being below between both during few further here i me my myself nor off same should she he him his her ' +
    'us e g ie eg etc now like just even still yet since one two via use used uses using make makes made get gets got let lets see new'
  ).split(' '),
);

/**
 * The words of a text before stemming. Each run of letters and digits is one word
 * (`SQLite`, `TypeScript`, `sqlite3`); an identifier with humps (`saveNote`, `TypeScript`) also
 * gives its parts, and a name with a version (`sqlite3`, `http2`) also gives the name alone,
 * so that both ways of writing a thing meet.
 */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/[^A-Za-z0-9]+/)) {
    if (raw === '') continue;
    const lower = raw.toLowerCase();
    out.push(lower);
    if (/[a-z][A-Z]/.test(raw)) {
      for (const part of raw.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(' ')) if (part.length > 2) out.push(part.toLowerCase());
    }
    const versioned = /^([a-z]{3,})\d+$/.exec(lower);
    if (versioned) out.push(versioned[1]!);
  }
  return out;
}

/**
 * A light suffix stripper: plurals, -ing, -ed and a final e. It is not a linguist's stemmer,
 * only consistent, which is what comparing two texts needs: both sides are cut the same way.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('ied')) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed') && !w.endsWith('eed')) w = w.slice(0, -2);
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  // "runn" (running) and "run": a doubled last consonant left by -ing/-ed is one.
  if (w.length > 3 && /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  return w;
}

/** The words of a text, in order, repeats kept (their count is how much the text says of them). */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const piece of pieces(text)) {
    if (piece.length < 2 || STOPWORDS.has(piece) || /^\d+$/.test(piece)) continue;
    out.push(stem(piece));
  }
  return out;
}

/** How often each word occurs in a text. */
export function wordCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const w of words(text)) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

/** Each word of a text as it was first written there, for telling a person which words matched. */
export function wordForms(text: string): Map<string, string> {
  const forms = new Map<string, string>();
  for (const piece of pieces(text)) {
    if (piece.length < 2 || STOPWORDS.has(piece) || /^\d+$/.test(piece)) continue;
    const w = stem(piece);
    if (!forms.has(w)) forms.set(w, piece);
  }
  return forms;
}
