import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitHubClient } from '../../app/gateway/client.js';
import { runWorker } from '../../app/worker-action/worker.js';
import { workerForge, type WorkerDeps } from '../../app/worker-action/worker-run.js';
import { APP_CHECK, BRANCH, dispatchedFake, greetingPlan, OWNER, REPO } from '../helpers/worker-fake.js';
import { testLog } from '../helpers/worker-github.js';
import { git, isolateGit, workerRepo } from '../helpers/worker-repo.js';
import { SPEC, specRepo, step } from '../helpers/worker-spec.js';

/**
 * A transport error is not the plan's failure. The worker's client (the one client factory:
 * retries and throttling) runs against the stateful fake over HTTP; one fault — a 502, a 500 or a
 * dropped connection — is injected at each index of the worker's requests in turn. Every run must
 * end as the fault-free run does: verified, one plan PR, the App's check run concluded success.
 */

const GREETING = greetingPlan([], [step('Write the greeting', 'mkdir -p out\necho hello > out/greeting.txt')]);

type Fault = 502 | 500 | 'reset';
const FAULTS: Fault[] = [502, 500, 'reset'];

let restoreGit: () => void;
const made: string[] = [];
beforeAll(() => {
  restoreGit = isolateGit();
});
afterAll(() => {
  restoreGit();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** One worker run with the plan's agent (script), the App's check run queued at dispatch, and one fault at `at` (none when undefined). */
async function runWith(at: number | undefined, fault: Fault, always?: (method: string, url: string) => number | undefined) {
  const repo = await workerRepo(specRepo([GREETING]), BRANCH);
  made.push(dirname(repo.remote));
  const github = dispatchedFake(repo.base);
  // The fault strikes once, at the at-th request the server receives (a dropped one is never served, so arrivals are counted).
  let struck: string | undefined;
  let arrived = 0;
  if (fault === 'reset') {
    github.drop = (method, url) => {
      if (arrived++ !== at) return false;
      struck = `${method} ${url}`;
      return true;
    };
  } else {
    github.fail = (method, url) => {
      if (github.requests.length - 1 !== at || struck !== undefined) return undefined;
      struck = `${method} ${url}`;
      return fault;
    };
  }
  if (always) github.fail = always;
  const server = await github.serve();
  const log = testLog();
  const client = gitHubClient({
    token: 'ghs_test',
    baseUrl: server.url,
    userAgent: 'harness-test',
    warn: (m) => log.warning(m),
    unthrottled: true,
    retryBase: 5,
  });
  const deps: WorkerDeps = {
    inputs: { spec: SPEC, target: { kind: 'plan', plan: '01-01' }, resume: false, agent: 'script' },
    base: 'main',
    root: repo.checkout,
    tempDir: repo.temp,
    forge: workerForge(client.request, { owner: OWNER, repo: REPO }, 'harness[bot]'),
    log,
    now: () => new Date('2024-05-01T12:30:00Z'),
    checkOwner: 'app',
    appLogin: 'harness[bot]',
    // No progress writes between the take-over and the final state: their number follows how fast
    // the machine runs the plan, and every request here is counted and swept.
    checkIntervalMs: 2 ** 30,
  };
  try {
    const outcome = await runWorker(deps);
    const check = github.checkRuns.find((r) => r.id === APP_CHECK)!;
    return {
      requests: github.requests.length,
      log: log.lines,
      struck,
      state: {
        result: outcome.result,
        failure: outcome.failure,
        check: { status: check.status, conclusion: check.conclusion, title: check.output.title },
        pulls: github.pullRequests.map((p) => ({ head: p.head, base: p.base, title: p.title })),
        checkRuns: github.checkRuns.length,
        status: github.issue(3).labels.filter((l) => l.startsWith('status:')),
        branch: git(repo.remote, 'rev-parse', `refs/heads/${BRANCH}`) !== repo.base,
      },
    };
  } finally {
    await server.close();
  }
}

describe('a transport error at any request of the worker', () => {
  it('leaves the outcome, the PR and the check run as a fault-free run leaves them', async () => {
    const clean = await runWith(undefined, 502);
    expect(clean.state).toMatchObject({
      result: 'verified',
      check: { status: 'completed', conclusion: 'success', title: 'Verified' },
      pulls: [{ head: BRANCH, base: 'main' }],
      branch: true,
    });
    expect(clean.requests).toBeGreaterThan(5);

    const swept: string[] = [];
    for (let at = 0; at < clean.requests; at++) {
      const fault = FAULTS[at % FAULTS.length]!;
      const run = await runWith(at, fault);
      expect(run.struck, `a ${fault} at request ${at}`).toBeDefined();
      expect(run.state, `a ${fault} at request ${at} (${run.struck})`).toEqual(clean.state);
      swept.push(`${fault} @${at} ${run.struck}`);
    }
    expect(swept).toHaveLength(clean.requests);
    if (process.env.SHOW_SWEEP) console.log(swept.join('\n'));
    // One worker run per request of a clean run, each a few seconds: the limit catches a hang, not a busy machine.
  }, 900_000);

  it('a final check-run write that fails even after the retries is said in the log; the verified plan stays verified', async () => {
    let patches = 0;
    const run = await runWith(undefined, 502, (method, url) =>
      method === 'PATCH' && url.endsWith(`/check-runs/${APP_CHECK}`) && ++patches > 1 ? 502 : undefined,
    );

    expect(run.state).toMatchObject({ result: 'verified', failure: undefined, pulls: [{ head: BRANCH, base: 'main' }], branch: true });
    // Taken over (1 PATCH), then the final state tried 1 + 3 times.
    expect(patches).toBe(5);
    expect(run.log.filter((l) => l.startsWith('warning: could not write'))).toEqual([
      "warning: could not write the check run's final state (verified): PATCH /repos/{owner}/{repo}/check-runs/{check_run_id} answered 502: Server Error; the App settles it, and the plan issue's status, when this workflow run completes",
    ]);
    // Still running as far as the issue says: a plan its worker marks verified is one whose check run it concluded, and the App reads no further (worker-run.ts).
    expect(run.state.status).toEqual(['status:running']);
  });
});
