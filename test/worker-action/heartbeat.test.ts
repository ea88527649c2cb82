import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runWorker } from '../../app/worker-action/worker.js';
import type { WorkerDeps } from '../../app/worker-action/worker-run.js';
import { fileAppears } from '../helpers/file-appears.js';
import { gate, type Gate } from '../helpers/gate.js';
import { manualTicker, type ManualTicker } from '../helpers/ticker.js';
import { issueJson, OWNER, REPO, testForge, testLog, workerRequests } from '../helpers/worker-github.js';
import { isolateGit, workerRepo, type WorkerRepo } from '../helpers/worker-repo.js';
import { SPEC, specRepo, step, type WorkerPlan } from '../helpers/worker-spec.js';

/**
 * The job's log has the same heartbeat as a local run (engine/lifecycle/heartbeat.ts): 10 s
 * without a line while the agent or a check runs logs what runs. The step and the check wait
 * for the test's word (a gate: test/helpers/gate.ts); the heartbeat's time moves only when the test moves it.
 */

let restoreGit: () => void;
let signals: string;
/** The gates the plan's steps wait at, and its check's. */
let work: Gate;
let check: Gate;

beforeAll(() => {
  restoreGit = isolateGit();
  nock.disableNetConnect();
});

afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
  rmSync(signals, { recursive: true, force: true });
});

afterAll(() => {
  restoreGit();
});

/** Files of a repository whose plan 01-01 has steps that say they work (working-N), then wait at `work`, and a check that says it started (checking-N), then waits at `check`. */
function files(extra: Record<string, string> = {}): Record<string, string> {
  signals = mkdtempSync(join(tmpdir(), 'harness-heartbeat-'));
  work = gate(join(signals, 'go-work'));
  check = gate(join(signals, 'go-check'));
  const plan: WorkerPlan = {
    id: '01-01',
    title: 'Greeting',
    checks: ['{ id: greeting, type: file_exists, path: out/greeting.txt }', '{ id: slow, type: build_succeeds, command: "sh wait.sh" }'],
    blocks: ['Write the greeting', 'Sign it', 'Date it'].map((title, i) =>
      step(title, `touch "${signals}/working-${i + 1}" && ${work.wait}\nmkdir -p out\necho ${title} >> out/greeting.txt`),
    ),
  };
  const wait = `n=$(ls "${signals}" | grep -c '^checking-'); n=$((n+1)); touch "${signals}/checking-$n"; ${check.wait}\n`;
  return specRepo([plan], { 'wait.sh': wait, ...extra });
}

function deps(repo: WorkerRepo, target: WorkerDeps['inputs']['target'], ticker: ManualTicker) {
  const log = testLog();
  const d: WorkerDeps = {
    inputs: { spec: SPEC, target, resume: false },
    base: 'main',
    root: repo.checkout,
    tempDir: repo.temp,
    forge: testForge(),
    log,
    env: {},
    now: () => new Date('2024-05-01T12:30:00Z'),
    runUrl: `https://github.com/${OWNER}/${REPO}/actions/runs/42`,
    appLogin: 'harness-app[bot]',
    ticker,
  };
  return { deps: d, log };
}

const heartbeats = (lines: string[]) => lines.filter((l) => l.startsWith('still '));

describe('the worker action: the heartbeat', () => {
  it('logs what the agent is at, then which check runs, after 10 s without a line; and leaves no timer', async () => {
    const branch = `harness/${SPEC}/01-01`;
    const repo = await workerRepo(files(), branch);
    workerRequests({
      spec: SPEC,
      issues: [issueJson({ number: 3, plan: '01-01', status: 'running' })],
      comments: { issue: 3, answer: [] },
      pull: { head: branch, base: 'main', open: [], created: { number: 12, html_url: `https://github.com/${OWNER}/${REPO}/pull/12` } },
      end: { issue: 3, to: 'verified' },
    });
    const ticker = manualTicker();
    const { deps: d, log } = deps(repo, { kind: 'plan', plan: '01-01' }, ticker);
    const running = runWorker(d);

    await fileAppears(join(signals, 'working-1'));
    ticker.advance(12_000);
    work.open();
    // The second step works 6 s, then ends: the lines the log gets of it start the silence again.
    await fileAppears(join(signals, 'working-2'));
    ticker.advance(6_000);
    work.open();
    // So 6 s into the third, nothing yet; at 12 s, a line.
    await fileAppears(join(signals, 'working-3'));
    ticker.advance(6_000);
    ticker.advance(6_000);
    work.open();
    await fileAppears(join(signals, 'checking-1'));
    ticker.advance(12_000);
    check.open();

    const outcome = await running;
    expect(outcome.failure).toBeUndefined();
    expect(outcome.result).toBe('verified');
    expect(heartbeats(log.lines)).toEqual([
      'still running: 01-01 (script, 12 s): "Write the greeting"',
      'still running: 01-01 (script, 30 s): "Date it"',
      'still verifying 01-01: check slow "sh wait.sh" (12 s)',
    ]);
    expect(ticker.active).toBe(0);
  });

  it('logs which check of a phase runs', async () => {
    const repo = await workerRepo(files({ 'out/greeting.txt': 'hello\n' }), `harness/${SPEC}/phase-01`);
    const ticker = manualTicker();
    const { deps: d, log } = deps(repo, { kind: 'phase', phase: '01' }, ticker);
    const running = runWorker(d);

    await fileAppears(join(signals, 'checking-1'));
    ticker.advance(12_000);
    check.open();

    const outcome = await running;
    expect(outcome.result).toBe('verified');
    expect(heartbeats(log.lines)).toEqual(['still verifying phase 01: check 01-01/slow "sh wait.sh" (12 s)']);
    expect(ticker.active).toBe(0);
  });
});
