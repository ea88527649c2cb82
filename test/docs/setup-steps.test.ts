import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMMAND_NAMES } from '../../app/engine/forge/command.js';
import { phaseCheck, planBranch, planCheck, SPEC_CHECK } from '../../app/engine/forge/names.js';
import { HarnessConfigSchema } from '../../app/engine/core/config/schema.js';
import { APP_EVENT_NAMES } from '../../app/github/events.js';
import { ROOT } from '../helpers/paths.js';

/**
 * "Set up on GitHub", in the README and at the top of docs/github-app.md, takes a person from
 * nothing to a first `/harness execute 01-01`. Followed by the letter, it must work: at most ten
 * steps, the same in both pages, and every name either gives in backticks — a secret, a
 * variable, a file, a workflow, an event, a check run, a branch, a command — is one that
 * app.yml, the workflow templates or the code use, under that kind. The table of repository
 * variables and secrets is every one the templates read, and only those; the diagram names only
 * events, files and check runs that exist; app.yml's comments point at headings that exist.
 */

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const filesUnder = (dir: string, end: string): string[] =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(end))
    .map((f) => `${dir}/${f}`)
    .sort();

const TEMPLATES = filesUnder('templates/workflows', '.yml');
const templateText = new Map(TEMPLATES.map((f) => [f, read(f)]));
const manifest = parse(read('app.yml')) as Record<string, unknown>;
const appCode = filesUnder('app', '.ts')
  .map((f) => read(f))
  .join('\n');

/** The repository variables and secrets each template reads (`vars.X`, `secrets.X`). */
function namesRead(kind: 'vars' | 'secrets'): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const [file, text] of templateText) {
    for (const m of text.matchAll(new RegExp(`\\b${kind}\\.([A-Z][A-Z0-9_]*)`, 'g'))) {
      const readers = names.get(m[1]!) ?? [];
      if (!readers.includes(file)) names.set(m[1]!, [...readers, file]);
    }
  }
  return names;
}
const VARIABLES = namesRead('vars');
const SECRETS = namesRead('secrets');

/** What Probot reads from its environment and writes to .env when it creates the App. */
const PROBOT = [
  'node_modules/probot/lib/bin/read-env-options.js',
  'node_modules/@probot/get-private-key/dist-bundle/index.js',
  'node_modules/probot/lib/manifest-creation.js',
]
  .map(read)
  .join('\n');
const PROBOT_ENV = new Set([...PROBOT.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g), ...PROBOT.matchAll(/^\s+([A-Z][A-Z0-9_]*): /gm)].map((m) => m[1]!));
/** The environment the code reads. */
const CODE_ENV = new Set([...appCode.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!));

/** Every event something is started by: the App's, and each template's `on:`. */
const EVENTS = new Set<string>([
  ...APP_EVENT_NAMES,
  ...(manifest.default_events as string[]),
  ...TEMPLATES.flatMap((f) => Object.keys((parse(templateText.get(f)!) as { on: Record<string, unknown> }).on)),
]);
const worker = parse(templateText.get('templates/workflows/harness-worker.yml')!) as { on: { workflow_dispatch: { inputs: Record<string, unknown> } } };
const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);
const configKeys = Object.keys(HarnessConfigSchema.shape);
const isAgent = (name: string): boolean => HarnessConfigSchema.safeParse({ agent: name }).success;

/** A heading's section: its lines up to the next heading of the same level or higher. */
function section(page: string, heading: string): string {
  const lines = read(page).split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`${page} has no heading "${heading}"`);
  const level = heading.indexOf(' ');
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && l.indexOf(' ') <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The numbered steps of a section's first list: number, and the step's text on one line. */
function steps(text: string): { n: number; text: string }[] {
  const found: { n: number; text: string }[] = [];
  for (const line of text.split('\n')) {
    const item = /^(\d+)\. (.*)$/.exec(line);
    if (item) found.push({ n: Number(item[1]), text: item[2]! });
    else if (found.length > 0 && /^ {3,}\S/.test(line)) found.at(-1)!.text += ` ${line.trim()}`;
    else if (found.length > 0 && line.trim() !== '') break;
  }
  return found;
}
/** A step's bold lead, its links' targets left out (they are relative to each page). */
const lead = (step: string): string => (/^\*\*(.+?)\*\*/.exec(step)?.[1] ?? `(step without a bold lead: ${step.slice(0, 40)})`).replace(/\]\([^)]*\)/g, ']');

const readme = () => section('README.md', '### Set up on GitHub');
const guide = () => section('docs/github-app.md', '## Set up on GitHub');

/** Why a name in backticks is not what it says it is, or undefined when it is. */
function wrongName(name: string, before: string): string | undefined {
  const said = /\b(variable|secret)s?\s*$/.exec(before)?.[1];
  if (/^[A-Z][A-Z0-9_]*$/.test(name)) {
    const kind = VARIABLES.has(name) ? 'variable' : SECRETS.has(name) ? 'secret' : undefined;
    if (said && kind !== said)
      return `${name} is called a ${said}, but no template reads ${said === 'variable' ? 'vars' : 'secrets'}.${name}${kind ? ` (it is a ${kind})` : ''}`;
    if (kind || PROBOT_ENV.has(name) || CODE_ENV.has(name)) return undefined;
    return `${name} is no repository variable or secret a template reads, and nothing reads it from the environment`;
  }
  if (name.startsWith('/harness ')) {
    const command = name.split(/\s+/)[1]!;
    return (COMMAND_NAMES as readonly string[]).includes(command) ? undefined : `/harness ${command} is no command`;
  }
  if (name.startsWith('npm ')) {
    for (const part of name.split('&&').map((p) => p.trim())) {
      const script = /^npm (?:run )?([\w:-]+)$/.exec(part)?.[1];
      if (script !== 'install' && !scripts.includes(script ?? '')) return `${part} runs no script of package.json`;
    }
    return undefined;
  }
  if (name.startsWith('harness / ')) {
    const known = [SPEC_CHECK, planCheck('01-01'), phaseCheck('01')].map((c) => c.replace(/\d\d-\d\d$|\d\d$/, ''));
    return known.some((c) => name.replace(/\d\d-\d\d$|\d\d$/, '') === c) ? undefined : `${name} is no check run harness writes`;
  }
  const branch = /^harness\/([^/]+)\/([^/]+)$/.exec(name);
  if (branch) {
    const spec = readdirSync(join(ROOT, 'examples/specs')).find((d) => d.startsWith(`${branch[1]}-`));
    if (planBranch(branch[1]!, branch[2]!) !== name || !spec) return `${name} is no plan branch of the example spec`;
    return filesUnder(`examples/specs/${spec}/planning/plans`, `${branch[2]}-PLAN.md`).length === 1 ? undefined : `the example spec has no plan ${branch[2]}`;
  }
  if (/^https?:\/\//.test(name)) {
    const path = name.replace(/^https?:\/\/[^/]+/, '');
    return PROBOT.includes(`"${path}"`) || read('node_modules/probot/lib/server/server.js').includes(`"${path}"`)
      ? undefined
      : `Probot serves nothing at ${path}`;
  }
  if (name.includes('<')) {
    const said = new RegExp(name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/<[^>]+>/g, '\\$\\{[^}]+\\}'));
    return said.test(appCode) ? undefined : `the code never writes "${name}"`;
  }
  const workflow = /^\.github\/workflows\/([\w.-]+)$/.exec(name);
  if (workflow) {
    const template = `templates/workflows/${workflow[1]}`;
    const comments = templateText
      .get(template)
      ?.split('\n')
      .filter((l) => l.startsWith('#'))
      .map((l) => l.replace(/^#\s?/, ''))
      .join(' ');
    return comments?.includes(`Copy this file to ${name}`) ? undefined : `no template says to copy itself to ${name}`;
  }
  if (/^[\w.-]+\.yml$/.test(name))
    return existsSync(join(ROOT, name)) || templateText.has(`templates/workflows/${name}`) ? undefined : `${name} is no file and no workflow template`;
  if (/[/.]/.test(name)) {
    // A file of harness; else a path the code has as a string of its own, or a template as a value (uses: ./…).
    const path = name.replace(/\/$/, '');
    const quoted = new RegExp(`['"\`]${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/?['"\`]`);
    const value = new RegExp(`(?:^|\\s)${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/?$`, 'm');
    // (A bare word like `specs` the code may quote for anything: a path it names has a / or starts with a dot.)
    const pathLike = /\/|^\./.test(path);
    if (
      existsSync(join(ROOT, path)) ||
      (pathLike && quoted.test(appCode)) ||
      [...templateText.values()].some((t) => value.test(t)) ||
      (pathLike && quoted.test(read('node_modules/probot/lib/helpers/update-env.js')))
    )
      return undefined;
    return `${name} is no file of harness, and neither the templates nor the code name it`;
  }
  if (/^[a-z]+(_[a-z]+)+$/.test(name) && EVENTS.has(name)) return undefined;
  if (configKeys.includes(name.replace(/:$/, ''))) return undefined;
  if (isAgent(name)) return undefined;
  if (name in worker.on.workflow_dispatch.inputs) return undefined;
  if (name in manifest) return undefined;
  return `nothing in app.yml, the templates or the code is called ${name}`;
}

function wrongNames(text: string): string[] {
  const wrong: string[] = [];
  for (const m of text.matchAll(/(?<!`)`([^`]+)`(?!`)/g)) {
    const why = wrongName(m[1]!, text.slice(Math.max(0, m.index - 30), m.index));
    if (why) wrong.push(why);
  }
  return wrong;
}

describe('Set up on GitHub', () => {
  it('is at most ten numbered steps, the same in the README and docs/github-app.md, ending at /harness execute 01-01', () => {
    const short = steps(readme());
    const full = steps(guide());
    expect(short.map((s) => s.n)).toEqual(short.map((_, i) => i + 1));
    expect(short.length).toBeGreaterThan(0);
    expect(short.length).toBeLessThanOrEqual(10);
    expect(full.map((s) => lead(s.text))).toEqual(short.map((s) => lead(s.text)));
    for (const s of [short.at(-1)!, full.at(-1)!]) expect(s.text).toContain('`/harness execute 01-01`');
  });

  it('says every secret and variable with the kind the templates read it as, and the same ones in both pages', () => {
    const named = (text: string) => new Set([...text.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!).filter((n) => VARIABLES.has(n) || SECRETS.has(n)));
    // The README's are a subset of the guide's (which also lists every one in its table).
    expect([...named(readme())].filter((n) => !named(guide()).has(n))).toEqual([]);
    // What a first run cannot do without.
    expect([...named(readme())]).toEqual(expect.arrayContaining(['HARNESS_APP_CLIENT_ID', 'HARNESS_APP_PRIVATE_KEY', 'HARNESS_REPOSITORY', 'HARNESS_REF']));
  });

  it.each([
    ['README.md', readme],
    ['docs/github-app.md', guide],
  ])('in %s names in backticks only what app.yml, the templates and the code have', (_page, sectionText) => {
    const text = sectionText();
    expect((text.match(/`[^`]+`/g) ?? []).length).toBeGreaterThan(20);
    expect(wrongNames(text)).toEqual([]);
  });

  it('has a table of every repository variable and secret the templates read: its kind and the templates that read it', () => {
    const table = section('docs/github-app.md', '### Repository variables and secrets');
    const rows = table
      .split('\n')
      .filter((l) => /^\| `[A-Z]/.test(l))
      .map((l) => l.split('|').map((c) => c.trim()));
    const documented = rows.map(([, name, kind, readBy]) => ({
      name: name!.replace(/`/g, ''),
      kind: kind!,
      readBy: [...readBy!.matchAll(/`([\w.-]+)`/g)].map((m) => `templates/workflows/${m[1]}`).sort(),
    }));
    const actual = [
      ...[...VARIABLES].map(([name, readBy]) => ({ name, kind: 'variable', readBy: [...readBy].sort() })),
      ...[...SECRETS].map(([name, readBy]) => ({ name, kind: 'secret', readBy: [...readBy].sort() })),
    ];
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect(documented.sort(byName)).toEqual(actual.sort(byName));
  });
});

describe('the diagram at the top of docs/github-app.md', () => {
  const diagram = /```mermaid\n([\s\S]*?)```/.exec(read('docs/github-app.md').split('\n## ')[1] ?? '')?.[1] ?? '';

  it('comes first, under "How the parts fit"', () => {
    expect(read('docs/github-app.md').split('\n## ')[1]).toMatch(/^How the parts fit\n/);
    expect(diagram).toMatch(/^flowchart /);
  });

  it('shows every event the App handles, workflow_dispatch, and no other', () => {
    // An event is a snake_case word, or one of the App's events by its name (push).
    const events = new Set(
      [...diagram.matchAll(/\b[a-z]+(?:_[a-z]+)*\b/g)].map((m) => m[0]).filter((w) => w.includes('_') || (APP_EVENT_NAMES as string[]).includes(w)),
    );
    expect([...events].sort()).toEqual([...APP_EVENT_NAMES, 'workflow_dispatch'].sort());
  });

  it('names workflows, check runs, branches, actions and agents that exist', () => {
    const wrong: string[] = [];
    for (const file of diagram.match(/(?<![\w/.-])[\w.-]+\.yml\b/g) ?? [])
      if (file !== 'app.yml' && !templateText.has(`templates/workflows/${file}`)) wrong.push(`${file} is no workflow template`);
    // Each of harness's check runs, by its name (a plan's and a phase's with their ids' shapes), and no other.
    const checks = [SPEC_CHECK, planCheck('PP-NN'), phaseCheck('PP')];
    expect(diagram.match(/harness \/ [^,"]+/g)?.sort()).toEqual(checks.sort());
    for (const path of diagram.match(/\bactions\/\w+/g) ?? []) if (!existsSync(join(ROOT, path, 'action.yml'))) wrong.push(`${path} is no action`);
    for (const path of diagram.match(/\.github\/[\w.]+|docs\/specs|\.harness\/knowledge|refs\/harness\//g) ?? [])
      if (!appCode.includes(path) && ![...templateText.values()].some((t) => t.includes(path))) wrong.push(`neither the code nor a template names ${path}`);
    for (const branch of diagram.match(/harness\/SPEC\/[\w-]+/g) ?? [])
      if (![planBranch('SPEC', 'PP-NN'), planBranch('SPEC', 'phase-PP')].includes(branch)) wrong.push(`${branch} is no branch harness makes`);
    expect(wrong).toEqual([]);
    const agents = /agent: ([a-z, ]+ or [a-z]+)/.exec(diagram)?.[1]?.split(/, | or /) ?? [];
    expect(agents.sort()).toEqual((HarnessConfigSchema.shape.agent.unwrap().options as string[]).slice().sort());
  });
});

describe("app.yml's and the workflow templates' comments", () => {
  const slug = (heading: string) =>
    heading
      .replace(/^#+\s*/, '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- ]/gu, '')
      .replace(/ /g, '-');

  it('point at pages and headings that exist', () => {
    const links: string[] = [];
    const wrong: string[] = [];
    for (const file of ['app.yml', ...TEMPLATES]) {
      const comments = read(file)
        .split('\n')
        .filter((l) => l.trimStart().startsWith('#'))
        .join('\n');
      // A path from the repository's root (docs/…), or a page with a heading; a bare PLAN.md is a kind of file, not a link.
      for (const m of comments.matchAll(/([\w.-]+(?:\/[\w.-]+)+\.md|[\w.-]+\.md(?=#))(?:#([\w-]+))?/g)) {
        links.push(`${file}: ${m[1]}${m[2] ? `#${m[2]}` : ''}`);
        if (!existsSync(join(ROOT, m[1]!))) wrong.push(`${file}: ${m[1]} does not exist`);
        else if (
          m[2] &&
          !read(m[1]!)
            .split('\n')
            .some((l) => /^#{1,6} /.test(l) && slug(l) === m[2])
        )
          wrong.push(`${file}: ${m[1]} has no heading #${m[2]}`);
      }
    }
    expect(links).toEqual(expect.arrayContaining(['app.yml: README.md#set-up-on-github']));
    expect(wrong).toEqual([]);
  });
});
