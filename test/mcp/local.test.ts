import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, makeRepo, specTree, worktreeOf } from '../helpers/repo.js';
import { EXAMPLE_SPEC } from '../helpers/paths.js';
import { startHarnessMcp, type HarnessMcp } from './mcp-client.js';

/**
 * `harness mcp` against a real repository, driven by the MCP SDK's client over stdio as a
 * person's coding agent drives it: the example spec, a spec whose plan stops at a decision,
 * and a broken one. Runs are real `harness run`s with the script agent.
 */

const EXAMPLE = 'docs/specs/SPC-001-notes-service';
const DECISION = 'docs/specs/SPC-007-test';
const BROKEN = 'docs/specs/SPC-009-broken';

let root: string;
let mcp: HarnessMcp;

beforeAll(async () => {
  root = await makeRepo({
    ...specTree([
      {
        id: '01-01',
        extra: 'autonomous: false\ncheckpoints: [decision]',
        steps: [],
        body: [
          '```checkpoint decision Storage backend',
          'Which store should the service use?',
          'options: memory, file',
          'id: storage',
          '```',
          '',
          '```sh step Record the choice',
          'mkdir -p out && echo "$HARNESS_ANSWER_STORAGE" > out/01-01.txt',
          '```',
        ].join('\n'),
      },
    ]),
    [`${BROKEN}/SPEC.md`]: '---\nid: SPC-009\ntitle: Broken\n---\n# Broken\n',
    [`${BROKEN}/planning/plans/01-phase/01-01-PLAN.md`]:
      '---\nplan_id: "01-01"\ntitle: Broken plan\ndepends_on: ["01-07"]\nfiles_modified: []\nmust_pass: []\n---\n# Broken\n',
  });
  cpSync(EXAMPLE_SPEC, join(root, EXAMPLE), { recursive: true });
  git(root, 'add', '-A');
  git(root, 'commit', '--quiet', '-m', 'the example spec');
  mcp = await startHarnessMcp(root);
});

afterAll(async () => {
  await mcp?.close();
});

describe('harness mcp, on a checkout', () => {
  it('offers its tools, each with an input schema', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'harness_checkpoints',
      'harness_execute',
      'harness_graph',
      'harness_plan_report',
      'harness_respond',
      'harness_run_status',
      'harness_specs',
      'harness_status',
      'harness_stop_run',
      'harness_validate',
    ]);
    const execute = tools.find((t) => t.name === 'harness_execute')!;
    expect(execute.inputSchema.required).toEqual(['spec']);
    expect(Object.keys(execute.inputSchema.properties ?? {})).toEqual(['spec', 'phase', 'plan', 'agent', 'retry']);
  });

  it('lists the specs under specs_root with their state, the broken one with why', async () => {
    const { text, data } = await mcp.call('harness_specs');
    expect(data.specs).toEqual([
      { id: 'SPC-001', dir: EXAMPLE, title: 'Notes service', status: 'planning', valid: true, errors: 0, plansVerified: 0, plansTotal: 10, checkpoints: 0 },
      { id: 'SPC-007', dir: DECISION, title: 'Runner test', status: 'planning', valid: true, errors: 0, plansVerified: 0, plansTotal: 1, checkpoints: 0 },
      {
        id: 'SPC-009',
        dir: BROKEN,
        title: 'Broken',
        status: 'planning',
        valid: false,
        errors: expect.any(Number),
        plansVerified: 0,
        plansTotal: 1,
        checkpoints: 0,
      },
    ]);
    expect(text).toMatch(new RegExp(`SPC-009 Broken \\(${BROKEN}\\): .* · \\d+ errors? \\(harness_validate SPC-009\\)`));
    expect(text).toContain(`SPC-001 Notes service (${EXAMPLE}): planning · 0/10 plans, 0/3 phases verified`);
  });

  it('validates a spec: a broken one answers with its problems as file:line: message', async () => {
    const good = await mcp.call('harness_validate', { spec: 'SPC-001' });
    expect(good.isError).toBe(false);
    expect(good.data).toMatchObject({ id: 'SPC-001', valid: true, errors: 0 });
    expect(good.text.split('\n').at(-1)).toBe('SPC-001 is valid');

    const bad = await mcp.call('harness_validate', { spec: BROKEN });
    expect(bad.data).toMatchObject({ id: 'SPC-009', valid: false });
    const problems = bad.data.problems as { file: string; line: number; text: string }[];
    expect(problems.length).toBeGreaterThan(0);
    for (const p of problems) expect(p.text).toMatch(new RegExp(`^${BROKEN}/planning/plans/01-phase/01-01-PLAN\\.md:\\d+: `));
    expect(bad.text).toContain('01-07');
    expect(bad.text.split('\n').at(-1)).toMatch(/^SPC-009 has \d+ errors?: fix them in the files named, then validate again$/);
  });

  it('names the specs there are when asked for one that is not', async () => {
    const { isError, text } = await mcp.call('harness_status', { spec: 'SPC-404' });
    expect(isError).toBe(true);
    expect(text).toContain('no spec "SPC-404"');
    expect(text).toContain(`SPC-001 (${EXAMPLE})`);
  });

  it("shows the graph: the critical path and conflicts as data, harness graph's text to read", async () => {
    const { text, data } = await mcp.call('harness_graph', { spec: 'SPC-001' });
    expect((data.spec as { id: string }).id).toBe('SPC-001');
    expect((data.plans as unknown[]).length).toBe(10);
    const critical = data.criticalPath as { plans: string[]; length: number };
    expect(critical.plans[0]).toBe('01-01');
    expect(Array.isArray(data.conflicts)).toBe(true);
    expect(text).toMatch(/^SPC-001 Notes service: 3 phases, 10 plans/);

    const broken = await mcp.call('harness_graph', { spec: 'SPC-009' });
    expect(broken.isError).toBe(true);
    expect(broken.text).toMatch(new RegExp(`${BROKEN}/planning/plans/01-phase/01-01-PLAN\\.md:\\d+: .*01-07`));
  });

  it('executes a plan to verified, followed by its run id, then reads its SUMMARY (no phase verification: its phase has not run)', async () => {
    const refused = await mcp.call('harness_execute', { spec: 'SPC-001', plan: '09-09' });
    expect(refused).toMatchObject({ isError: true });
    expect(refused.text).toContain('SPC-001 has no plan 09-09: its plans are 01-01, 01-02');

    const started = await mcp.call('harness_execute', { spec: 'SPC-001', plan: '01-01', agent: 'script' });
    expect(started.isError).toBe(false);
    expect(started.data).toMatchObject({ run: 'run-1', spec: 'SPC-001', state: 'running', command: `harness run ${EXAMPLE} --plan 01-01 --agent script` });

    const again = await mcp.call('harness_execute', { spec: 'SPC-001', plan: '01-02' });
    expect(again.isError).toBe(true);
    expect(again.text).toContain('SPC-001 is already being run by run-1');

    let view = (await mcp.call('harness_run_status', { run: 'run-1', wait_seconds: 50 })).data;
    while (view.state === 'running') view = (await mcp.call('harness_run_status', { run: 'run-1', wait_seconds: 50 })).data;
    expect(view).toMatchObject({ state: 'finished', exitCode: 0, outcome: 'every plan (and phase) it was asked to run is verified' });
    const plans = (view.status as { plans: { id: string; state: string }[] }).plans;
    expect(plans.find((p) => p.id === '01-01')!.state).toBe('verified');
    expect(plans.find((p) => p.id === '01-02')!.state).toBe('pending');

    const report = await mcp.call('harness_plan_report', { spec: 'SPC-001', plan: '01-01' });
    expect(report.isError).toBe(false);
    const documents = report.data.documents as { kind: string; path: string; from: string; text: string }[];
    expect(documents.map((d) => d.kind)).toEqual(['summary']);
    const summary = documents[0]!;
    expect(summary.path).toBe(`${EXAMPLE}/execution/phases/01-core/01-01-SUMMARY.md`);
    expect(summary.from).toBe('harness/SPC-001/integration');
    expect(summary.text).toBe(git(root, 'show', `harness/SPC-001/integration:${summary.path}`));
    expect(report.text).toContain(`=== ${summary.path} (harness/SPC-001/integration) ===`);

    const none = await mcp.call('harness_plan_report', { spec: 'SPC-001', plan: '01-02' });
    expect(none.isError).toBe(true);
    expect(none.text).toContain('SPC-001 plan 01-02 has no SUMMARY.md yet: it is pending');
  }, 180_000);

  it('lists the checkpoint a run waits at and answers it; the run resumes with the answer', async () => {
    const started = await mcp.call('harness_execute', { spec: 'SPC-007', agent: 'script' });
    const run = started.data.run as string;
    let waiting = await mcp.call('harness_run_status', { run, wait_seconds: 50 });
    while ((waiting.data.status as { checkpoints: unknown[] }).checkpoints.length === 0 && waiting.data.state === 'running')
      waiting = await mcp.call('harness_run_status', { run, wait_seconds: 50 });
    expect(waiting.text).toContain('01-01 (decision): Which store should the service use? — options: memory | file');

    const listed = await mcp.call('harness_checkpoints');
    expect(listed.data.checkpoints).toEqual([
      {
        spec: 'SPC-007',
        session: '01-01',
        kind: 'decision',
        prompt: 'Which store should the service use?',
        options: ['memory', 'file'],
        askedAt: expect.any(String),
      },
    ]);

    const wrong = await mcp.call('harness_respond', { spec: 'SPC-007', plan: '01-01', answer: 'sqlite' });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toBe('SPC-007 01-01: "sqlite" is not one of memory, file');

    const answered = await mcp.call('harness_respond', { spec: 'SPC-007', plan: '01-01', answer: 'file' });
    expect(answered.isError).toBe(false);
    expect(answered.text).toContain('answered "Which store should the service use?" with "file"');

    let view = (await mcp.call('harness_run_status', { run, wait_seconds: 50 })).data;
    while (view.state === 'running') view = (await mcp.call('harness_run_status', { run, wait_seconds: 50 })).data;
    expect(view).toMatchObject({ state: 'finished', exitCode: 0 });
    expect(readFileSync(join(worktreeOf(root, 'SPC-007', 'integration'), 'out/01-01.txt'), 'utf8')).toBe('file\n');

    const after = await mcp.call('harness_respond', { spec: 'SPC-007', plan: '01-01', answer: 'file' });
    expect(after.isError).toBe(true);
    expect(after.text).toContain('SPC-007 01-01 is not waiting at a checkpoint');
    expect((await mcp.call('harness_checkpoints')).text).toBe('Nothing is waiting for an answer.');
  }, 180_000);

  it('refuses a run id it does not know, naming the ones it does', async () => {
    const { isError, text } = await mcp.call('harness_run_status', { run: 'run-99' });
    expect(isError).toBe(true);
    expect(text).toContain('no run "run-99" in this session: the runs started here are run-1, run-2');
  });
});
