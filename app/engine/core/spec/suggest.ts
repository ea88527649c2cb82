/**
 * "did you mean …?" for a misspelt name, or nothing when no candidate is close.
 *
 * The work is bounded whatever the input: a name longer than MAX_INPUT gets no suggestion
 * (a 30,000-character id once built a 30,000² table and exhausted the heap), candidates
 * whose length alone puts them out of reach are skipped before any table is built, and a
 * search stops once it has spent `maxCells` table cells (a spec can hold 50,000 plans,
 * and one suggestion per unknown dependency made "did you mean" quadratic).
 */
const MAX_INPUT = 64;
const DEFAULT_MAX_CELLS = 1_000_000;

export function suggest(input: string, candidates: readonly string[], maxCells = DEFAULT_MAX_CELLS): string | undefined {
  if (input.length === 0 || input.length > MAX_INPUT) return undefined;
  const needle = input.toLowerCase();
  const allowed = Math.max(1, Math.floor(needle.length / 3));
  let best: string | undefined;
  let bestDistance = allowed + 1;
  let spent = 0;
  for (const candidate of candidates) {
    if (Math.abs(candidate.length - needle.length) >= bestDistance) continue;
    spent += (needle.length + 1) * (candidate.length + 1);
    if (spent > maxCells) break;
    const d = distance(needle, candidate.toLowerCase(), bestDistance);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return best;
}

export function didYouMean(input: string, candidates: readonly string[], maxCells?: number): string {
  const s = suggest(input, candidates, maxCells);
  return s ? `; did you mean "${s}"?` : '';
}

/**
 * Damerau–Levenshtein (optimal string alignment) distance, or `limit` as soon as every
 * cell of a row has reached it (the distance can only grow from there).
 */
function distance(a: string, b: string, limit: number): number {
  const cols = b.length + 1;
  let before = new Int32Array(cols);
  let prev = new Int32Array(cols);
  let row = new Int32Array(cols);
  for (let j = 0; j < cols; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let rowMin = i;
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, before[j - 2]! + 1);
      row[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin >= limit) return limit;
    [before, prev, row] = [prev, row, before];
  }
  return prev[b.length]!;
}
