/**
 * The worker on a runner, measured as a runner runs it: the bundled action as its own Node
 * process, GitHub's API a stateful fake on 127.0.0.1 (test/helpers/github-repo.ts), `origin` a
 * bare repository, Claude Code the MCP-speaking stand-in of the tests (test/fixtures/claude).
 *
 *   npx tsx bench/run.ts worker     (or as part of `npm run bench`)
 *
 * - start-up: from the worker process's start to the agent's (the stand-in's first line of
 *   code, so Node's own start of the stand-in is counted against the worker), after checkout;
 * - the bundle: bytes as shipped and minified;
 * - check-run writes: a plan that reports 1,000 times through harness_worker_report, and the
 *   PATCHes its check run got while it reported, against one per 3 s of reporting plus the final.
 *
 * Writes bench/results/worker.json.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { findActions, bundleAction } from '../scripts/build-actions.js';
import { bundleWorker, runAction } from '../test/helpers/bundled-worker.js';
import { FakeGitHub } from '../test/helpers/github-repo.js';
import { standInClaude, type ClaudeAction } from '../test/helpers/mcp-claude.js';
import { isolateGit, workerRepo } from '../test/helpers/worker-repo.js';
import { SPEC, specRepo } from '../test/helpers/worker-spec.js';
import { median, type BenchModule, type Row } from './lib.js';

const RUNS = 5;

function readTextIfExistsSync(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}
const REPORTS = 1_000;
const START_TARGET_MS = 1_000;
const INTERVAL_MS = 3_000;
const BRANCH = `harness/${SPEC}/01-01`;

interface Run {
  startupMs: number;
  writes: number;
  reportingMs: number;
}

async function once(bundle: string, actions: ClaudeAction[]): Promise<Run> {
  const repo = await workerRepo(
    specRepo([
      { id: '01-01', title: 'Greeting', checks: ['{ id: greeting, type: file_exists, path: out/greeting.txt }'], blocks: ['Write out/greeting.txt.'] },
    ]),
    BRANCH,
  );
  const github = new FakeGitHub('octo-org', 'widgets');
  github.defaultBranch = 'main';
  github.branches.set('main', repo.base);
  github.branches.set(BRANCH, repo.base);
  github.issues.push({
    id: 1,
    number: 3,
    title: '[01-01] Greeting',
    body: `<!-- harness:plan ${SPEC}/01-01 hash=0 status=running -->`,
    labels: ['harness:plan', `spec:${SPEC}`, 'status:running'],
    state: 'open',
    state_reason: null,
  });
  const server = await github.serve();
  try {
    const claude = await standInClaude([actions]);
    const root = mkdtempSync(join(tmpdir(), 'harness-bench-runner-'));
    const started = Date.now();
    await runAction(
      bundle,
      { workspace: repo.checkout, temp: join(root, 'temp'), claudeHome: join(root, 'claude') },
      { spec: SPEC, plan: '01-01', resume: 'false', token: 'ghs_bench', agent: 'claude' },
      {
        PATH: claude.env.PATH!,
        HOME: root,
        FAKE_CLAUDE_SCENARIO: claude.env.FAKE_CLAUDE_SCENARIO!,
        FAKE_CLAUDE_STATE: claude.env.FAKE_CLAUDE_STATE!,
        GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL ?? '',
        GIT_CONFIG_NOSYSTEM: '1',
        GITHUB_API_URL: server.url,
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_REPOSITORY: 'octo-org/widgets',
        GITHUB_REF: 'refs/heads/main',
        GITHUB_RUN_ID: '1',
      },
    );
    const [call] = (await claude.calls()) as unknown as { started: number }[];
    const timings = (readTextIfExistsSync(join(claude.bin, 'timings.jsonl')) ?? '')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { from: number; to: number });
    const reporting = timings[0] ? timings[0].to - timings[0].from : 0;
    // Progress writes: PATCHes without a status (the start and the end set one).
    const writes = github.requests.filter(
      (r) => r.method === 'PATCH' && r.url.includes('/check-runs/') && (r.body as { status?: string }).status === undefined,
    ).length;
    return { startupMs: call!.started - started, writes, reportingMs: reporting };
  } finally {
    await server.close();
  }
}

const worker: BenchModule = {
  name: 'worker',
  description: 'the worker action on a runner: start-up to the agent, bundle size, check-run writes for a chatty agent',
  async run({ log }) {
    const restore = isolateGit();
    try {
      const action = findActions().find((a) => a.name === 'worker')!;
      const shipped = (await bundleAction(action)).byteLength;
      const minified = (
        await build({
          entryPoints: [action.entry],
          bundle: true,
          platform: 'node',
          format: 'esm',
          target: 'node24',
          minify: true,
          write: false,
          logLevel: 'silent',
          legalComments: 'none',
        })
      ).outputFiles[0]!.contents.byteLength;
      const bundle = await bundleWorker();
      const quick: ClaudeAction[] = [{ write: ['out/greeting.txt', 'hello\n'] }];
      const starts: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const r = await once(bundle, quick);
        starts.push(r.startupMs);
        log(`start-up run ${i + 1}: ${r.startupMs} ms`);
      }
      const chatty = await once(bundle, [{ reports: REPORTS }, { write: ['out/greeting.txt', 'hello\n'] }]);
      log(`${REPORTS} reports in ${chatty.reportingMs} ms: ${chatty.writes} progress writes`);
      const allowed = Math.ceil(chatty.reportingMs / INTERVAL_MS) + 1;
      const startup = median(starts);
      const rows: Row[] = [
        { measure: 'start-up: worker process start → agent start (median of 5)', value: `${startup} ms` },
        { measure: 'bundle as shipped (actions/worker/dist/index.js)', value: `${(shipped / 1024).toFixed(0)} KiB` },
        { measure: 'bundle minified', value: `${(minified / 1024).toFixed(0)} KiB` },
        {
          measure: `check-run progress writes for ${REPORTS} reports`,
          value: `${chatty.writes} in ${(chatty.reportingMs / 1000).toFixed(1)} s of reporting (+1 final)`,
        },
      ];
      return {
        notes: [
          'The bundled action as a Node process of its own against a fake GitHub on 127.0.0.1; the agent is the stand-in claude of the tests, which speaks MCP.',
          'Start-up includes reading the config and spec, the plan issue and its comments, taking over the check run, deepening the checkout, loading the plan from the base, and starting the agent.',
        ],
        rows,
        targets: [
          { name: `worker start-up under ${START_TARGET_MS} ms after checkout`, met: startup < START_TARGET_MS, detail: `${startup} ms` },
          {
            name: `at most one check-run write per ${INTERVAL_MS / 1000} s of reporting, plus the final`,
            met: chatty.writes <= allowed,
            detail: `${chatty.writes} writes, ${allowed} allowed`,
          },
        ],
        results: {
          startupMs: starts,
          shippedBytes: shipped,
          minifiedBytes: minified,
          reports: REPORTS,
          reportingMs: chatty.reportingMs,
          progressWrites: chatty.writes,
        },
      };
    } finally {
      restore();
    }
  },
};

export default worker;
