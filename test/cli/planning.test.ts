import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathOnly, runCli, tempDir, writeTree } from '../helpers/cli.js';
import { DIR, repoWithSpec } from '../helpers/planning-repo.js';
import { git, isolateGit } from '../helpers/worker-repo.js';
import { repoStateDir } from '../../app/runner/repo.js';

/**
 * The planning commands of the CLI. The README's example spec planned from its SPEC.md alone:
 * only SPEC.md is copied into a new repository, the planning commands run with the stand-in
 * planning agent (which writes the documents a planner would: here, the example's own), each
 * commit is checked by harness (and `harness run` then executes the plans to the end: planning-example.test.ts).
 */

let restoreGit: () => void;
beforeAll(() => {
  restoreGit = isolateGit();
});
afterAll(() => restoreGit());

describe('harness plan-spec, create-roadmap, plan-phase … on this machine', () => {
  it('says what a planning command needs, and commits nothing when the retry is refused', async () => {
    const root = await repoWithSpec({ PLANNING_AGENT_SLIP: 'plan-phase', PLANNING_AGENT_STUBBORN: '1' });
    expect(await runCli(['plan-phase', DIR], root)).toMatchObject({ code: 2, stderr: expect.stringContaining('plan-phase needs the phase number') });
    const early = await runCli(['plan-phase', DIR, '01'], root);
    expect(early).toMatchObject({
      code: 1,
      stderr:
        'harness plan-phase: `plan-phase 01` for docs/specs/SPC-001-notes-service did not commit anything: `plan-phase 01`: SPC-001 has no roadmap yet; write one first with create-roadmap.\n\nFix what is said above (the spec, or .github/harness/agents/ if the instructions are at fault) and write `plan-phase 01` again.\n',
    });
    expect((await runCli(['create-roadmap', DIR], root)).code).toBe(0);
    const head = git(root, 'rev-parse', 'HEAD');
    const refused = await runCli(['plan-phase', DIR, '01'], root);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`- \`${DIR}/planning/plans/01-work/01-01-PLAN.md:8: plan 01-01 has no must_pass checks`);
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);

    await writeTree(root, { [`${DIR}/SPEC.md`]: 'changed\n' });
    expect(await runCli(['plan-spec', DIR], root)).toMatchObject({ code: 1, stderr: expect.stringContaining('has changes that are not committed') });
  });

  it('says what to install when the planning agent is not on this machine, before a worktree or an agent starts', async () => {
    const root = await repoWithSpec();
    expect((await runCli(['create-roadmap', DIR], root)).code).toBe(0);
    await writeTree(root, { '.github/harness.yml': 'agent: script\n' });
    git(root, 'commit', '-q', '-am', 'no planning agent configured');
    const head = git(root, 'rev-parse', 'HEAD');
    // git and sh, and no claude: found after the worktree was made, the agent failed with "spawn claude ENOENT".
    const PATH = await pathOnly('git', 'sh');

    const result = await runCli(['plan-phase', DIR, '01'], root, { env: { PATH } });

    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'harness plan-phase: the claude agent (the default) cannot start: "claude" is not on PATH; install Claude Code (npm install -g @anthropic-ai/claude-code), set agents.claude.executable in .github/harness.yml, or choose another agent with --agent (command)\n',
    });
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);
    // Each planning command's worktree and logs are a folder of the repository's own beside it (repoStateDir): create-roadmap's alone.
    expect(readdirSync(join(repoStateDir(join(root, '.git')), 'planning')).map((d) => d.replace(/-\d+$/, ''))).toEqual(['create-roadmap']);
    expect((await runCli(['plan-spec', DIR, '--agent', 'claude'], root, { env: { PATH } })).stderr).toMatch(
      /^harness plan-spec: --agent claude cannot start: "claude" is not on PATH; /,
    );
  });

  it('never gives the agent, nor blames it for, what a person wrote before plan-phase ran: it says so, as theirs', async () => {
    const log = join(await tempDir(), 'calls.jsonl');
    const root = await repoWithSpec({ PLANNING_AGENT_LOG: log });
    expect((await runCli(['create-roadmap', DIR], root)).code).toBe(0);
    // A plan of the phase a person wrote (or imported) with checks and no truths: valid, and short of what plan-phase asks of its own plans.
    const mine = `${DIR}/planning/plans/01-work/01-05-PLAN.md`;
    await writeTree(root, {
      [mine]:
        '---\nplan_id: "01-05"\ntitle: Mine\ndepends_on: []\nfiles_modified: [src/x.txt]\nmust_pass:\n  - { id: x, type: file_exists, path: src/x.txt }\n---\n\n# Mine\n',
    });
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'a plan of my own');

    const result = await runCli(['plan-phase', DIR, '01'], root);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('giving them back to the agent');
    expect(result.stdout).toContain(
      [
        'Already so before `plan-phase 01` ran, in the documents as they were written before it: the agent was not asked to fix this, and the new documents were committed with it:',
        '',
        `- \`${mine}:1: plan 01-05 has no truths: say what must be true when it is done (goal-backward from the phase's success criteria)\``,
      ].join('\n'),
    );
    const calls = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { command: string; stage: string; try: string });
    expect(calls.filter((c) => c.command === 'plan-phase').map((c) => `${c.stage} ${c.try}`)).toEqual(['plan-phase 1', 'plans-check 1']);
    expect(git(root, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n')).toEqual([
      `${DIR}/planning/checks/phase-01-plans.md`,
      `${DIR}/planning/plans/01-work/01-01-PLAN.md`,
      `${DIR}/planning/plans/01-work/01-02-PLAN.md`,
    ]);
  });

  it('adds a phase to a roadmap whose phases a person wrote without checks, and says those are as they were', async () => {
    const root = await repoWithSpec();
    await writeTree(root, { [`${DIR}/ROADMAP.md`]: '---\nphases:\n  - id: "01"\n    title: Foundation\n    goal: The base exists.\n---\n\n# Roadmap\n' });
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'my roadmap');

    const result = await runCli(['add-phase', DIR, 'Notes can be searched'], root);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Already so before `add-phase "Notes can be searched"` ran, in the documents as they were written before it: the agent was not asked to fix this, and the new documents were committed with it:\n\n' +
        `- \`${DIR}/ROADMAP.md:1: phase 01 has no must_pass: give it the checks that prove its success criteria on the merged work\``,
    );
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
    expect(git(root, 'show', '--name-only', '--format=%s', 'HEAD').split('\n')).toEqual([
      'plan SPC-001: PROJECT.md from SPEC.md',
      '',
      path,
      `${DIR}/planning/PROJECT.md`,
    ]);
    const events = readFileSync(join(root, path), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; entry: string; spec: string; plan: string });
    expect(events.map((e) => [e.type, e.entry, e.spec, e.plan])).toEqual([
      ['match', 'lessons/tooling/json-file-store-atomic.lesson.md', 'SPC-001', 'planning/plan-spec'],
      ['use', 'lessons/tooling/json-file-store-atomic.lesson.md', 'SPC-001', 'planning/plan-spec'],
    ]);
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it("takes a phase's answers from the file the person writes", async () => {
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
