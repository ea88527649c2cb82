import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../app/engine/core/spec/load.js';
import { readSpecFiles } from '../../app/machine/spec-files.js';
import { runCli } from '../helpers/cli.js';
import { EXAMPLE_SPEC } from '../helpers/paths.js';
import { DIR, repoWithSpec } from '../helpers/planning-repo.js';
import { git, isolateGit } from '../helpers/worker-repo.js';

/**
 * The README's example spec planned from its SPEC.md alone, end to end: only SPEC.md is copied
 * into a new repository, the planning commands run with the stand-in planning agent (which
 * writes the documents a planner would: here, the example's own), each commit is checked by
 * harness, and `harness run` then executes all ten plans to the end. (An e2e case: the run of
 * the whole example is most of its cost; planning.test.ts covers each planning command.)
 */

let restoreGit: () => void;
beforeAll(() => {
  restoreGit = isolateGit();
});
afterAll(() => restoreGit());

describe('harness plan-spec, create-roadmap, plan-phase … then run, on this machine', () => {
  it("plans the README's example from its SPEC.md alone, and harness run executes the plans to the end", async () => {
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
  }, 600_000);
});
