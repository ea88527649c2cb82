import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HarnessConfigSchema } from '../../app/engine/core/config/schema.js';
import { APP_EVENT_NAMES, APP_EVENTS } from '../../app/github/events.js';
import { E2E, INTEGRATION } from '../../vitest.config.js';
import { ROOT } from '../helpers/paths.js';

/**
 * What the docs say about the code, held to the code: the events and permissions tables of
 * docs/github-app.md to app/github/events.ts and app.yml, every version the docs give an agent
 * CLI to the pin in the workflow templates (and each pin overridden by the one repository
 * variable of its own name, in every template that installs it), every repository variable and
 * secret the docs name to the templates that read it, every list of the agents to the agents
 * there are, and what the docs say `npm test` needs to the files it runs. (The `harness` and `/harness` commands the docs use are held to the CLI and
 * the App in examples.test.ts.)
 */

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const filesUnder = (dir: string, end: string): string[] =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith(end))
    .map((f) => `${dir}/${f}`)
    .sort();

const PAGES = ['README.md', ...filesUnder('docs', '.md')];
const TEMPLATES = filesUnder('templates/workflows', '.yml');
const manifest = parse(read('app.yml')) as { default_events: string[]; default_permissions: Record<string, string> };

/** The rows of the first table after a line, as cells. */
function tableAfter(page: string, line: string): string[][] {
  const lines = read(page).split('\n');
  const start = lines.indexOf(line);
  if (start < 0) throw new Error(`${page} has no line "${line}"`);
  const rows: string[][] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.startsWith('|'))
      rows.push(
        l
          .split(/(?<!\\)\|/)
          .slice(1, -1)
          .map((c) => c.trim()),
      );
    else if (rows.length > 0) break;
  }
  return rows.slice(2); // the header and its rule
}

describe('docs/github-app.md', () => {
  it('lists in its events table every event app.yml subscribes to, each with the actions the App handles, and no other', () => {
    const documented = new Map<string, { actions: string[]; for: string }>();
    let event = '';
    for (const [name, actions, why] of tableAfter('docs/github-app.md', '**Events**')) {
      if (name) event = name.replace(/`/g, '');
      const row = documented.get(event) ?? { actions: [], for: '' };
      // `push` has no actions: the App takes every push.
      documented.set(event, { actions: [...row.actions, ...(actions === 'every push' ? [] : actions!.split(/,\s*/))], for: `${row.for} ${why}` });
    }
    expect([...documented.keys()].sort()).toEqual(manifest.default_events);
    expect([...documented.keys()].sort()).toEqual(APP_EVENT_NAMES);
    for (const name of APP_EVENT_NAMES) {
      expect(documented.get(name)!.actions.sort(), name).toEqual([...APP_EVENTS[name].actions].sort());
      // Actions has no trigger for them: the docs say so where they list them.
      expect(documented.get(name)!.for.includes('webhooks only'), `${name}: "sent to webhooks only"`).toBe('webhookOnly' in APP_EVENTS[name]);
    }
  });

  it("lists in its permissions table exactly app.yml's permissions, and names every event under one", () => {
    const rows = tableAfter('docs/github-app.md', '**Permissions, and what each is for**');
    const documented = Object.fromEntries(rows.map(([permission]) => permission!.replace(/`/g, '').split(': ') as [string, string]));
    expect(documented).toEqual(manifest.default_permissions);
    const named = rows.flatMap(([, why]) => [...why!.matchAll(/`([a-z_]+)`(?:,| and| events)/g)].map((m) => m[1]!)).filter((n) => n in APP_EVENTS);
    expect(named.sort()).toEqual(APP_EVENT_NAMES);
  });
});

/** An agent CLI a template installs: `"<package>@${<VARIABLE>}"` in a step, the variable in the job's or the step's env. */
interface Pin {
  template: string;
  pkg: string;
  variable: string;
  /** The env value as written. */
  value: string;
}

function pinsOf(template: string): Pin[] {
  type Step = { run?: string; env?: Record<string, string> };
  const workflow = parse(read(template)) as { jobs: Record<string, { env?: Record<string, string>; steps: Step[] }> };
  return Object.values(workflow.jobs).flatMap((job) =>
    job.steps.flatMap((step) =>
      [...(step.run ?? '').matchAll(/"(@[\w-]+\/[\w-]+)@\$\{(\w+)\}"/g)].map((m) => ({
        template,
        pkg: m[1]!,
        variable: m[2]!,
        value: String(step.env?.[m[2]!] ?? job.env?.[m[2]!] ?? `(${m[2]} is set in no env of the job or the step)`),
      })),
    ),
  );
}

const INSTALLS = TEMPLATES.flatMap(pinsOf);
const OVERRIDABLE = /^\$\{\{ vars\.([A-Z][A-Z0-9_]*) \|\| '(\d+\.\d+\.\d+)' \}\}$/;
/** Each package's pin, as the worker has it. */
const PINS = new Map(
  INSTALLS.filter((i) => i.template.endsWith('/harness-worker.yml')).map((i) => [
    i.pkg,
    { variable: i.variable, version: OVERRIDABLE.exec(i.value)?.[2] ?? `(not pinned: ${i.value})` },
  ]),
);

/** How the docs call each pinned CLI, beside its package, its variable and its own page. */
const CALLED: Record<string, { names: string[]; page?: string }> = {
  '@anthropic-ai/claude-code': { names: ['Claude Code'] },
  '@openai/codex': { names: ['Codex CLI'], page: 'docs/agents/codex.md' },
  '@google/gemini-cli': { names: ['Gemini CLI'], page: 'docs/agents/gemini.md' },
  '@github/copilot': { names: ['Copilot CLI'], page: 'docs/agents/copilot.md' },
};

/** A page's paragraphs, and each row of its tables on its own, on one line each. */
function units(page: string): string[] {
  return read(page)
    .split(/\n\s*\n/)
    .flatMap((block) => (block.trimStart().startsWith('|') ? block.split('\n') : [block.replace(/\s*\n\s*/g, ' ')]));
}

describe('the agent CLIs the worker installs', () => {
  it('are the four agents that run a CLI, the docs knowing each by its names', () => {
    expect([...PINS.keys()].sort()).toEqual(Object.keys(CALLED).sort());
  });

  it('are each pinned in every template by one variable, which the repository variable of the same name overrides', () => {
    expect(INSTALLS.length).toBeGreaterThanOrEqual(5);
    for (const install of INSTALLS) {
      const pin = OVERRIDABLE.exec(install.value);
      expect(pin?.[1], `${install.template}: ${install.variable}: ${install.value}`).toBe(install.variable);
      expect({ pkg: install.pkg, variable: install.variable, version: pin?.[2] }, install.template).toEqual({ pkg: install.pkg, ...PINS.get(install.pkg) });
    }
    // No template reads a version from a repository variable by another name.
    const versionVariables = new Set(TEMPLATES.flatMap((t) => [...read(t).matchAll(/\bvars\.(\w*VERSION\w*)/g)].map((m) => m[1]!)));
    expect([...versionVariables].sort()).toEqual([...PINS.values()].map((p) => p.variable).sort());
  });

  it("are in the README's agents table at their pins, with the variable that overrides each", () => {
    const readme = read('README.md');
    for (const [pkg, pin] of PINS) {
      expect(readme, pkg).toContain(`| \`${pkg}\` ${pin.version} |`);
      expect(readme, pin.variable).toContain(`\`${pin.variable}\``);
    }
  });

  it('are at their pins wherever the docs give a version of one', () => {
    const wrong: string[] = [];
    let seen = 0;
    for (const page of PAGES) {
      const own = Object.entries(CALLED).find(([, c]) => c.page === page)?.[0];
      for (const unit of units(page)) {
        for (const m of unit.matchAll(/(?<![\d.])\d+\.\d+\.\d+(?!\.?\d)/g)) {
          // The CLI named last before the version, else the CLI whose page this is.
          let pkg = own;
          let at = -1;
          for (const [name, pin] of PINS) {
            for (const alias of [name, pin.variable, ...CALLED[name]!.names]) {
              const i = unit.lastIndexOf(alias, m.index);
              if (i > at) [pkg, at] = [name, i];
            }
          }
          if (pkg === undefined) continue;
          seen++;
          if (m[0] !== PINS.get(pkg)!.version)
            wrong.push(`${page}: ${m[0]} for ${pkg}, pinned at ${PINS.get(pkg)!.version}: "…${unit.slice(Math.max(0, m.index - 60), m.index + 12)}…"`);
        }
      }
    }
    expect(seen).toBeGreaterThan(15);
    expect(wrong).toEqual([]);
  });
});

describe('the repository variables and secrets the docs name', () => {
  const reads = (kind: 'vars' | 'secrets') =>
    new Set(TEMPLATES.flatMap((t) => [...read(t).matchAll(new RegExp(`\\b${kind}\\.([A-Z][A-Z0-9_]*)`, 'g'))].map((m) => m[1]!)));
  const variables = reads('vars');
  const secrets = reads('secrets');

  it('are read by a template, as a variable or as a secret as the docs call them', () => {
    const wrong: string[] = [];
    let seen = 0;
    for (const page of PAGES) {
      for (const unit of units(page)) {
        for (const m of unit.matchAll(/\b(variable|secret)s?\s+`([A-Z][A-Z0-9_]*)`/g)) {
          seen++;
          if (!(m[1] === 'variable' ? variables : secrets).has(m[2]!))
            wrong.push(`${page}: the ${m[1]} ${m[2]}: no template reads ${m[1] === 'variable' ? 'vars' : 'secrets'}.${m[2]}`);
        }
      }
    }
    expect(seen).toBeGreaterThan(15);
    expect(wrong).toEqual([]);
  });

  it('are, where the docs quote a template setting one, what the template says', () => {
    const env = new Map<string, string>();
    for (const t of TEMPLATES) {
      const workflow = parse(read(t)) as { jobs: Record<string, { env?: Record<string, string> }> };
      for (const job of Object.values(workflow.jobs)) for (const [k, v] of Object.entries(job.env ?? {})) env.set(k, String(v));
    }
    const quoted = PAGES.flatMap((page) =>
      units(page).flatMap((u) => [...u.matchAll(/`([A-Z][A-Z0-9_]*): (\$\{\{[^`]*\}\})`/g)].map((m) => ({ page, name: m[1]!, value: m[2]! }))),
    );
    expect(quoted.length).toBeGreaterThan(0);
    for (const q of quoted) expect(q.value, `${q.page}: ${q.name}`).toBe(env.get(q.name));
  });
});

describe('what the docs say the test suites need', () => {
  /** The test files that launch a Chromium: they use the launcher, app/machine/verify-browser.ts. */
  const chromium = filesUnder('test', '.test.ts').filter((f) => /from '[./]+\/app\/machine\/verify-browser\.js'/.test(read(f)));

  it('is true of npm test (the unit files), npm run test:integration (the INTEGRATION list) and npm run test:e2e (the E2E list) alike', () => {
    expect(chromium.length).toBeGreaterThan(0);
    const suites = {
      'npm test': chromium.some((f) => !E2E.includes(f) && !INTEGRATION.includes(f)),
      'npm run test:integration': chromium.some((f) => INTEGRATION.includes(f)),
      'npm run test:e2e': chromium.some((f) => E2E.includes(f)),
    };
    const wrong: string[] = [];
    for (const page of PAGES) {
      read(page)
        .split('\n')
        .forEach((line, i) => {
          // Each command's words run to the next command on the line.
          const at = [...line.matchAll(/npm test\b|npm run test:integration\b|npm run test:e2e\b/g)];
          at.forEach((m, k) => {
            const words = line.slice(m.index + m[0].length, at[k + 1]?.index ?? line.length);
            if (/chromium/i.test(words) && !suites[m[0] as keyof typeof suites])
              wrong.push(
                `${page}:${i + 1}: ${m[0]} runs no test that needs Chromium (${chromium.join(', ')} are unit, integration or e2e as vitest.config.ts has them)`,
              );
          });
        });
    }
    expect(wrong).toEqual([]);
  });
});

describe('the agents the docs list', () => {
  const AGENTS: readonly string[] = HarnessConfigSchema.shape.agent.unwrap().options;

  it('are every agent there is, wherever the docs list three or more of them', () => {
    const wrong: string[] = [];
    let seen = 0;
    const name = `\`(?:${AGENTS.join('|')})\``;
    for (const page of PAGES) {
      for (const unit of units(page)) {
        // Names one after another, a comma or a few words between them: `claude`, any `command`, or the deterministic `script`.
        for (const m of unit.matchAll(new RegExp(`${name}(?:,?\\s(?:[a-z]+\\s){0,3}${name})+`, 'g'))) {
          const listed = [...m[0].matchAll(/`(\w+)`/g)].map((n) => n[1]!);
          if (listed.length < 3) continue;
          seen++;
          const missing = AGENTS.filter((a) => !listed.includes(a));
          if (missing.length > 0) wrong.push(`${page}: ${m[0]} leaves out ${missing.join(', ')}`);
        }
      }
    }
    expect(seen).toBeGreaterThan(0);
    expect(wrong).toEqual([]);
  });
});
