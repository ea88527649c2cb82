/**
 * Does `actual` contain `expected`? Objects: every expected key is present and matches (extra
 * keys are fine). Arrays: every expected element matches a distinct element of the actual
 * array, in any order (extra elements are fine). Anything else: equal. Returns undefined on a
 * match, else where and how it differs, as evidence.
 */
export function jsonSubset(expected: unknown, actual: unknown, path = '$'): string | undefined {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${path}: expected an array, got ${describe(actual)}`;
    const used = new Set<number>();
    for (let i = 0; i < expected.length; i++) {
      const at = actual.findIndex((a, j) => !used.has(j) && jsonSubset(expected[i], a) === undefined);
      if (at < 0) return `${path}: no element matches ${describe(expected[i])}`;
      used.add(at);
    }
    return undefined;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path}: expected an object, got ${describe(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      const sub = /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
      if (!(key in actual)) return `${sub}: missing`;
      const diff = jsonSubset(value, (actual as Record<string, unknown>)[key], sub);
      if (diff !== undefined) return diff;
    }
    return undefined;
  }
  return expected === actual ? undefined : `${path}: expected ${describe(expected)}, got ${describe(actual)}`;
}

function describe(value: unknown): string {
  const s = value === undefined ? 'undefined' : JSON.stringify(value);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}
