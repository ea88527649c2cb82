import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runWorker } from '../../app/worker-action/worker.js';
import { workerForge, type WorkerDeps } from '../../app/worker-action/worker-run.js';
import type { FakeGitHub } from '../helpers/github-repo.js';
import { dispatchedFake } from '../helpers/worker-fake.js';
import { testOctokit } from '../helpers/octokit.js';
import { OWNER, REPO, testLog } from '../helpers/worker-github.js';
import { isolateGit, workerRepo } from '../helpers/worker-repo.js';
import { SPEC, specRepo, step, type WorkerPlan } from '../helpers/worker-spec.js';

/**
 * A write outside `files_modified` on a runner (issue 36), as in a local run: plans that run at
 * the same time are kept apart only by the files they declare, so a plan that wrote elsewhere is
 * said on its PR, its check run and in the job's summary; with `strict_files: true` in
 * .github/harness.yml it fails instead, before its push and its PR (engine/lifecycle's
 * underStrictFiles, the local run's rule too).
 */

const BASE = 'b'.repeat(40);

const DEVIATING: WorkerPlan = {
  id: '01-01',
  title: 'Greeting',
  checks: ['{ id: greeting, type: file_exists, path: out/greeting.txt }'],
  blocks: [step('Write the greeting', 'mkdir -p out stray && echo hello > out/greeting.txt && echo x > stray/notes.txt')],
};

let github: FakeGitHub;
let restoreGit: () => void;

beforeAll(() => {
  restoreGit = isolateGit();
  nock.disableNetConnect();
});
beforeEach(() => {
  github = dispatchedFake(BASE);
  github.commit(BASE, { 'README.md': '# demo\n' });
  github.install({ ownOnly: true });
});
afterEach(() => nock.cleanAll());
afterAll(() => restoreGit());

async function job(config?: string) {
  const repo = await workerRepo(
    specRepo([DEVIATING], { '.github/harness.yml': `knowledge:\n  capture:\n    enabled: false\n${config ?? ''}` }),
    `harness/${SPEC}/01-01`,
  );
  const log = testLog();
  const request = testOctokit().request;
  const deps: WorkerDeps = {
    inputs: { spec: SPEC, target: { kind: 'plan', plan: '01-01' }, resume: false },
    base: 'main',
    root: repo.checkout,
    tempDir: repo.temp,
    forge: workerForge(request, { owner: OWNER, repo: REPO }, 'harness[bot]'),
    secrets: ['the-job-token-0123456789'],
    log,
    now: () => new Date('2024-05-01T12:30:00Z'),
    runUrl: `https://github.com/${OWNER}/${REPO}/actions/runs/101`,
    // No progress writes: how many a job makes follows how fast the machine runs it.
    checkIntervalMs: 2 ** 30,
  };
  return { outcome: await runWorker(deps), log };
}

/** The plan's check run as the job left it on the commit it pushed. */
function finalCheckRun() {
  return github.checkRuns.filter((r) => r.name.endsWith('01-01')).at(-1)!;
}

describe('a plan that wrote outside its files_modified, on a runner', () => {
  it('is verified, and its PR, its check run and the job summary name the files, why they matter and how to be strict', async () => {
    const { outcome } = await job();

    expect(outcome.result).toBe('verified');
    const pr = github.pullRequests.find((p) => p.head === `harness/${SPEC}/01-01`)!;
    expect(pr.body).toContain('### Outside files_modified\n\nThis plan changed files its `files_modified` does not declare: `stray/notes.txt`.');
    expect(pr.body).toContain('`strict_files: true` in `.github/harness.yml` fails such a plan instead.');
    expect(finalCheckRun()).toMatchObject({ conclusion: 'success' });
    expect(finalCheckRun().output.summary).toContain('⚠️ This plan changed files its `files_modified` does not declare: `stray/notes.txt`.');
    expect(outcome.summary).toContain('changed files outside files_modified: `stray/notes.txt`');
  });

  it('with strict_files: true, fails before its push and its PR, saying which files and what to do', async () => {
    const { outcome } = await job('strict_files: true\n');

    expect(outcome.result).toBe('failed');
    expect(github.pullRequests.filter((p) => p.head === `harness/${SPEC}/01-01`)).toEqual([]);
    expect(github.branches.get(`harness/${SPEC}/01-01`)).toBe(BASE);
    expect(finalCheckRun()).toMatchObject({ conclusion: 'failure' });
    expect(finalCheckRun().output.summary).toContain(
      'wrote outside its files_modified, which strict_files in .github/harness.yml does not allow: `stray/notes.txt`. Declare the files in the plan, or take the writes out, and retry',
    );
  });
});
