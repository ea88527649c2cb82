import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../app/engine/core/spec/load.js';
import { readSpecFiles } from '../../app/machine/spec-files.js';
import { runCli, tempDir, writeTree } from '../helpers/cli.js';
import { EXAMPLE_SPEC, FIXTURES } from '../helpers/paths.js';
import { git, isolateGit } from '../helpers/worker-repo.js';

/**
 * The planning commands of the CLI. The README's example spec planned from its SPEC.md alone:
 * only SPEC.md is copied into a new repository, the planning commands run with the stand-in
 * planning agent (which writes the documents a planner would: here, the example's own), each
 * commit is checked by harness, and `harness run` then executes the plans to the end.
 */

const DIR = 'docs/specs/SPC-001-notes-service';
let restoreGit: () => void;
beforeAll(() => {
  restoreGit = isolateGit();
});
afterAll(() => restoreGit());

async function repoWithSpec(env: Record<string, string> = {}): Promise<string> {
  const root = await tempDir('harness-plan-cli-');
  const vars = Object.entries(env).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  const command = [...vars, JSON.stringify(process.execPath), JSON.stringify(join(FIXTURES, 'agents', 'planning-agent.mjs'))].join(' ');
  await writeTree(root, {
    '.github/harness.yml': `agent: script\nplanning:\n  agent: command\nagents:\n  command:\n    command: ${JSON.stringify(command)}\n`,
    [`${DIR}/SPEC.md`]: readFileSync(join(EXAMPLE_SPEC, 'SPEC.md'), 'utf8'),
  });
  git(root, 'init', '-q', '--initial-branch=main');
  git(root, 'config', 'user.name', 'Ana');
  git(root, 'config', 'user.email', 'ana@example.com');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'the notes service spec');
  return root;
}

describe('harness plan-spec, create-roadmap, plan-phase … on this machine', () => {
  it('plans the README\'s example from its SPEC.md alone, and harness run executes the plans to the end', async () => {
    const root = await repoWithSpec({ PLANNING_AGENT_SOURCE: EXAMPLE_SPEC });
    for (const args of [['plan-spec'], ['define-requirements'], ['create-roadmap'], ['plan-phase', '01'], ['plan-phase', '02'], ['plan-phase', '3']]) {
      const [name, ...rest] = args;
      const result = await runCli([name!, DIR, ...rest], root);
      expect(result.stderr, args.join(' ')).toBe('');
      expect(result.code, args.join(' ')).toBe(0);
    }
    expect(git(root, 'log', '--format=%s').split('\n')).toEqual([
      'plan SPC-001: plans of phase 03',
      'plan SPC-001: plans of phase 02',
      'plan SPC-001: plans of phase 01',
      'plan SPC-001: roadmap',
      'plan SPC-001: requirements',
      'plan SPC-001: PROJECT.md from SPEC.md',
      'the notes service spec',
    ]);
    expect(git(root, 'status', '--porcelain')).toBe('');
    const loaded = loadSpec(await readSpecFiles(join(root, DIR)));
    expect(loaded.problems).toEqual([]);
    expect(loaded.spec!.plans).toHaveLength(10);

    const run = await runCli(['run', DIR, '--agent', 'script'], root);
    expect(run.stderr, run.stdout).toBe('');
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain('SPC-001: 10/10 plans verified, 3/3 phases verified');
  }, 300_000);

  it('says what a planning command needs, and commits nothing when the retry is refused', async () => {
    const root = await repoWithSpec({ PLANNING_AGENT_SLIP: 'plan-phase', PLANNING_AGENT_STUBBORN: '1' });
    expect(await runCli(['plan-phase', DIR], root)).toMatchObject({ code: 2, stderr: expect.stringContaining('plan-phase needs the phase number') });
    const early = await runCli(['plan-phase', DIR, '01'], root);
    expect(early).toMatchObject({ code: 1, stderr: 'harness plan-phase: `plan-phase 01` for docs/specs/SPC-001-notes-service did not commit anything: `plan-phase 01`: SPC-001 has no roadmap yet; write one first with create-roadmap.\n\nFix what is said above (the spec, or .github/harness/agents/ if the instructions are at fault) and write `plan-phase 01` again.\n' });
    expect((await runCli(['create-roadmap', DIR], root)).code).toBe(0);
    const head = git(root, 'rev-parse', 'HEAD');
    const refused = await runCli(['plan-phase', DIR, '01'], root);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`- \`${DIR}/planning/plans/01-work/01-01-PLAN.md:8: plan 01-01 has no must_pass checks`);
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);

    await writeTree(root, { [`${DIR}/SPEC.md`]: 'changed\n' });
    expect(await runCli(['plan-spec', DIR], root)).toMatchObject({ code: 1, stderr: expect.stringContaining('has changes that are not committed') });
  });

  it('plan-spec commits a PROJECT.md only with every section the README names, each with something in it', async () => {
    const root = await repoWithSpec({ PLANNING_AGENT_SLIP: 'plan-spec', PLANNING_AGENT_STUBBORN: '1' });
    const head = git(root, 'rev-parse', 'HEAD');
    const refused = await runCli(['plan-spec', DIR], root);
    expect(refused.code).toBe(1);
    const problems = refused.stderr.split('\n').filter((l) => l.startsWith('- '));
    expect(problems).toEqual(
      ['Users and use', 'Constraints', 'Out of scope', 'Open questions'].map(
        (s) => `- \`${DIR}/planning/PROJECT.md:1: missing the "## ${s}" section; write what it says (or "none" where that is so)\``,
      ),
    );
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);

    const fixed = await repoWithSpec({ PLANNING_AGENT_SLIP: 'plan-spec' });
    expect(await runCli(['plan-spec', DIR], fixed)).toMatchObject({ code: 0, stderr: '' });
    expect(readFileSync(join(fixed, DIR, 'planning/PROJECT.md'), 'utf8')).toContain('## Open questions\n\nWhat SPEC.md says of it.\n');
  });

  it('gives the planner the lessons that apply, and records them in the trajectory with the commit', async () => {
    const root = await repoWithSpec();
    await writeTree(root, {
      '.harness/knowledge/lessons/tooling/json-file-store-atomic.lesson.md':
        '---\ncategory: tooling\nconfidence: high\nevidence_count: 3\nlast_updated: 2026-11-01\ntags: [json, store, node]\nprojects: []\n---\n\n## Lesson\n\nA JSON file store for notes must write a temporary file and rename it over the old one, or a crash mid-write loses every note.\n\n## When this applies\n\nA service keeps its notes in a JSON file that the HTTP API and a command-line client both write.\n\n## Recommendation\n\nPlan the file store with an atomic write (temporary file, then rename) and a test that kills a write half way.\n\n## Evidence\n\n- Signal: signals/notes/2026-10-02/a.signal.md — notes.json truncated after a crash\n',
    });
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'a lesson');

    const result = await runCli(['plan-spec', DIR], root);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const day = new Date().toISOString().slice(0, 10);
    const path = `.harness/knowledge/trajectory/${day}.jsonl`;
    expect(git(root, 'show', '--name-only', '--format=%s', 'HEAD').split('\n')).toEqual(['plan SPC-001: PROJECT.md from SPEC.md', '', path, `${DIR}/planning/PROJECT.md`]);
    const events = readFileSync(join(root, path), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; entry: string; spec: string; plan: string });
    expect(events.map((e) => [e.type, e.entry, e.spec, e.plan])).toEqual([
      ['match', 'lessons/tooling/json-file-store-atomic.lesson.md', 'SPC-001', 'planning/plan-spec'],
      ['use', 'lessons/tooling/json-file-store-atomic.lesson.md', 'SPC-001', 'planning/plan-spec'],
    ]);
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('takes a phase\'s answers from the file the person writes', async () => {
    const root = await repoWithSpec();
    expect((await runCli(['create-roadmap', DIR], root)).code).toBe(0);
    expect((await runCli(['discuss-phase', DIR, '01'], root)).code).toBe(0);
    expect(readFileSync(join(root, DIR, 'planning/discuss/phase-01-questions.md'), 'utf8')).toContain('(assumed: yes)');
    await writeTree(root, { [`${DIR}/planning/discuss/phase-01-answers.md`]: '# Answers\n\n1. By date, newest first.\n' });
    const result = await runCli(['discuss-phase', DIR, '01'], root);
    expect(result.stderr).toBe('');
    expect(readFileSync(join(root, DIR, 'planning/discuss/phase-01-context.md'), 'utf8')).toContain('> 1. By date, newest first.');
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect(git(root, 'show', '--name-only', '--format=%s', 'HEAD').split('\n')).toEqual([
      'plan SPC-001: context of phase 01 from the discussion',
      '',
      `${DIR}/planning/discuss/phase-01-answers.md`,
      `${DIR}/planning/discuss/phase-01-context.md`,
    ]);
  });
});
