import { realpathSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, writeTree } from '../helpers/cli.js';
import { git, makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';
import { planMd, planPath, SPEC_MD } from '../helpers/spec.js';

/** The "CLI, from a newcomer's trial": each rough edge, with the exact words now printed. */

let valid: string;
let repo: string;

beforeAll(async () => {
  valid = await tempDir();
  await writeTree(valid, {
    'SPEC.md': SPEC_MD,
    [planPath('01-01')]: planMd({ id: '01-01', title: 'Reset tokens', filesModified: ['src/auth/**'] }),
    [planPath('01-02')]: planMd({ id: '01-02', title: 'Reset email', dependsOn: ['01-01'], filesModified: ['src/mail.ts'] }),
  });
  // A repository (a .git is all validate and simulate look for) with a spec and a config.
  repo = await tempDir();
  await mkdir(join(repo, '.git'));
  await writeTree(repo, {
    'spec/SPEC.md': SPEC_MD,
    [`spec/${planPath('01-01')}`]: planMd({ id: '01-01', filesModified: ['src/a.ts'] }),
    [`spec/${planPath('01-02')}`]: planMd({ id: '01-02', filesModified: ['src/b.ts'] }),
    [`spec/${planPath('01-03')}`]: planMd({ id: '01-03', filesModified: ['src/c.ts'] }),
  });
});

describe('usage errors', () => {
  it("name an unknown option in harness's words, with the nearest option, and print the synopsis, not the whole help", async () => {
    const r = await runCli(['run', valid, '--slot', '3']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'harness run: unknown option --slot; did you mean "--slots"?\n\n' +
        'Usage: harness run <spec-dir> [--phase P] [--plan ID] [--slots N] [--agent NAME] [--retry [--keep-base]] [--wait] [--sandbox] [--knowledge DIR]\n' +
        'Run "harness run --help" for every option.\n',
    });
  });

  it('name an unknown command with the nearest one, without reprinting the overview', async () => {
    expect(await runCli(['valdate', valid])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'harness: unknown command "valdate"; did you mean "validate"?\nRun "harness --help" for what each does.\n',
    });
    expect((await runCli(['--bogus'])).stderr).toBe(
      'harness: unknown command "--bogus"; the commands are validate, graph, simulate, run, status, respond, surface, import, spike, reflect, retrospective, skills, prune, export, mcp\nRun "harness --help" for what each does.\n',
    );
  });

  it('list the options when nothing is near, and say a value is missing', async () => {
    expect((await runCli(['graph', valid, '--bogus'])).stderr.split('\n')[0]).toBe(
      'harness graph: unknown option --bogus; the options are --format, --json, -h, --help',
    );
    expect((await runCli(['simulate', valid, '--slots'])).stderr.split('\n')[0]).toBe('harness simulate: --slots needs a value, such as --slots N');
  });

  it('say what is wrong with the path before anything else', async () => {
    const nowhere = join(valid, 'nonexistent');
    expect((await runCli(['run', nowhere])).stderr.split('\n')[0]).toBe(`harness run: ${nowhere}: no such directory`);
    expect((await runCli(['import', nowhere, join(valid, 'out')])).stderr.split('\n')[0]).toBe(`harness import: ${nowhere}: no such directory`);
  });

  it('respond names the phases there are when asked for one that is not', async () => {
    const r = await runCli(['respond', valid, 'phase-07', 'approve']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('harness respond: SPC-042 has no phase 07 (its phases: phase-01)');
    expect((await runCli(['respond', valid, '01-1', 'approve'])).stderr.split('\n')[0]).toBe(
      'harness respond: "01-1" is not a plan of SPC-042; did you mean "01-01"?',
    );
  });
});

describe('harness validate', () => {
  it('reports every problem of a plan at once, even one whose frontmatter does not parse, then its verdict, all on stdout', async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'SPEC.md': SPEC_MD,
      'planning/plans/01-a/01-01-PLAN.md': [
        '---',
        'plan_id: "01-02"',
        'title: One',
        'depends_on: []',
        'files_modified: [src/a.ts]',
        'colour: blue',
        'must_pass:',
        '  - { id: t, type: file_contains, path: src/a.ts, pattern: "([a-z" }',
        '  - { id: t, type: api_response, request: "GET /health", expect: { status: 200 } }',
        '  - { id: u, type: tests_pass }',
        '---',
        '# One',
        '',
      ].join('\n'),
    });
    const r = await runCli(['validate', '.'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')).toEqual([
      './planning/plans/01-a/01-01-PLAN.md:2: plan_id "01-02" does not match the file name 01-01-PLAN.md; name the file 01-02-PLAN.md or fix the id',
      './planning/plans/01-a/01-01-PLAN.md:6: unknown key "colour"; put keys of your own under metadata:',
      './planning/plans/01-a/01-01-PLAN.md:8: must_pass[0].pattern is not a valid regular expression: /([a-z/: Unterminated character class',
      './planning/plans/01-a/01-01-PLAN.md:9: must_pass[1] (api_response) calls "/health" but nothing serves it; add serve: { command: "npm start", url: "http://127.0.0.1:3000" } or use an absolute URL',
      './planning/plans/01-a/01-01-PLAN.md:9: must_pass[1]: check id "t" is already used by must_pass[0]; give each check its own id',
      './planning/plans/01-a/01-01-PLAN.md:10: missing required key "command" in must_pass[2]: a shell command such as "npm test"',
      'SPC-042: 1 plan in 1 phase: 6 errors',
      '',
    ]);
  });

  it("checks the repository's .github/harness.yml too, in words rather than the schema library's", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, '.git'));
    await writeTree(dir, {
      'spec/SPEC.md': SPEC_MD,
      [`spec/${planPath('01-01')}`]: planMd({ id: '01-01' }),
      '.github/harness.yml': 'slots: 0\n',
    });
    const r = await runCli(['validate', 'spec'], dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      ['.github/harness.yml:1: slots is the number 0; it must be at least 1', 'SPC-042: 1 plan in 1 phase: 1 error (with .github/harness.yml)', ''].join('\n'),
    );
    const json = JSON.parse((await runCli(['validate', 'spec', '--json'], dir)).stdout);
    expect(json).toMatchObject({ valid: false, errors: 1 });
    expect(json.problems[0]).toEqual({
      file: '.github/harness.yml',
      line: 1,
      severity: 'error',
      code: 'field-value',
      message: 'slots is the number 0; it must be at least 1',
    });
    await writeTree(dir, { '.github/harness.yml': 'slots: 65\n' });
    expect((await runCli(['validate', 'spec'], dir)).stdout.split('\n')[0]).toBe('.github/harness.yml:1: slots is the number 65; it must be at most 64');
  });

  it('points a GSD planning directory to harness import', async () => {
    const project = await tempDir();
    await writeTree(project, { '.planning/ROADMAP.md': '# Roadmap\n', '.planning/phases/01-setup/01-01-PLAN.md': '---\nphase: 01-setup\nplan: 01\n---\n' });
    const r = await runCli(['validate', '.planning'], project);
    expect(r).toEqual({
      code: 1,
      stdout:
        '.planning is a GSD planning directory, not a harness spec; convert it first: harness import .planning docs/specs/SPC-001-<name> (then harness validate docs/specs/SPC-001-<name>)\n',
      stderr: '',
    });
    expect(JSON.parse((await runCli(['validate', '.planning', '--json'], project)).stdout)).toEqual({
      error: { command: 'validate', message: expect.stringMatching(/^\.planning is a GSD planning directory/), spec: '.planning', problems: [] },
    });
    expect((await runCli(['validate', '.'], project)).stdout).toBe(
      '. holds a GSD planning directory (.planning/), not a harness spec; convert it first: harness import . docs/specs/SPC-001-<name> (then harness validate docs/specs/SPC-001-<name>)\n',
    );
  });
});

describe('harness graph and simulate on a spec with errors', () => {
  let unrelated: string;
  let broken: string;
  beforeAll(async () => {
    unrelated = await tempDir();
    await writeTree(unrelated, {
      'SPEC.md': SPEC_MD,
      [planPath('01-01')]: planMd({
        id: '01-01',
        filesModified: ['src/a.ts'],
        mustPass: 'must_pass:\n  - { id: tests, type: tests_pass, command: "npm test" }\n  - { id: tests, type: file_exists, path: src/a.ts }',
      }),
      [planPath('01-02')]: planMd({ id: '01-02', dependsOn: ['01-01'], filesModified: ['src/b.ts'] }),
    });
    broken = await tempDir();
    await writeTree(broken, { 'SPEC.md': SPEC_MD, [planPath('01-01')]: planMd({ id: '01-01', dependsOn: ['01-07'] }) });
  });

  it('draw the graph past errors that do not touch it, saying so on stderr', async () => {
    const r = await runCli(['graph', unrelated]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Critical path (2 units): 01-01 → 01-02');
    expect(r.stderr).toBe(`harness graph: ${unrelated} has 1 error that does not change its graph; shown anyway (harness validate ${unrelated} lists them)\n`);
    expect((await runCli(['simulate', unrelated, '--slots', '2'])).code).toBe(0);
  });

  it('print a JSON error object on stdout with --json when the graph itself is wrong', async () => {
    for (const args of [
      ['graph', broken, '--json'],
      ['simulate', broken, '--json'],
    ]) {
      const r = await runCli(args);
      expect(r.code).toBe(1);
      const message = `${broken} has 1 error that keeps its graph from being read; fix it first (harness validate ${broken})`;
      expect(JSON.parse(r.stdout)).toEqual({
        error: {
          command: args[0],
          message,
          spec: broken,
          problems: [
            {
              file: `${broken}/planning/plans/01-phase/01-01-PLAN.md`,
              line: 4,
              severity: 'error',
              code: 'unknown-dependency',
              message: 'depends_on "01-07" is not a plan in this spec',
            },
          ],
        },
      });
      expect(r.stderr).toBe(`harness ${args[0]}: ${message}\n`);
    }
  });
});

describe('harness simulate', () => {
  it('takes its slots from .github/harness.yml when --slots is not given', async () => {
    await writeTree(repo, { '.github/harness.yml': 'slots: 2\n' });
    const r = await runCli(['simulate', 'spec'], repo);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('SPC-042: 3 plans on 2 slots');
  });

  it('says what is wrong with .github/harness.yml, as a JSON error with --json', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, '.git'));
    await writeTree(dir, { 'spec/SPEC.md': SPEC_MD, [`spec/${planPath('01-01')}`]: planMd({ id: '01-01' }), '.github/harness.yml': 'slots: 0\n' });
    const r = await runCli(['simulate', 'spec', '--json'], dir);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      error: {
        command: 'simulate',
        message: '.github/harness.yml has errors; fix them, or pass --slots N',
        spec: 'spec',
        problems: [{ file: '.github/harness.yml', line: 1, severity: 'error', code: 'field-value', message: 'slots is the number 0; it must be at least 1' }],
      },
    });
    expect((await runCli(['simulate', 'spec', '--slots', '2'], dir)).code).toBe(0);
  });

  it('folds idle slots into one line', async () => {
    const r = await runCli(['simulate', 'spec', '--slots', '1000'], repo);
    expect(r.stdout.split('\n').slice(-5)).toEqual([
      'slot      1  01-01 0–1',
      'slot      2  01-02 0–1',
      'slot      3  01-03 0–1',
      'slot 4–1000  idle (997 slots no plan is ready for)',
      '',
    ]);
  });
});

describe('harness run, before it starts', () => {
  it('says nothing ran when .github/harness.yml has errors', async () => {
    const root = await makeRepo({ ...specTree([{ id: '01-01', steps: ['true'] }]), '.github/harness.yml': 'slots: 0\n' });
    const r = await runCli(['run', SPEC_DIR, '--agent', 'script'], root);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr:
        '.github/harness.yml:1: slots is the number 0; it must be at least 1\nharness run: .github/harness.yml has errors; nothing ran (harness validate <spec-dir> checks it with the spec)\n',
    });
  });

  it('says where to configure the command agent when --agent command has no command', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: ['true'] }]));
    const r = await runCli(['run', SPEC_DIR, '--agent', 'command'], root);
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `harness run: --agent command: the command agent runs a command of yours, which .github/harness.yml names; add to .github/harness.yml:
  agents:
    command: { command: "./scripts/agent.sh", protocol: false }
(the plan's brief is the command's stdin; protocol: true if it speaks harness's worker protocol; docs/agents.md)
`,
    });
  });

  it("says a repository with no commit yet has none, and how to make one, instead of git's words", async () => {
    const root = await tempDir();
    git(root, 'init', '--quiet', '--initial-branch=main');
    await writeTree(root, specTree([{ id: '01-01', steps: ['true'] }]));
    const fix = 'Commit the spec first: git add . && git commit -m "Add the spec"';
    const run = await runCli(['run', SPEC_DIR, '--agent', 'script'], root);
    expect(run.stderr).toBe(`harness run: ${realpathSync(root)} has no commit yet: harness run starts its branches from a commit. ${fix}\n`);
    expect(run.code).toBe(1);
    await writeTree(root, { '.github/harness.yml': 'agents:\n  command: { command: "true", protocol: false }\n' });
    const spike = await runCli(['spike', 'Does the cache hold?', '--agent', 'command'], root);
    expect(spike.stderr).toBe(`harness spike: ${realpathSync(root)} has no commit yet: harness spike starts its branches from a commit. ${fix}\n`);
    expect(spike.code).toBe(1);
  });
});
