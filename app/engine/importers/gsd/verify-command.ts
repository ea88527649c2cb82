/**
 * GSD's `<verify>`: sometimes a shell command (`npm test -- invoices`), sometimes a sentence
 * (`curl localhost:5173 returns 200`, "`npm test` passes"). Only a command becomes a check:
 * a sentence run by sh would fail for the wrong reason, or worse, pass.
 */

/** First words of the commands GSD plans verify with. */
const PROGRAMS = new Set([
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'bun',
  'bunx',
  'node',
  'deno',
  'tsc',
  'vitest',
  'jest',
  'eslint',
  'prettier',
  'playwright',
  'python',
  'python3',
  'pytest',
  'uv',
  'poetry',
  'pip',
  'ruff',
  'mypy',
  'pyright',
  'django-admin',
  'cargo',
  'go',
  'make',
  'cmake',
  'dotnet',
  'mvn',
  'gradle',
  './gradlew',
  'swift',
  'xcodebuild',
  'flutter',
  'dart',
  'mix',
  'bundle',
  'rake',
  'rspec',
  'composer',
  'php',
  'cd',
  'test',
  '[',
  'ls',
  'cat',
  'grep',
  'rg',
  'wc',
  'diff',
  'curl',
  'bash',
  'sh',
  'docker',
  'git',
  'jq',
  'sqlite3',
  'psql',
  'terraform',
  'helm',
  'kubectl',
]);

/** Words that make a line a description of a check rather than the check. */
const PROSE =
  /\b(?:returns?|should|shows?|passes|succeeds|works|exits? (?:with )?0|is (?:green|clean)|then|visit|open|confirm|check that|verify that|manually)\b/i;

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
  | { kind: 'content'; file: string; text: string; absent: boolean }
  /**
   * Words harness does not turn into a check: "verify output has NO managedFields", "the output
   * matches the input". English is not guessed at (a word picked from such a sentence became
   * `contains: has`, the meaning inverted); the importer reports them, and a person writes the
   * check. `command` is the command they speak of, checked by its exit status alone.
   */
  | { kind: 'unchecked'; text: string; command?: string };

/** "grep for `useBreakpoint` in App.tsx", "grep `X` in `src/a.ts`". */
const GREP_FOR = /\bgrep(?:s|ping)?(?:\s+(?:for|that))?\s+`([^`\n]+)`\s+in\s+`?([\w./@()[\]-]+\.[A-Za-z0-9]+)`?/i;
/** Words that say the text must not be there. */
const ABSENT = /\b(?:no|zero|not|none|nothing|never|absent|removed|gone|no longer|returns? nothing|0 (?:matches|results))\b/i;
/**
 * The one output form taken from words: right after the command, "must output `X`", "prints
 * `X`", "shows "X"" — the expected text quoted, nothing but the exit status said around it.
 */
const OUTPUT = /^(?:must output|should output|outputs?|prints?|should print|shows?)\s+(?:`([^`\n]+)`|"([^"\n]+)")/i;
/** Words that say no more than "it exits 0": a command with only these after it is checked whole. */
const STATUS_ONLY =
  /^(?:[\s\u2013\u2014:;,.!()-]|\b(?:and|it|must|should|will|pass(?:es)?|succeeds?|works?|runs?|completes?|builds?|with|without|zero|no|any|errors?|warnings?|failures?|all|tests?|exits?|exit code|code|0|cleanly|successfully|is|are|green|clean|ok)\b)*$/i;
/** Words that say the command before them is meant to fail. */
const EXPECTS_FAILURE = /\b(?:error message|should fail|fails with|non-?zero|exits? (?:with )?(?:code )?[1-9]|is rejected|rejects|refuses)\b/i;
/** A list item's marker, and the imperative GSD authors put before a command. */
const ITEM = /^(?:[-*+]|\d+[.)])\s+/;

/**
 * Every check a `<verify>` asks for: the whole of it when it is one command; otherwise, line
 * by line (prose, numbered and bulleted lists), each command quoted in backticks, each line
 * that is a command by itself, and each "grep for `X` in file" as a content check. Whatever
 * else a line says is an `unchecked` finding, never a guess.
 */
export function verifyFindings(text: string): VerifyFinding[] {
  const whole = verifyCommand(text);
  if (whole !== undefined) {
    const rest = text
      .trim()
      .replace(/^```(?:\w+)?\n[\s\S]*\n```$/, '')
      .replace(/`[^`\n]+`/, '');
    // A sentence around one quoted command says more than "it exits 0": read it line by line below.
    if (rest === whole || STATUS_ONLY.test(rest)) return [{ kind: 'command', command: whole }];
  }
  const out: VerifyFinding[] = [];
  for (const raw of text.split('\n')) {
    const line = raw
      .trim()
      .replace(ITEM, '')
      .replace(/^run\s+(?=`)/i, '');
    if (line === '') continue;
    const grep = GREP_FOR.exec(line);
    if (grep) {
      const rest = line.slice(0, grep.index) + line.slice(grep.index + grep[0].length);
      out.push({ kind: 'content', file: grep[2]!, text: grep[1]!, absent: ABSENT.test(rest.replace(/`[^`]*`/g, '')) });
      continue;
    }
    const quoted = [...line.matchAll(/`([^`\n]+)`/g)];
    const commands = quoted.filter((q) => isCommand(q[1]!.trim()));
    if (commands.length === 0) {
      if (isCommand(line) && !PROSE.test(line)) out.push({ kind: 'command', command: line });
      else out.push({ kind: 'unchecked', text: line });
      continue;
    }
    // Words before the first command ("the output of `kubectl get` has no managedFields") say something too.
    const before = line.slice(0, commands[0]!.index).replace(/^(?:then\s+)?(?:run|verify|check|execute)\b\s*:?/i, '');
    if (!STATUS_ONLY.test(before)) out.push({ kind: 'unchecked', text: line });
    commands.forEach((q, k) => {
      const command = q[1]!.trim();
      // What the words after it, up to the next command, say it prints.
      const after = line.slice(q.index + q[0].length, commands[k + 1]?.index ?? line.length);
      // A command expected to fail ("verify error message about valid values"): its exit code is not known, so no check.
      if (EXPECTS_FAILURE.test(after)) {
        out.push({ kind: 'unchecked', text: line });
        return;
      }
      const lead = after.replace(/^[\s\u2013\u2014:;,-]+/, '');
      const said = OUTPUT.exec(lead);
      const contains = said?.[1] ?? said?.[2];
      const rest = said ? lead.slice(said[0].length) : after;
      out.push({ kind: 'command', command, ...(contains !== undefined ? { contains } : {}) });
      if (!STATUS_ONLY.test(rest) && !out.some((f) => f.kind === 'unchecked' && f.text === line)) out.push({ kind: 'unchecked', text: line, command });
    });
  }
  return out;
}
