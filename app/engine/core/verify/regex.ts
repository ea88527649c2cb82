/**
 * Patterns come from plans people write; validation already rejects most bad ones, but a
 * check must still report a bad pattern as a failure rather than throw.
 */
export function compileRegex(pattern: string, flags = ''): RegExp | string {
  try {
    return new RegExp(pattern, flags);
  } catch (e) {
    return `the pattern /${pattern}/ is not a valid regular expression: ${(e as Error).message}`;
  }
}
