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
  // echo and printf check nothing by themselves; piped into a program they feed its input.
  if ((first === 'echo' || first === 'printf') && /\|/.test(text)) return true;
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

/** What a `<verify>` asks, as harness can check it. */
export type VerifyFinding =
  | { kind: 'command'; command: string; contains?: string }
  /** "grep for `X` in file.tsx": the file (as the plan names it) has X, or, `absent`, no longer has it. */
  | { kind: 'content'; file: string; text: string; absent: boolean };

/** "grep for `useBreakpoint` in App.tsx", "grep `X` in `src/a.ts`". */
const GREP_FOR = /\bgrep(?:s|ping)?(?:\s+(?:for|that))?\s+`([^`\n]+)`\s+in\s+`?([\w./@()[\]-]+\.[A-Za-z0-9]+)`?/i;
/** Words that say the text must not be there. */
const ABSENT = /\b(?:no|zero|not|none|nothing|never|absent|removed|gone|no longer|returns? nothing|0 (?:matches|results))\b/i;
/** "must output `hello: world`", "prints `OK`", "prints True": what the command before says. */
const OUTPUT = /\b(?:must output|should output|outputs?|prints?|should print|shows?)\s+(?:`([^`\n]+)`|([A-Za-z0-9_.:-]+)\b)/i;
/** Words that say the command before them is meant to fail. */
const EXPECTS_FAILURE = /\b(?:error message|should fail|fails with|non-?zero|exits? (?:with )?(?:code )?[1-9]|is rejected|rejects|refuses)\b/i;
/** A list item's marker, and the imperative GSD authors put before a command. */
const ITEM = /^(?:[-*+]|\d+[.)])\s+/;

/**
 * Every check a `<verify>` asks for: the whole of it when it is one command; otherwise, line
 * by line (prose, numbered and bulleted lists), each command quoted in backticks, each line
 * that is a command by itself, and each "grep for `X` in file" as a content check.
 */
export function verifyFindings(text: string): VerifyFinding[] {
  const whole = verifyCommand(text);
  if (whole !== undefined) return [{ kind: 'command', command: whole }];
  const out: VerifyFinding[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim().replace(ITEM, '').replace(/^run\s+(?=`)/i, '');
    if (line === '') continue;
    const grep = GREP_FOR.exec(line);
    if (grep) {
      const rest = line.slice(0, grep.index) + line.slice(grep.index + grep[0].length);
      out.push({ kind: 'content', file: grep[2]!, text: grep[1]!, absent: ABSENT.test(rest.replace(/`[^`]*`/g, '')) });
      continue;
    }
    const quoted = [...line.matchAll(/`([^`\n]+)`/g)];
    if (quoted.length === 0) {
      if (isCommand(line) && !PROSE.test(line)) out.push({ kind: 'command', command: line });
      continue;
    }
    const commands = quoted.filter((q) => isCommand(q[1]!.trim()));
    commands.forEach((q, k) => {
      const command = q[1]!.trim();
      // What the words after it, up to the next command, say it prints.
      const after = line.slice(q.index + q[0].length, commands[k + 1]?.index ?? line.length);
      // A command expected to fail ("verify error message about valid values"): its exit code is not known, so no check.
      if (EXPECTS_FAILURE.test(after)) return;
      const said = OUTPUT.exec(after);
      const contains = said?.[1] ?? said?.[2];
      out.push({ kind: 'command', command, ...(contains !== undefined && !/^(?:nothing|no|an?|the|all)$/i.test(contains) ? { contains } : {}) });
    });
  }
  return out;
}
