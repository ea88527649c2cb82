import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { convertWorkflowTemplate, NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { convertActionTemplate, parseAction } from '@actions/workflow-parser/actions/index';
import { Probot } from 'probot';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import harnessApp from '../../app/github/app.js';
import { ACTIONS_EVENT_NAMES, APP_EVENT_NAMES, APP_EVENTS } from '../../app/github/events.js';
import { checkActions, findActions } from '../../scripts/build-actions.js';
import { ROOT } from '../helpers/paths.js';

const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** How every template mints the App's token: create-github-app-token v3's client-id, the older app id still taken. */
const MINT = { 'client-id': '${{ vars.HARNESS_APP_CLIENT_ID || secrets.HARNESS_APP_ID }}', 'private-key': '${{ secrets.HARNESS_APP_PRIVATE_KEY }}' };

/** The permission GitHub requires of an App before it sends each event. */
const EVENT_PERMISSION: Record<string, string> = {
  pull_request: 'pull_requests',
  pull_request_review: 'pull_requests',
  issue_comment: 'issues',
  check_run: 'checks',
  workflow_run: 'actions',
  push: 'contents',
  issue_dependencies: 'issues',
  sub_issues: 'issues',
};

/** Every `app.on(...)` the app makes when loaded, as event → actions (`null`: every action). */
async function handledEvents(): Promise<Map<string, Set<string | null>>> {
  const handled = new Map<string, Set<string | null>>();
  const probot = new Probot({ githubToken: 'test-token', logLevel: 'fatal' });
  const on = probot.on;
  probot.on = ((names: string | string[], handler: never) => {
    for (const name of Array.isArray(names) ? names : [names]) {
      const [event = name, action = null] = name.split('.');
      handled.set(event, (handled.get(event) ?? new Set()).add(action));
    }
    return on(names as never, handler);
  }) as typeof probot.on;
  probot.onAny = (() => {
    handled.set('*', new Set([null]));
  }) as typeof probot.onAny;
  await probot.load(harnessApp);
  return handled;
}

describe('app.yml', () => {
  const manifest = parse(read('app.yml')) as Record<string, unknown>;

  it('asks for the least permissions that work, and says so', () => {
    expect(manifest.default_permissions).toEqual({
      actions: 'write',
      checks: 'write',
      contents: 'write',
      issues: 'write',
      metadata: 'read',
      pull_requests: 'write',
    });
    expect(manifest.public).toBe(false);
    expect(manifest).toMatchObject({ name: expect.any(String), description: expect.any(String), url: expect.stringMatching(/^https:\/\//) });
    // Probot fills the webhook in from where it runs; a value here would replace it.
    expect(manifest).not.toHaveProperty('hook_attributes');
  });

  it('subscribes to exactly the events in app/github/events.ts, each with the permission GitHub requires for it', () => {
    expect(manifest.default_events).toEqual(APP_EVENT_NAMES);
    const permissions = manifest.default_permissions as Record<string, string>;
    for (const event of APP_EVENT_NAMES) expect(permissions[EVENT_PERMISSION[event] ?? `no permission known for ${event}`]).toBeDefined();
  });
});

describe('the events the app handles', () => {
  it('are the ones it subscribes to: no handler for an event GitHub never sends it, no subscription nothing handles', async () => {
    const handled = await handledEvents();
    expect(handled.has('*'), 'onAny would need every event').toBe(false);
    expect([...handled.keys()].sort()).toEqual(APP_EVENT_NAMES);
    // The declared actions are what harness-app.yml starts a job for: each must have a handler.
    for (const [event, actions] of handled) {
      const declared = [...APP_EVENTS[event as keyof typeof APP_EVENTS].actions].sort();
      if (!actions.has(null)) expect([...actions].sort(), `the actions of ${event} the app handles`).toEqual(declared);
    }
  });
});

describe('the actions', () => {
  const actionDirs = readdirSync(join(ROOT, 'actions'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

  it.each(actionDirs)('actions/%s/action.yml is valid, runs node24, and its main exists', (name) => {
    const file = `actions/${name}/action.yml`;
    const content = read(file);
    const result = parseAction({ name: file, content }, new NoOperationTraceWriter());
    expect(result.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    expect(result.value).toBeDefined();
    const action = convertActionTemplate(result.context, result.value!);
    expect(result.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    expect(action.runs.using).toBe('node24');
    const main = (action.runs as { main: string }).main;
    expect(main).toBe('dist/index.js');
    expect(existsSync(join(ROOT, 'actions', name, main)), `${file}: runs.main ${main} is missing; run npm run build:actions`).toBe(true);
  });

  it('every action with sources is bundled by the build script', () => {
    expect(findActions(ROOT).map((a) => a.name)).toEqual(actionDirs.filter((name) => existsSync(join(ROOT, 'actions', name, 'src', 'index.ts'))));
  });

  it('the committed bundles are what the sources build to (npm run build:actions -- --check)', async () => {
    expect(await checkActions(ROOT)).toEqual({ stale: [], orphaned: [] });
  }, 120_000);
});

describe('workflows', () => {
  const files = [
    '.github/workflows/ci.yml',
    'templates/workflows/harness-app.yml',
    'templates/workflows/harness-reflect.yml',
    'templates/workflows/harness-decay.yml',
    'templates/workflows/harness-worker.yml',
  ];
  /**
   * The actions the templates pin, each with the `runs:` of its action.yml at that commit as
   * recorded from the action's repository (test/fixtures/actions/pinned.json): runners removed
   * Node 20 on 2026-09-16, so a pin must run on Node 24.
   */
  const pinned = JSON.parse(read('test/fixtures/actions/pinned.json')) as Record<string, { tag: string; runs: string }>;
  const usesOf = (file: string): string[] => {
    const workflow = parse(read(file)) as { jobs: Record<string, { steps: { uses?: string }[] }> };
    return Object.values(workflow.jobs).flatMap((job) => job.steps.map((step) => step.uses).filter((u): u is string => u !== undefined));
  };

  it.each(files)('%s is a valid workflow', async (file) => {
    const result = parseWorkflow({ name: file, content: read(file) }, new NoOperationTraceWriter());
    expect(result.context.errors.getErrors().map((e) => e.message)).toEqual([]);
    const template = await convertWorkflowTemplate(result.context, result.value!);
    expect(template.errors ?? []).toEqual([]);
    expect(template.jobs.length).toBeGreaterThan(0);
  });

  it.each(files)('%s grants no permission by default and pins every action to a commit', (file) => {
    const workflow = parse(read(file)) as { permissions: unknown };
    expect(workflow.permissions).toEqual({});
    // harness's own actions are used by path from a checkout of harness at HARNESS_REF (or the dispatched commit): no placeholder to edit by hand.
    const unpinned = usesOf(file).filter((u) => !/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/.test(u) && !/^\.\/\.harness-action\/actions\/(app|worker)$/.test(u));
    expect(unpinned).toEqual([]);
  });

  it.each(files.filter((f) => f.startsWith('templates/')))('%s uses no action that runs on Node 20 (runners removed it on 2026-09-16)', (file) => {
    for (const uses of usesOf(file).filter((u) => !u.startsWith('./'))) {
      expect(pinned[uses], `${uses} is recorded in test/fixtures/actions/pinned.json`).toBeDefined();
      expect(pinned[uses]!.runs, uses).toMatch(/using: ["']?node24["']?/);
    }
    for (const local of usesOf(file).filter((u) => u.startsWith('./.harness-action/'))) {
      const action = parse(read(`${local.slice('./.harness-action/'.length)}/action.yml`)) as { runs: { using: string } };
      expect(action.runs.using, local).toBe('node24');
    }
  });

  it.each(files.filter((f) => f.startsWith('templates/')))(
    '%s takes harness at a fixed revision, and refuses HARNESS_REPOSITORY without HARNESS_REF',
    (file) => {
      const workflow = parse(read(file)) as {
        jobs: Record<string, { steps: { name?: string; uses?: string; if?: string; with?: Record<string, string | boolean> }[] }>;
      };
      const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
      const harness = steps.find((s) => s.with?.path === '.harness-action');
      expect(harness?.with).toMatchObject({
        repository: '${{ vars.HARNESS_REPOSITORY || github.repository }}',
        ref: '${{ vars.HARNESS_REF || github.sha }}',
        'persist-credentials': false,
      });
      expect(steps.find((s) => s.name === 'Refuse an unpinned harness')?.if).toBe("vars.HARNESS_REPOSITORY != '' && vars.HARNESS_REF == ''");
      // The refusal comes before harness is checked out.
      expect(steps.findIndex((s) => s.name === 'Refuse an unpinned harness')).toBeLessThan(steps.indexOf(harness!));
    },
  );

  it('harness-worker.yml installs the pinned Claude Code, whose native binary needs its postinstall', () => {
    const worker = parse(read('templates/workflows/harness-worker.yml')) as {
      jobs: { work: { env: Record<string, string>; steps: { name?: string; run?: string }[] } };
    };
    expect(worker.jobs.work.env.CLAUDE_CODE_VERSION).toBe("${{ vars.CLAUDE_CODE_VERSION || '2.1.332' }}");
    const install = worker.jobs.work.steps.find((s) => s.name?.startsWith('Install Claude Code'))!;
    expect(install.run).toContain('@anthropic-ai/claude-code/install.cjs');
  });

  it('harness-worker.yml installs the pinned Gemini CLI, cached, on Node 24, only for a gemini plan, with its key in the worker step alone', () => {
    type Step = { name?: string; uses?: string; if?: string; run?: string; with?: Record<string, string | number>; env?: Record<string, string> };
    const worker = parse(read('templates/workflows/harness-worker.yml')) as { jobs: { work: { env: Record<string, string>; steps: Step[] } } };
    expect(worker.jobs.work.env.GEMINI_CLI_VERSION).toBe("${{ vars.GEMINI_CLI_VERSION || '0.61.0' }}");
    const steps = worker.jobs.work.steps;
    const gemini = steps.filter((s) => s.if === "contains(steps.agent.outputs.engines, ' gemini ')");
    expect(gemini.map((s) => s.name)).toEqual(['Node 24 for Gemini CLI', 'Cache Gemini CLI', 'Install Gemini CLI ${{ env.GEMINI_CLI_VERSION }}']);
    expect(gemini[0]!.with).toEqual({ 'node-version': 24 });
    expect(gemini[1]!.with?.key).toBe('gemini-cli-${{ runner.os }}-${{ env.GEMINI_CLI_VERSION }}');
    expect(gemini[2]!.run).toContain('npm install --no-audit --no-fund --prefix "$prefix" "@google/gemini-cli@${GEMINI_CLI_VERSION}"');
    const holders = steps.filter((s) => Object.values(s.env ?? {}).some((v) => v.includes('secrets.GEMINI_API_KEY')));
    expect(holders.map((s) => s.name)).toEqual(['Work on the plan (or spike)']);
  });

  it('harness-worker.yml installs the pinned Copilot CLI, its native binary, only for copilot plans, and gives it its own token', () => {
    const worker = parse(read('templates/workflows/harness-worker.yml')) as {
      jobs: {
        work: {
          env: Record<string, string>;
          steps: { name?: string; if?: string; run?: string; uses?: string; with?: Record<string, string>; env?: Record<string, string> }[];
        };
      };
    };
    const { env, steps } = worker.jobs.work;
    expect(env.COPILOT_CLI_VERSION).toBe("${{ vars.COPILOT_CLI_VERSION || '1.0.102' }}");
    const install = steps.find((s) => s.name?.startsWith('Install GitHub Copilot CLI'))!;
    expect(install.if).toBe("contains(steps.agent.outputs.engines, ' copilot ')");
    expect(install.run).toContain('npm install --no-audit --no-fund --ignore-scripts --prefix "$prefix" "@github/copilot@${COPILOT_CLI_VERSION}"');
    expect(install.run).toContain('binary="$prefix/node_modules/@github/copilot-$os-$arch/copilot"');
    const cache = steps.find((s) => s.name === 'Cache GitHub Copilot CLI')!;
    expect(cache).toMatchObject({
      if: "contains(steps.agent.outputs.engines, ' copilot ')",
      with: { path: '${{ runner.temp }}/copilot-cli', key: 'copilot-cli-${{ runner.os }}-${{ runner.arch }}-${{ env.COPILOT_CLI_VERSION }}' },
    });
    // The Copilot token is a secret of its own, in the worker step's environment only; the worker never hands GITHUB_TOKEN to the agent.
    const holders = steps.filter((s) => JSON.stringify(s).includes('COPILOT_GITHUB_TOKEN'));
    expect(holders.map((s) => s.uses)).toEqual(['./.harness-action/actions/worker']);
    expect(holders[0]!.env!.COPILOT_GITHUB_TOKEN).toBe('${{ secrets.COPILOT_GITHUB_TOKEN }}');
  });

  it("harness-worker.yml installs the fallback engines too: the plan's `fallback:`, else agents.fallback, none when HARNESS_AGENT overrides", () => {
    const worker = parse(read('templates/workflows/harness-worker.yml')) as { jobs: { work: { steps: { name?: string; run?: string }[] } } };
    const script = worker.jobs.work.steps.find((s) => s.name === 'Which agent the plan uses')!.run!;
    const dir = mkdtempSync(join(tmpdir(), 'harness-which-agent-'));
    mkdirSync(join(dir, 'plans'));
    mkdirSync(join(dir, '.github'));
    writeFileSync(join(dir, '.github/harness.yml'), 'agent: claude\nagents:\n  fallback: [codex]\n  codex:\n    model: o5\nslots: 2\n');
    const outputs = (plan: string, frontmatter: string, override = '') => {
      writeFileSync(join(dir, 'plans/01-01-PLAN.md'), `---\nplan_id: "01-01"\n${frontmatter}---\n# A plan\n`);
      const out = join(dir, 'output');
      writeFileSync(out, '');
      execFileSync('bash', ['-e', '-c', script], { cwd: dir, env: { PATH: process.env.PATH, GITHUB_OUTPUT: out, PLAN: plan, OVERRIDE: override } });
      return readFileSync(out, 'utf8');
    };
    expect(outputs('01-01', 'agent: codex\nfallback: [gemini, "copilot"]\n')).toBe('agent=codex\nengines= codex gemini copilot \n');
    expect(outputs('01-01', 'agent: gemini\n')).toBe('agent=gemini\nengines= gemini codex \n');
    expect(outputs('01-01', 'fallback: [gemini]\n', 'claude')).toBe('agent=claude\nengines= claude  \n');
    expect(outputs('phase-01', '')).toBe('agent=none\nengines= none  \n');
  });

  it('harness-worker.yml installs the pinned Codex CLI only for a codex plan, cached, and hands its key to the worker step alone', () => {
    type Step = { name?: string; run?: string; if?: string; uses?: string; with?: Record<string, string>; env?: Record<string, string> };
    const worker = parse(read('templates/workflows/harness-worker.yml')) as { jobs: { work: { env: Record<string, string>; steps: Step[] } } };
    expect(worker.jobs.work.env.CODEX_VERSION).toBe("${{ vars.CODEX_VERSION || '0.171.0' }}");
    const steps = worker.jobs.work.steps;
    const cache = steps.find((s) => s.name === 'Cache the Codex CLI')!;
    const install = steps.find((s) => s.name?.startsWith('Install the Codex CLI'))!;
    for (const step of [cache, install]) expect(step.if).toBe("contains(steps.agent.outputs.engines, ' codex ')");
    expect(cache.uses).toMatch(/^actions\/cache@[0-9a-f]{40}$/);
    expect(cache.with!.key).toContain('${{ env.CODEX_VERSION }}');
    expect(install.run).toContain('"@openai/codex@${CODEX_VERSION}"');
    const withKey = steps.filter((s) => JSON.stringify(s).includes('CODEX_API_KEY'));
    expect(withKey.map((s) => s.uses)).toEqual(['./.harness-action/actions/worker']);
    expect(withKey[0]!.env!.CODEX_API_KEY).toBe('${{ secrets.CODEX_API_KEY || secrets.OPENAI_API_KEY }}');
  });

  it('ci.yml reads the repository and nothing more', () => {
    const workflow = parse(read('.github/workflows/ci.yml')) as { jobs: Record<string, { permissions?: unknown }> };
    for (const job of Object.values(workflow.jobs)) expect(job.permissions).toEqual({ contents: 'read' });
  });

  it('harness-app.yml starts on exactly the events and actions the app handles', () => {
    const workflow = parse(read('templates/workflows/harness-app.yml')) as {
      on: Record<string, { types?: string[]; workflows?: string[]; 'branches-ignore'?: string[] }>;
      jobs: Record<string, { steps: { uses?: string; with?: Record<string, string> }[] }>;
    };
    // pull_request_target carries pull_request's payload; the action hands it on under that name.
    const asApp = (event: string): string => (event === 'pull_request_target' ? 'pull_request' : event);
    // Actions has no trigger for the webhook-only events (issue dependencies, sub-issues): the next sync catches those.
    expect(Object.keys(workflow.on).map(asApp).sort()).toEqual(ACTIONS_EVENT_NAMES);
    for (const [event, trigger] of Object.entries(workflow.on)) {
      // An event without actions (push) takes no types.
      expect(trigger.types ?? [], event).toEqual(APP_EVENTS[asApp(event) as keyof typeof APP_EVENTS].actions);
    }
    // GitHub matches workflow_run's filter against the worker's name, not its file name.
    const worker = 'templates/workflows/harness-worker.yml';
    if (existsSync(join(ROOT, worker))) {
      expect(workflow.on.workflow_run?.workflows).toContain((parse(read(worker)) as { name: string }).name);
    }
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    const mint = steps.find((s) => s.uses?.startsWith('actions/create-github-app-token@'));
    expect(mint?.with).toEqual(MINT);
    expect(steps.find((s) => s.uses === './.harness-action/actions/app')?.with).toEqual({ token: '${{ steps.token.outputs.token }}' });
  });

  it("harness-decay.yml runs the app action as gene decay, daily and by hand, with the App's token", () => {
    const workflow = parse(read('templates/workflows/harness-decay.yml')) as {
      on: { schedule?: { cron: string }[]; workflow_dispatch?: unknown };
      jobs: Record<string, { steps: { uses?: string; with?: Record<string, string> }[] }>;
    };
    expect(Object.keys(workflow.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    expect(workflow.on.schedule?.map((s) => s.cron)).toEqual(['23 5 * * *']);
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    expect(steps.find((s) => s.uses?.startsWith('actions/create-github-app-token@'))?.with).toEqual(MINT);
    expect(steps.find((s) => s.uses === './.harness-action/actions/app')?.with).toEqual({ token: '${{ steps.token.outputs.token }}', command: 'decay' });
    expect((parse(read('actions/app/action.yml')) as { inputs: { command: { description: string } } }).inputs.command.description).toContain('`decay`');
  });

  it("harness-reflect.yml runs the app action as reflection, on a schedule and by hand, with the App's token", () => {
    const workflow = parse(read('templates/workflows/harness-reflect.yml')) as {
      on: { schedule?: { cron: string }[]; workflow_dispatch?: unknown };
      jobs: Record<string, { steps: { uses?: string; with?: Record<string, string> }[] }>;
    };
    expect(Object.keys(workflow.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    expect(workflow.on.schedule?.map((s) => s.cron)).toEqual([expect.stringMatching(/^\S+ \S+ \S+ \S+ \S+$/)]);
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    expect(steps.find((s) => s.uses?.startsWith('actions/create-github-app-token@'))?.with).toEqual(MINT);
    const app = steps.find((s) => s.uses === './.harness-action/actions/app');
    expect(app?.with).toEqual({ token: '${{ steps.token.outputs.token }}', command: 'reflect' });
    // A claude reflector: Claude Code installed before the app action runs, when its key is there, at the worker's pin (docs-match-code.test.ts holds the pin).
    const job = Object.values(workflow.jobs)[0] as unknown as { env: Record<string, string>; steps: { name?: string; if?: string; run?: string }[] };
    expect(job.env.HAS_ANTHROPIC_KEY).toBe("${{ secrets.ANTHROPIC_API_KEY != '' }}");
    const install = job.steps.findIndex((s) => s.name?.startsWith('Install Claude Code'));
    expect(job.steps[install]?.if).toBe("env.HAS_ANTHROPIC_KEY == 'true'");
    expect(job.steps[install]?.run).toContain('"@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}"');
    expect(install).toBeLessThan(steps.indexOf(app!));
    // The input the workflow passes is one the action declares.
    const action = parse(read('actions/app/action.yml')) as { inputs: Record<string, unknown> };
    expect(Object.keys(action.inputs)).toEqual(expect.arrayContaining(['token', 'command']));
  });
});
