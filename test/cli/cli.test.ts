import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, writeTree } from '../helpers/cli.js';
import { planMd, planPath, SPEC_MD } from '../helpers/spec.js';
import { ROOT } from '../helpers/paths.js';

const run = promisify(execFile);

let valid: string;
let invalid: string;
let parent: string;

beforeAll(async () => {
  valid = await tempDir();
  await writeTree(valid, {
    'SPEC.md': SPEC_MD,
    [planPath('01-01')]: planMd({ id: '01-01', title: 'Reset tokens', filesModified: ['src/auth/**'] }),
    [planPath('01-02')]: planMd({ id: '01-02', title: 'Reset email', dependsOn: ['01-01'], filesModified: ['src/mail.ts'] }),
    [planPath('01-03')]: planMd({ id: '01-03', title: 'Reset form', dependsOn: ['01-01'], filesModified: ['src/auth/form.ts'] }),
    [planPath('02-01')]: planMd({ id: '02-01', title: 'Audit log', filesModified: ['src/auth/audit.ts'] }),
  });
  parent = await tempDir();
  invalid = join(parent, 'spec');
  await writeTree(invalid, {
    'SPEC.md': SPEC_MD,
    [planPath('01-01')]: planMd({ id: '01-01', dependsOn: ['01-07'] }),
    [planPath('01-02')]: planMd({ id: '01-02', extra: 'wave: 1' }),
  });
});

describe('harness (no command)', () => {
  it('prints the overview and exits 2 when called bare', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('Usage: harness <command> [options]');
    expect(r.stdout).toContain('validate');
  });

  it('exits 0 for --help and 2 for an unknown command', async () => {
    expect((await runCli(['--help'])).code).toBe(0);
    const r = await runCli(['valdate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^harness: unknown command "valdate"/);
  });
});

describe('harness validate', () => {
  it('says a clean spec is valid and exits 0', async () => {
    const r = await runCli(['validate', valid]);
    expect(r).toEqual({ code: 0, stdout: 'SPC-042: 4 plans in 2 phases: valid\n', stderr: '' });
  });

  it('prints each problem as file:line: message and exits 1', async () => {
    const r = await runCli(['validate', 'spec'], parent);
    expect(r.code).toBe(1);
    // Problems and verdict on stdout, in order (the issue: they were split over stdout and stderr).
    expect(r.stdout.split('\n').filter(Boolean)).toEqual([
      'spec/planning/plans/01-phase/01-01-PLAN.md:4: depends_on "01-07" is not a plan in this spec; did you mean "01-02"?',
      'spec/planning/plans/01-phase/01-02-PLAN.md:8: warning: wave is ignored: harness orders plans by depends_on',
      'SPC-042: 2 plans in 1 phase: 1 error, 1 warning',
    ]);
    expect(r.stderr).toBe('');
  });

  it('gives a stable JSON report with --json', async () => {
    const r = await runCli(['validate', invalid, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      spec: invalid,
      id: 'SPC-042',
      valid: false,
      errors: 1,
      warnings: 1,
      phases: 1,
      plans: 2,
      problems: [
        {
          file: `${invalid}/planning/plans/01-phase/01-01-PLAN.md`,
          line: 4,
          severity: 'error',
          code: 'unknown-dependency',
          message: 'depends_on "01-07" is not a plan in this spec; did you mean "01-02"?',
        },
        {
          file: `${invalid}/planning/plans/01-phase/01-02-PLAN.md`,
          line: 8,
          severity: 'warning',
          code: 'field-ignored',
          message: 'wave is ignored: harness orders plans by depends_on',
        },
      ],
    });
  });

  it('exits 2 with usage for a missing or nonexistent directory and unknown options', async () => {
    const missing = await runCli(['validate']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^harness validate: missing <spec-dir>\n\nUsage: harness validate/);
    const nowhere = await runCli(['validate', join(valid, 'nope')]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toMatch(/^harness validate: .*\/nope: no such directory/);
    const option = await runCli(['validate', valid, '--jsn']);
    expect(option.code).toBe(2);
    expect(option.stderr).toBe(
      'harness validate: unknown option --jsn; did you mean "--json"?\n\nUsage: harness validate <spec-dir> [--json]\nRun "harness validate --help" for every option.\n',
    );
  });

  it('prints its usage for --help', async () => {
    const r = await runCli(['validate', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: harness validate <spec-dir> \[--json\]/);
  });
});

describe('harness graph', () => {
  it('prints phases, plans, the critical path and conflicts as text', async () => {
    const r = await runCli(['graph', valid]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'SPC-042 Password reset: 2 phases, 4 plans, 2 dependencies',
        '',
        'Phase 01 · Phase',
        '  01-01 Reset tokens',
        '  01-02 Reset email   ← 01-01',
        '  01-03 Reset form    ← 01-01',
        '',
        'Phase 02 · Phase',
        '  02-01 Audit log   ',
        '',
        'Critical path (2 units): 01-01 → 01-02',
        'Topological order: 01-01, 01-02, 01-03, 02-01',
        '',
        'Write conflicts (never run at the same time):',
        '  01-01 × 02-01  src/auth/** ∩ src/auth/audit.ts',
        '',
      ].join('\n'),
    );
  });

  it('counts one phase check and a critical path of one unit in the singular', async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'SPEC.md': SPEC_MD,
      'ROADMAP.md': '---\nphases:\n  - id: "01"\n    title: Tokens\n    must_pass:\n      - { id: suite, type: tests_pass, command: "npm test" }\n---\n',
      [planPath('01-01')]: planMd({ id: '01-01', title: 'Reset tokens' }),
    });
    const lines = (await runCli(['graph', dir])).stdout.split('\n');
    expect(lines).toContain('Phase 01 · Tokens (1 phase check)');
    expect(lines).toContain('Critical path (1 unit): 01-01');
  });

  it('gives the graph as stable JSON', async () => {
    const r = await runCli(['graph', valid, '--format', 'json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.spec).toEqual({ id: 'SPC-042', title: 'Password reset' });
    expect(json.edges).toEqual([
      { from: '01-01', to: '01-02' },
      { from: '01-01', to: '01-03' },
    ]);
    expect(json.topologicalOrder).toEqual(['01-01', '01-02', '01-03', '02-01']);
    expect(json.criticalPath).toEqual({ plans: ['01-01', '01-02'], length: 2 });
    expect(json.conflicts).toEqual([{ plans: ['01-01', '02-01'], globs: ['src/auth/**', 'src/auth/audit.ts'] }]);
    expect(json.plans[0]).toEqual({
      id: '01-01',
      title: 'Reset tokens',
      phase: '01',
      file: 'planning/plans/01-phase/01-01-PLAN.md',
      dependsOn: [],
      filesModified: ['src/auth/**'],
      filesRead: [],
      checks: 1,
      autonomous: true,
      remaining: 2,
    });
  });

  it('draws Mermaid with a subgraph per phase and the critical path heavy', async () => {
    const r = await runCli(['graph', valid, '--format', 'mermaid']);
    expect(r.stdout).toMatchInlineSnapshot(`
      "flowchart LR
        subgraph phase_01["Phase 01 · Phase"]
          p01_01["01-01 Reset tokens"]
          p01_02["01-02 Reset email"]
          p01_03["01-03 Reset form"]
        end
        subgraph phase_02["Phase 02 · Phase"]
          p02_01["02-01 Audit log"]
        end
        p01_01 --> p01_02
        p01_01 --> p01_03
        classDef critical stroke-width:3px
        class p01_01,p01_02 critical
      "
    `);
  });

  it('refuses to draw a spec with errors, listing them, exit 1', async () => {
    const r = await runCli(['graph', invalid]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('01-01-PLAN.md:4: depends_on "01-07" is not a plan in this spec');
    expect(r.stdout).toBe('');
  });

  it('rejects an unknown format with exit 2', async () => {
    const r = await runCli(['graph', valid, '--format', 'dot']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^harness graph: --format must be one of text, json, mermaid, not "dot"/);
  });
});

describe('the harness binary', () => {
  it("exits with the command's code and prints no stack trace", async () => {
    const bin = join(ROOT, 'bin', 'harness.js');
    const error = await run(process.execPath, [bin, 'validate', invalid]).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect('code' in error && error.code).toBe(1);
    expect((error as { stdout: string }).stdout).toMatch(/\nSPC-042: 2 plans in 1 phase: 1 error, 1 warning\n$/);
    expect((error as { stderr: string }).stderr).toBe('');
    const ok = await run(process.execPath, [bin, 'validate', valid]);
    expect(ok.stdout).toBe('SPC-042: 4 plans in 2 phases: valid\n');
  });
});
