import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanningCommand } from '../../app/engine/planning/planning-command.js';
import { systemClock } from '../../app/machine/clock.js';
import { runPlanningHere, type PlanningOutcome } from '../../app/agents/planning-here.js';
import { tempDir, writeTree } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/paths.js';
import { git, isolateGit } from '../helpers/worker-repo.js';

/**
 * One planning command on a real git checkout with the stand-in planning agent (a `command`
 * agent): the documents are written, confined, checked by the spec model and committed as one
 * commit; an invalid plan is given back once with its errors; a second refusal commits nothing.
 */

const SPEC_DIR = 'docs/specs/SPC-001-notes';
let restoreGit: () => void;
beforeAll(() => {
  restoreGit = isolateGit();
});
afterAll(() => restoreGit());

async function repo(): Promise<string> {
  const root = await tempDir('harness-planning-');
  await writeTree(root, { 'README.md': '# demo\n', [`${SPEC_DIR}/SPEC.md`]: '---\nid: SPC-001\ntitle: Notes\n---\n\n# Notes\n\nKeep notes.\n' });
  git(root, 'init', '-q', '--initial-branch=main');
  git(root, 'add', '-A');
  git(root, '-c', 'user.name=Seed', '-c', 'user.email=seed@example.com', 'commit', '-q', '-m', 'spec');
  return root;
}

function run(root: string, command: PlanningCommand, env: Record<string, string> = {}, agent = 'command'): Promise<PlanningOutcome> {
  const vars = Object.entries(env).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return runPlanningHere({
    root,
    specDir: SPEC_DIR,
    command,
    agent,
    agents: { command: { command: [...vars, JSON.stringify(process.execPath), JSON.stringify(join(FIXTURES, 'agents', 'planning-agent.mjs'))].join(' ') } },
    env: { GIT_AUTHOR_NAME: 'harness', GIT_AUTHOR_EMAIL: 'h@example.com', GIT_COMMITTER_NAME: 'harness', GIT_COMMITTER_EMAIL: 'h@example.com' },
    logDir: join(root, '..', `${root.split('/').pop()}-logs`),
    progress: { event: () => undefined, stage: (_title, work) => work() },
    clock: systemClock(),
  });
}

const log = (root: string) => git(root, 'log', '--format=%s', 'main');

describe('a planning command on a checkout', () => {
  it('writes, checks and commits the documents of each command, one commit each', async () => {
    const root = await repo();
    const steps: [PlanningCommand, string[]][] = [
      [{ name: 'plan-spec' }, [`${SPEC_DIR}/planning/PROJECT.md`]],
      [{ name: 'research-spec' }, ['ARCHITECTURE', 'FEATURES', 'PITFALLS', 'STACK', 'SUMMARY'].map((n) => `${SPEC_DIR}/planning/research/${n}.md`)],
      [{ name: 'define-requirements' }, [`${SPEC_DIR}/planning/REQUIREMENTS.md`]],
      [{ name: 'create-roadmap' }, [`${SPEC_DIR}/ROADMAP.md`]],
      [{ name: 'add-phase', goal: 'Notes can be exported' }, [`${SPEC_DIR}/ROADMAP.md`]],
      [{ name: 'research-phase', phase: '01' }, [`${SPEC_DIR}/planning/research/phase-01-research.md`]],
      [
        { name: 'plan-phase', phase: '01' },
        [
          `${SPEC_DIR}/planning/checks/phase-01-plans.md`,
          `${SPEC_DIR}/planning/plans/01-work/01-01-PLAN.md`,
          `${SPEC_DIR}/planning/plans/01-work/01-02-PLAN.md`,
        ],
      ],
      [{ name: 'map-codebase' }, ['CONCERNS', 'INTEGRATIONS', 'PATTERNS', 'STACK', 'STRUCTURE', 'TESTING'].map((n) => `${SPEC_DIR}/planning/codebase/${n}.md`)],
    ];
    for (const [command, files] of steps) {
      const outcome = await run(root, command);
      expect(outcome, command.name).toMatchObject({ kind: 'committed', files, retries: [], discarded: [] });
    }
    expect(log(root).split('\n')).toEqual([
      'plan SPC-001: map of the codebase',
      'plan SPC-001: plans of phase 01',
      'plan SPC-001: research for phase 01',
      'plan SPC-001: add a phase to the roadmap',
      'plan SPC-001: roadmap',
      'plan SPC-001: requirements',
      'plan SPC-001: research (stack, features, architecture, pitfalls, synthesis)',
      'plan SPC-001: PROJECT.md from SPEC.md',
      'spec',
    ]);
    expect(git(root, 'log', '-1', '--format=%(trailers:only,unfold)', 'HEAD~1').trim()).toBe('Spec: SPC-001\nPlanning: plan-phase');
    expect(readFileSync(join(root, SPEC_DIR, 'ROADMAP.md'), 'utf8')).toContain('goal: "Notes can be exported"');
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it("puts the lessons that apply to the spec in the agent's brief, and none that do not", async () => {
    const root = await repo();
    const lessons = join(FIXTURES, 'knowledge', 'surface', 'store', 'lessons', 'tooling');
    await writeTree(root, {
      [`${SPEC_DIR}/SPEC.md`]:
        '---\nid: SPC-001\ntitle: Notes\n---\n\n# Notes\n\nKeep notes in a TypeScript ESM package (NodeNext); imports between its modules must resolve under node.\n',
      '.harness/knowledge/lessons/tooling/esm-relative-imports.lesson.md': readFileSync(join(lessons, 'esm-relative-imports.lesson.md'), 'utf8'),
      '.harness/knowledge/lessons/tooling/stop-background-servers.lesson.md': readFileSync(
        join(FIXTURES, 'knowledge', 'reflect', 'store', 'lessons', 'tooling', 'stop-background-servers.lesson.md'),
        'utf8',
      ),
    });
    git(root, 'add', '-A');
    git(root, '-c', 'user.name=Seed', '-c', 'user.email=seed@example.com', 'commit', '-q', '-m', 'lessons');
    const briefs = join(root, '..', `${root.split('/').pop()}-briefs.jsonl`);

    const outcome = await run(root, { name: 'plan-spec' }, { PLANNING_AGENT_LOG: briefs });

    expect(outcome.kind).toBe('committed');
    expect(outcome.surfaced.map((e) => e.path)).toEqual(['lessons/tooling/esm-relative-imports.lesson.md']);
    expect(outcome.brief?.id).toBe('planning/plan-spec');
    const brief = (JSON.parse(readFileSync(briefs, 'utf8').trim().split('\n')[0]!) as { brief: string }).brief;
    expect(brief).toContain('relative imports in TypeScript need the `.js` extension');
    expect(brief).not.toContain('stop-background-servers');
  });

  it('gives an invalid plan back once with its errors, and commits the second try', async () => {
    const root = await repo();
    const briefs = join(root, '..', `${root.split('/').pop()}-briefs.jsonl`);
    await run(root, { name: 'create-roadmap' });
    const outcome = await run(root, { name: 'plan-phase', phase: '01' }, { PLANNING_AGENT_SLIP: 'plan-phase', PLANNING_AGENT_LOG: briefs });
    const problems = [
      `${SPEC_DIR}/planning/plans/01-work/01-01-PLAN.md:8: plan 01-01 has no must_pass checks, so it could pass without the work being done; add a machine-checkable check such as { id: tests, type: tests_pass, command: "npm test" }`,
      `${SPEC_DIR}/planning/plans/01-work/01-02-PLAN.md:8: plan 01-02 has no must_pass checks, so it could pass without the work being done; add a machine-checkable check such as { id: tests, type: tests_pass, command: "npm test" }`,
    ];
    expect(outcome).toMatchObject({ kind: 'committed', retries: [{ stage: 'plan-phase', problems }] });
    const calls = readFileSync(briefs, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stage: string; try: string; brief: string });
    // The plans twice (the first refused), then the verifier's check of them.
    expect(calls.map((c) => `${c.stage}:${c.try}`)).toEqual(['plan-phase:1', 'plan-phase:2', 'plans-check:1']);
    expect(calls[0]!.brief).not.toContain('Your first try was refused');
    for (const p of problems) expect(calls[1]!.brief).toContain(`- ${p}`);
    expect(readFileSync(join(root, SPEC_DIR, 'planning/plans/01-work/01-01-PLAN.md'), 'utf8')).toContain('type: file_exists');
    expect(log(root).split('\n')[0]).toBe('plan SPC-001: plans of phase 01');
  });

  it('commits nothing when the second try is refused too, and says why in file:line form', async () => {
    const root = await repo();
    await run(root, { name: 'create-roadmap' });
    const head = git(root, 'rev-parse', 'HEAD');
    const outcome = await run(root, { name: 'research-spec' }, { PLANNING_AGENT_SLIP: 'research-spec', PLANNING_AGENT_STUBBORN: '1' });
    expect(outcome).toMatchObject({
      kind: 'failed',
      problems: [
        `${SPEC_DIR}/planning/research/SUMMARY.md:1: say how sure the research is: frontmatter \`confidence: high|medium|low\``,
        `${SPEC_DIR}/planning/research/SUMMARY.md:1: list where each finding comes from under a "## Sources" heading (write "none found" there rather than nothing)`,
      ],
    });
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('puts back what the agent wrote outside its documents', async () => {
    const root = await repo();
    const outcome = await run(root, { name: 'plan-spec' }, { PLANNING_AGENT_OUTSIDE: '1' });
    expect(outcome).toMatchObject({ kind: 'committed', discarded: ['README.md'], files: [`${SPEC_DIR}/planning/PROJECT.md`] });
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('# demo\n');
  });

  it('refuses a phase the roadmap does not have, and the script agent', async () => {
    const root = await repo();
    expect(await run(root, { name: 'plan-phase', phase: '01' })).toMatchObject({
      kind: 'failed',
      reason: '`plan-phase 01`: SPC-001 has no roadmap yet; write one first with create-roadmap',
    });
    expect(await run(root, { name: 'plan-spec' }, {}, 'script')).toMatchObject({
      kind: 'failed',
      reason: expect.stringMatching(/^the script agent cannot plan/),
    });
  });
});
