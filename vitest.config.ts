import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The end-to-end files: each runs real processes end to end (the bundled worker action, the CLI
 * killed and resumed, many contending processes) or sweeps a fault campaign, and each costs
 * seconds per case where the rest cost milliseconds. `npm run test:e2e` runs these; .ci/run runs
 * all three projects. Each behaviour here is covered by a unit or integration file too (named
 * beside it); these prove it holds for real.
 */
export const E2E = [
  // The worker bundled by esbuild, run as Actions runs it (worker.test.ts drives it in-process).
  'test/worker-action/bundled-worker.test.ts',
  'test/worker-action/private-repository.test.ts',
  // The same bundle with each agent CLI's stand-in: plan, checkpoint resumed on a fresh runner,
  // usage limit, budget (test/agents/<agent>.test.ts: each agent in-process).
  'test/worker-action/codex-worker.test.ts',
  'test/worker-action/gemini-worker.test.ts',
  'test/worker-action/copilot-worker.test.ts',
  // A spec PR's sync with one fault at every request index (spec-pr.test.ts: each fault kind once).
  'test/github/spec-pr/sync-faults.test.ts',
  // The worker over real HTTP with a 502, a 500 or a dropped connection at each request index
  // (worker.test.ts: the worker's runs; gateway tests: the client's retries). Dropped connections
  // need Node's own http, not nock's interceptor, which unit files share (see test/setup.ts).
  'test/worker-action/transport-faults.test.ts',
  // `harness run` killed with SIGKILL at each git step and resumed (runner.test.ts: one kill).
  'test/runner/crash-points.test.ts',
  'test/runner/crash-campaign.test.ts',
  // Twelve processes contending for the run lock, three times (the other lock cases stay in unit).
  'test/runner/lock-contention.test.ts',
  // The README's example planned from SPEC.md, then all ten plans run (planning.test.ts: each command).
  'test/cli/planning-example.test.ts',
  // `harness run --agent <cli>` with each agent CLI's stand-in, the runner as a user starts it
  // (test/agents/<agent>.test.ts: each agent in-process).
  'test/runner/codex-run.test.ts',
  'test/cli/gemini-run.test.ts',
  'test/cli/copilot-run.test.ts',
  // `harness run --agent claude|copilot` with the real pinned CLIs against a fake model on 127.0.0.1:
  // a plan verified, a usage limit paused and resumed, a checkpoint resuming the CLI's own session
  // (test/agents/<agent>.test.ts and the *-run files above: the same with each CLI's stand-in).
  'test/agents/real/claude.test.ts',
  'test/agents/real/copilot.test.ts',
  // The same with the real pinned codex and gemini, and a fallback from codex to gemini (the stand-ins
  // above held to what these CLIs write by test/agents/real-cli-standins.test.ts).
  'test/agents/real/codex.test.ts',
  'test/agents/real/gemini.test.ts',
  // First syncs of 110- and 300-plan specs through the App (test/engine/forge/issue-window.test.ts:
  // the window, the phase issues and the link cap computed in-process).
  'test/github/spec-pr/issue-window.test.ts',
  // npm start as a newcomer types it, and every command it ends with pasted where they stand.
  'test/scripts/start.test.ts',
  // The ui_* checks in a real headless Chromium (verify.test.ts: every other check kind in-process).
  'test/machine/verify-browser.test.ts',
  // The timeline drawn by Mermaid's own renderer in Chromium (timeline.test.ts, status-comment.test.ts: the text in-process).
  'test/engine/core/analysis/gantt-render.test.ts',
  // `harness run --sandbox` with each engine's stand-in under bubblewrap and the filtering proxy (engine/core/agents/sandbox.test.ts: the policy in-process).
  'test/machine/sandbox.test.ts',
  // The worker bundle with network: in .github/harness.yml: the agent behind the allowlist, what it refused on the check run and the PR.
  'test/worker-action/sandboxed-worker.test.ts',
];

/**
 * The integration files: each runs harness end to end on this machine, through real git
 * repositories and the processes a user's run starts (an agent CLI's stand-in or the script
 * agent's steps, checks, the MCP server), at a second or more per case: `harness run`, a planning
 * command, a spike, a worker job against the fake GitHub, the MCP server as a client starts it,
 * and process trees contained and ended. `npm run test:integration` runs them. The modules they
 * compose keep in-process tests in `unit` (the runner's lock, progress, spend and merge message;
 * each agent's flags, fixtures and configuration; the worker's checkout, checkpoints, steering and forge; the
 * App, the gateway and the engine whole), which `npm test` runs in about a minute and a half.
 */
export const INTEGRATION = [
  // `harness run`, in-process (runSpec or the CLI's main) over real worktrees: plans, phases,
  // checkpoints, kills, knowledge, secrets, traces, usage limits, fallbacks.
  'test/runner/capsule.test.ts',
  'test/runner/capture.test.ts',
  'test/runner/completed-plans.test.ts',
  'test/runner/dead-time.test.ts',
  'test/runner/done-before-import.test.ts',
  'test/runner/escaped-processes.test.ts',
  'test/runner/fallback.test.ts',
  'test/runner/limited-run.test.ts',
  'test/runner/next-steps.test.ts',
  'test/runner/processes.test.ts',
  'test/runner/reflection.test.ts',
  'test/runner/retry-base.test.ts',
  'test/runner/runner.test.ts',
  'test/runner/secrets.test.ts',
  'test/runner/skill-extraction.test.ts',
  'test/runner/state-dir.test.ts',
  'test/runner/status-timeline.test.ts',
  'test/runner/surfacing.test.ts',
  'test/runner/traces.test.ts',
  'test/runner/undeclared-writes.test.ts',
  'test/runner/usage-pause.test.ts',
  'test/runner/worktree-watch.test.ts',
  // The CLI's commands that run plans, planning commands or spikes with an agent.
  'test/cli/heartbeat.test.ts',
  'test/cli/holdout-run.test.ts',
  'test/cli/learning-loop.test.ts',
  'test/cli/planning.test.ts',
  'test/cli/spike.test.ts',
  'test/cli/surface.test.ts',
  'test/cli/truths.test.ts',
  // Each agent's session with its CLI's stand-in (or the script agent's steps) on a checkout.
  'test/agents/claude.test.ts',
  'test/agents/claude-mcp.test.ts',
  'test/agents/codex.test.ts',
  'test/agents/copilot.test.ts',
  'test/agents/gemini.test.ts',
  'test/agents/planning-here.test.ts',
  'test/agents/real-cli-standins.test.ts',
  'test/agents/script.test.ts',
  // The worker's jobs (runWorker in-process) against the fake GitHub and a real git remote.
  'test/worker-action/capsule.test.ts',
  'test/worker-action/heartbeat.test.ts',
  'test/worker-action/holdout.test.ts',
  'test/worker-action/signals.test.ts',
  'test/worker-action/spike-worker.test.ts',
  'test/worker-action/surfacing.test.ts',
  'test/worker-action/undeclared-writes.test.ts',
  'test/worker-action/worker.test.ts',
  // The App and the worker together: planning on a spec PR, the learning loop, research ahead.
  'test/github/commands/planning.test.ts',
  'test/github/learning-loop.test.ts',
  'test/github/schedule/research-ahead.test.ts',
  // `harness mcp` started as an MCP client starts it, its runs and its end.
  'test/mcp/local.test.ts',
  'test/mcp/lifecycle.test.ts',
  // Process trees that leave their group, clear their environment and ignore SIGTERM, ended
  // by a cgroup, a PID namespace or the tag.
  'test/machine/containment.test.ts',
];

export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Time-outs catch a hang, not a slow machine: a case waits on events, never on the clock,
    // so the limit can be generous enough for a machine under load.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    pool: 'forks',
    // One process per worker for all its files, not one per file: starting a fork and loading
    // the app's modules again for each of ~150 files cost more than many files' tests. Files
    // leave no state behind (test/setup.ts resets the App's memory and empties the temp dir).
    isolate: false,
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core machine, and
    // most cases wait on git and child processes rather than compute. One more than the cores
    // keeps both cores busy while a file waits.
    maxWorkers: availableParallelism() + 1,
    // @actions/workflow-parser imports its JSON schemas without `with { type: 'json' }`, which
    // Node refuses; inlined, Vite loads them.
    server: { deps: { inline: ['@actions/workflow-parser'] } },
    // Each project says its own files: with `extends`, a list here would be joined to theirs.
    projects: [
      // Both joined to test/setup.ts: the agents start the reporting MCP server bundled once per run (test/bundles-setup.ts).
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...E2E, ...INTEGRATION],
          setupFiles: ['test/bundles-setup.ts'],
        },
      },
      { extends: true, test: { name: 'integration', include: INTEGRATION, setupFiles: ['test/bundles-setup.ts'] } },
      // Few files, each its own process: real processes and HTTP as a user's machine has them.
      { extends: true, test: { name: 'e2e', include: E2E, isolate: true } },
    ],
  },
});
