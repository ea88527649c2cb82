import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '../../app/engine/forge/command.js';
import { parsePlan } from '../../app/engine/core/spec/plan.js';
import { HarnessConfigSchema } from '../../app/engine/core/config/schema.js';
import { parse as parseYaml } from 'yaml';
import { runCli } from '../helpers/cli.js';

/**
 * The README and docs/ as specifications: every `harness` command and flag they name exists
 * (checked against the command's own --help) and docs/cli.md names every command there is,
 * every `npm run` script is in package.json, every `/harness` command is one the App knows, every relative link leads to a file and
 * heading that exist, and the example plan in the README validates.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
].sort();
const scripts = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);

interface Code {
  page: string;
  line: number;
  text: string;
  /** The info string of its fence; undefined for inline code. */
  lang?: string;
  /** For a block: the prose line just before it (blank lines aside). */
  before?: string;
}

/** Fenced blocks (each line) and inline code spans of a page, with their lines. */
function codeOf(page: string): { lines: Code[]; blocks: Code[]; prose: { line: number; text: string }[] } {
  const lines: Code[] = [];
  const blocks: Code[] = [];
  const prose: { line: number; text: string }[] = [];
  let fence: { marker: string; lang: string; start: number; body: string[]; before: string } | undefined;
  readFileSync(join(ROOT, page), 'utf8')
    .split('\n')
    .forEach((text, i) => {
      const open = /^(`{3,}|~{3,})\s*([\w-]*)/.exec(text);
      if (!fence && open) {
        fence = { marker: open[1]!, lang: open[2] ?? '', start: i + 2, body: [], before: prose.filter((l) => l.text.trim()).at(-1)?.text ?? '' };
      } else if (fence && text.trim() === fence.marker) {
        blocks.push({ page, line: fence.start, text: fence.body.join('\n'), lang: fence.lang, before: fence.before });
        fence = undefined;
      } else if (fence) {
        fence.body.push(text);
        lines.push({ page, line: i + 1, text, lang: fence.lang });
      } else {
        prose.push({ line: i + 1, text });
        for (const m of text.matchAll(/(?<!`)`([^`]+)`(?!`)/g)) lines.push({ page, line: i + 1, text: m[1]! });
      }
    });
  return { lines, blocks, prose };
}

const pages = PAGES.map((page) => ({ page, ...codeOf(page) }));
const allCode = pages.flatMap((p) => p.lines);
const SHELL = new Set(['sh', 'bash', 'shell', 'console']);
const where = (c: { page: string; line: number }) => `${c.page}:${c.line}`;

/** `harness <command> …` in shell blocks and inline code; a `a\|b` alternation names each command. */
function harnessUses(): { at: string; commands: string[]; flags: string[] }[] {
  const uses: { at: string; commands: string[]; flags: string[] }[] = [];
  for (const code of allCode) {
    if (code.lang !== undefined && !SHELL.has(code.lang)) continue;
    const command = code.text.replace(/\s+#.*$/, '').trim();
    const m = /^(?:npx\s+(?:-y\s+)?spec-)?harness\s+(\S+)(.*)$/.exec(command);
    if (!m || m[1]!.startsWith('-') || m[1]!.startsWith('<')) continue;
    const commands = m[1]!.split(/\\?\|/).filter((c) => /^[a-z][a-z-]*$/.test(c));
    const flags = [...new Set([...m[2]!.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((f) => f[0]))];
    if (commands.length > 0) uses.push({ at: where(code), commands, flags });
  }
  return uses;
}

let known: Set<string>;
const help = new Map<string, string>();
beforeAll(async () => {
  const top = await runCli(['--help']);
  known = new Set([...top.stdout.matchAll(/^ {2}([a-z][a-z-]+)\s{2,}/gm)].map((m) => m[1]!));
  for (const command of known) {
    const out = await runCli([command, '--help']);
    help.set(command, out.stdout + out.stderr);
  }
});

describe('the shell examples of the README and docs/', () => {
  it('name only harness commands that exist, each with flags its --help lists', () => {
    const uses = harnessUses();
    expect(uses.length).toBeGreaterThan(20);
    const wrong: string[] = [];
    for (const use of uses) {
      for (const command of use.commands) {
        if (!known.has(command)) {
          wrong.push(`${use.at}: harness ${command} is no command (harness --help lists ${[...known].join(', ')})`);
          continue;
        }
        for (const flag of use.flags) {
          if (flag !== '--help' && !new RegExp(`${flag}(?![\\w-])`).test(help.get(command)!))
            wrong.push(`${use.at}: harness ${command} has no ${flag} (see harness ${command} --help)`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('name every command harness --help lists in docs/cli.md, the reference', () => {
    const documented = new Set(
      harnessUses()
        .filter((u) => u.at.startsWith('docs/cli.md:'))
        .flatMap((u) => u.commands),
    );
    expect([...known].filter((command) => !documented.has(command))).toEqual([]);
  });

  it('run only npm scripts package.json has, and files that exist', () => {
    const wrong: string[] = [];
    for (const code of allCode.filter((c) => c.lang !== undefined && SHELL.has(c.lang))) {
      const command = code.text.replace(/\s+#.*$/, '').trim();
      for (const m of command.matchAll(/npm run ([\w:-]+)/g))
        if (!scripts.includes(m[1]!)) wrong.push(`${where(code)}: npm run ${m[1]} is not a script in package.json`);
      for (const m of command.matchAll(/npm (test|start)\b/g)) if (!scripts.includes(m[1]!)) wrong.push(`${where(code)}: npm ${m[1]} has no script`);
      const file = /^(\.{0,2}\/[\w./-]+)/.exec(command);
      if (file && !existsSync(join(ROOT, file[1]!))) wrong.push(`${where(code)}: ${file[1]} does not exist`);
    }
    for (const code of allCode.filter((c) => c.lang === undefined && /^npm run [\w:-]+/.test(c.text))) {
      const name = /^npm run ([\w:-]+)/.exec(code.text)![1]!;
      if (!scripts.includes(name)) wrong.push(`${where(code)}: npm run ${name} is not a script in package.json`);
    }
    expect(wrong).toEqual([]);
  });

  it('name only /harness commands the App knows', () => {
    const wrong: string[] = [];
    let seen = 0;
    for (const code of allCode) {
      const m = /^\/harness\s+([a-z][a-z-]*)/.exec(code.text.trim());
      if (!m) continue;
      seen++;
      if (!(COMMAND_NAMES as readonly string[]).includes(m[1]!)) wrong.push(`${where(code)}: /harness ${m[1]} is not a command (${COMMAND_NAMES.join(', ')})`);
    }
    expect(seen).toBeGreaterThan(10);
    expect(wrong).toEqual([]);
  });
});

describe('the examples of the README and docs/', () => {
  it("every example plan validates as it is written (the README's and the PLAN.md reference)", () => {
    const plans = pages.flatMap((p) => p.blocks.filter((b) => /^---\nplan_id:/.test(b.text)));
    expect(plans.map((b) => b.page)).toEqual(expect.arrayContaining(['README.md', 'docs/spec.md']));
    for (const block of plans) {
      const text = block.lang === 'markdown' ? block.text : `${block.text}\n# The plan\n\nDo it.\n`;
      const parsed = parsePlan('planning/plans/01-foundation/01-02-PLAN.md', text, '01');
      const errors = parsed.problems.filter((p) => p.severity === 'error').map((p) => `${where(block)} (+${p.line}): ${p.message}`);
      expect(errors).toEqual([]);
    }
  });

  it('every .github/harness.yml example is a valid configuration', () => {
    const configs = pages.flatMap((p) => p.blocks.filter((b) => b.lang === 'yaml' && b.before!.includes('.github/harness.yml')));
    expect(configs.length).toBeGreaterThan(0);
    for (const config of configs) {
      const result = HarnessConfigSchema.safeParse(parseYaml(config.text));
      expect(result.success ? [] : result.error.issues.map((i) => `${where(config)}: ${i.path.join('.')}: ${i.message}`)).toEqual([]);
    }
  });
});

describe('the links of the README and docs/', () => {
  const slug = (heading: string) =>
    heading
      .replace(/^#+\s*/, '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- ]/gu, '')
      .replace(/ /g, '-');
  const anchors = (page: string) =>
    new Set(
      pages
        .find((p) => p.page === page)
        ?.prose.filter((l) => /^#{1,6} /.test(l.text))
        .map((l) => slug(l.text)) ?? [],
    );

  it('lead to files that exist, and to headings that exist', () => {
    const wrong: string[] = [];
    for (const { page, prose } of pages) {
      for (const { line, text } of prose) {
        for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = m[1]!;
          if (/^[a-z]+:/.test(target)) continue;
          const [path, anchor] = target.split('#') as [string, string | undefined];
          const file = path ? relative(ROOT, resolve(ROOT, dirname(page), path)) : page;
          if (!existsSync(join(ROOT, file))) wrong.push(`${page}:${line}: ${target} does not exist`);
          else if (anchor && file.endsWith('.md') && !anchors(file).has(anchor)) wrong.push(`${page}:${line}: ${file} has no heading #${anchor}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('the README stays an introduction: under 350 lines, the rest in docs/', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThan(350);
  });
});
