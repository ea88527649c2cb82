/**
 * GSD's `<verify>`: sometimes a shell command (`npm test -- invoices`), sometimes a sentence
 * (`curl localhost:5173 returns 200`, "`npm test` passes"). Only a command becomes a check:
 * a sentence run by sh would fail for the wrong reason, or worse, pass.
 */

/** First words of the commands GSD plans verify with. */
const PROGRAMS = new Set([
  'npm', 'npx', 'pnpm', 'yarn', 'bun', 'bunx', 'node', 'deno', 'tsc', 'vitest', 'jest', 'eslint', 'prettier', 'playwright',
  'python', 'python3', 'pytest', 'uv', 'poetry', 'pip', 'ruff', 'mypy', 'pyright', 'django-admin',
  'cargo', 'go', 'make', 'cmake', 'dotnet', 'mvn', 'gradle', './gradlew', 'swift', 'xcodebuild', 'flutter', 'dart', 'mix', 'bundle', 'rake', 'rspec', 'composer', 'php',
  'cd', 'test', '[', 'ls', 'cat', 'grep', 'rg', 'wc', 'diff', 'curl', 'bash', 'sh', 'docker', 'git', 'jq', 'sqlite3', 'psql', 'terraform', 'helm', 'kubectl',
]);

/** Words that make a line a description of a check rather than the check. */
const PROSE = /\b(?:returns?|should|shows?|passes|succeeds|works|exits? (?:with )?0|is (?:green|clean)|then|visit|open|confirm|check that|verify that|manually)\b/i;

/** The command in a `<verify>`, or undefined when it is a description. */
export function verifyCommand(text: string): string | undefined {
  const trimmed = text.trim();
  const block = /^```(?:\w+)?\n([\s\S]*?)\n```$/.exec(trimmed);
  if (block) return isCommand(block[1]!.trim()) ? block[1]!.trim() : undefined;
  if (!trimmed.includes('\n') && isCommand(trimmed) && !PROSE.test(trimmed)) return trimmed;
  // "`npm test` passes": one command quoted in a sentence.
  const quoted = [...trimmed.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!.trim());
  if (quoted.length === 1 && isCommand(quoted[0]!)) return quoted[0];
  return undefined;
}

function isCommand(text: string): boolean {
  const first = text.split(/\s+/)[0] ?? '';
  return PROGRAMS.has(first) || /^\.\/[\w./-]+$/.test(first) || /^[A-Z_][A-Z0-9_]*=\S*$/.test(first);
}

/**
 * Endings written for a person watching, which take the command's exit status away: a trailing
 * `| tail -30` or `| head -n 20` (the status becomes tail's), `&& echo "PASS" || echo "FAIL"`
 * and `|| true` (always 0). Left on, the check could never fail; harness keeps its own output
 * tail and reports the status itself.
 */
export function withoutOutputTrim(command: string): string {
  const endings = [
    /\s*(?:2>&1\s*)?\|\s*(?:tail|head)(?:\s+-n)?(?:\s+-?\d+)?\s*$/,
    /\s*\|\|\s*(?:echo\s+(?:"[^"]*"|'[^']*'|\S+)|true|:)\s*$/,
    /\s*&&\s*echo\s+(?:"[^"]*"|'[^']*'|\S+)\s*$/,
  ];
  let out = command.trim();
  for (;;) {
    const next = endings.reduce((text, re) => text.replace(re, ''), out);
    if (next === out) return out;
    out = next;
  }
}
