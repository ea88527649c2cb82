/**
 * The processes a local run starts for itself, per plan: git's trace2 log names every git
 * process and who started it (bench/process-census.ts counts the same for the benchmark).
 * What each plan needs is a checkout of its branch (a verified plan's worktree, taken over),
 * its step's add, staged-file list and commit, the merge (and the `stash create` git merge
 * starts itself), the secret scan of its commits before the merge (one `git log -p`; the
 * allow list at the run's base is read once a run) and its documents' add and commit: no
 * worktree add or remove per plan, no automatic maintenance, no other log, diff of the attempt
 * or status of a fresh checkout. The one status a run makes is of the spec's directory in the
 * person's checkout, at its start: a spec read with changes not committed is said.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordingReporter } from '../../app/runner/progress.js';
import { runSpec } from '../../app/runner/runner.js';
import { gitSubcommand } from '../../bench/process-census.js';
import { makeRepo, SPEC_DIR, specTree, type StepPlan } from '../helpers/repo.js';

const PLANS: StepPlan[] = Array.from({ length: 8 }, (_, i) => ({
  id: `01-0${i + 1}`,
  ...(i > 0 ? { dependsOn: [`01-0${i}`] } : {}),
  steps: [`mkdir -p out && echo ${i} > out/01-0${i + 1}.txt`],
}));

describe('the processes of a run', () => {
  it("are ten per plan, and none of them is a worktree add per plan, automatic maintenance, a log beyond the secret scan's, a diff of the attempt or a status but the spec's, once", async () => {
    const root = await makeRepo(specTree(PLANS));
    const trace = join(root, '.git', 'trace2.json');
    process.env.GIT_TRACE2_EVENT = trace;
    try {
      const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 1, agent: 'script', reporter: new RecordingReporter() });
      expect(outcome.complete).toBe(true);
    } finally {
      delete process.env.GIT_TRACE2_EVENT;
    }
    const kinds = new Map<string, number>();
    for (const line of readFileSync(trace, 'utf8').split('\n')) {
      if (!line.includes('"event":"start"')) continue;
      const argv = (JSON.parse(line) as { argv: string[] }).argv;
      const kind = gitSubcommand(argv.slice(1));
      const sub = kind === 'worktree' ? `worktree ${argv[argv.indexOf('worktree') + 1]}` : kind;
      kinds.set(sub, (kinds.get(sub) ?? 0) + 1);
    }
    const total = [...kinds.values()].reduce((a, b) => a + b, 0);
    // Ten a plan, and what a run does once (its start, the integration worktree, the phase's and the spec's records, the last spare removed, the allow list).
    expect(total, JSON.stringify(Object.fromEntries(kinds))).toBeLessThanOrEqual(10 * PLANS.length + 16);
    // The secret scan of each plan's commits before its merge (push-scan.ts).
    expect(kinds.get('log')).toBe(PLANS.length);
    // The integration worktree's and the first plan's; every later plan takes the worktree of the one before.
    expect(kinds.get('worktree add')).toBe(2);
    expect(kinds.get('worktree remove')).toBe(1);
    expect(kinds.get('checkout')).toBe(PLANS.length - 1);
    for (const never of ['maintenance', 'gc', 'diff-tree']) expect(kinds.get(never), never).toBeUndefined();
    expect(kinds.get('status'), "the spec directory's, once a run").toBe(1);
    // Only the worker's staged-file list of each step's commit.
    expect(kinds.get('diff')).toBe(PLANS.length);
  });
});
