import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KNOWLEDGE_HEADING } from '../../app/engine/core/agents/knowledge-brief.js';
import { runWorker } from '../../app/worker-action/worker.js';
import type { WorkerDeps } from '../../app/worker-action/worker-run.js';
import { issueJson, OWNER, REPO, testForge, testLog, workerRequests } from '../helpers/worker-github.js';
import { isolateGit, workerRepo } from '../helpers/worker-repo.js';
import { SPEC, specRepo, type WorkerPlan } from '../helpers/worker-spec.js';
import { GREETING_LESSON, GREETING_PLAN } from '../helpers/surfacing.js';
import { standInClaude } from '../helpers/mcp-claude.js';
import { FIXTURES } from '../helpers/paths.js';

const GREETING: WorkerPlan = GREETING_PLAN;
const LESSON = GREETING_LESSON;

/** A command agent that keeps its brief and writes the greeting; every plan held out. */
const CONFIG =
  'knowledge:\n  holdout: 1\nagents:\n  command:\n    command: mkdir -p out && cat > "$BRIEF" && printf "hello\\n-- harness\\n" > out/greeting.txt\n';

let restoreGit: () => void;

beforeAll(() => {
  restoreGit = isolateGit();
  nock.disableNetConnect();
});

afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
});

afterAll(() => restoreGit());

describe('the worker action: the holdout', () => {
  it('gives a held-out plan no knowledge, and says so in the job summary and its SUMMARY.md', async () => {
    const branch = `harness/${SPEC}/01-01`;
    const repo = await workerRepo(
      specRepo([GREETING], { '.github/harness.yml': CONFIG, '.harness/knowledge/lessons/workflow/sign-greetings.lesson.md': LESSON }),
      branch,
    );
    let pr: { body?: string } = {};
    workerRequests({
      spec: SPEC,
      issues: [issueJson({ number: 3, plan: '01-01', status: 'running' })],
      comments: { issue: 3, answer: [] },
      pull: { head: branch, base: 'main', open: [], created: { number: 12, html_url: `https://github.com/${OWNER}/${REPO}/pull/12` } },
      sent: (_route, body) => (pr = body),
    });
    const brief = join(repo.temp, '..', 'brief.md');
    const deps: WorkerDeps = {
      inputs: { spec: SPEC, target: { kind: 'plan', plan: '01-01' }, resume: false, agent: 'command' },
      base: 'main',
      root: repo.checkout,
      tempDir: repo.temp,
      forge: testForge(),
      log: testLog(),
      env: { BRIEF: brief },
      now: () => new Date('2024-05-01T12:30:00Z'),
    };

    const outcome = await runWorker(deps);

    expect(outcome.result).toBe('verified');
    expect(readFileSync(brief, 'utf8')).not.toContain(KNOWLEDGE_HEADING);
    expect(outcome.summary).toContain('- 01-01 held out: runs without surfaced knowledge (knowledge.holdout 1)');
    expect(outcome.summary).not.toContain('surfaced into the brief');
    // SUMMARY.md, folded into the plan PR and merged with it: what the phase's completion signal reads back.
    expect(pr.body).toContain('\nheld_out: true\n');
    expect(pr.body).toContain('None: held out (knowledge.holdout): this plan ran without surfaced knowledge');
    expect(pr.body).not.toContain('### Knowledge surfaced');
  });

  it("installs no skill for a held-out plan's Claude, which the others get in .claude/skills/", async () => {
    const skill = readFileSync(join(FIXTURES, 'knowledge', 'surface', 'store', 'skills', 'http-retry-with-backoff', 'SKILL.md'), 'utf8');
    const run = async (holdout: number) => {
      const branch = `harness/${SPEC}/01-01`;
      const repo = await workerRepo(
        specRepo([GREETING], {
          '.github/harness.yml': `knowledge:\n  holdout: ${holdout}\nagents:\n  claude:\n    permission_mode: acceptEdits\n`,
          '.harness/knowledge/skills/http-retry-with-backoff/SKILL.md': skill,
        }),
        branch,
      );
      const seen = join(repo.temp, '..', 'skills.txt');
      // The stand-in Claude lists what it finds in .claude/skills/, then does the plan.
      const claude = await standInClaude([
        [
          {
            bash: `(ls .claude/skills 2>/dev/null || true) > "${seen}"; mkdir -p out; printf 'hello\\n' > out/greeting.txt; git add out; git commit -qm greeting`,
          },
        ],
      ]);
      workerRequests({
        spec: SPEC,
        issues: [issueJson({ number: 3, plan: '01-01', status: 'running' })],
        comments: { issue: 3, answer: [] },
        pull: { head: branch, base: 'main', open: [], created: { number: 12, html_url: `https://github.com/${OWNER}/${REPO}/pull/12` } },
      });
      const outcome = await runWorker({
        inputs: { spec: SPEC, target: { kind: 'plan', plan: '01-01' }, resume: false, agent: 'claude' },
        base: 'main',
        root: repo.checkout,
        tempDir: repo.temp,
        forge: testForge(),
        log: testLog(),
        env: claude.env,
        now: () => new Date('2024-05-01T12:30:00Z'),
      });
      return { outcome, seen: readFileSync(seen, 'utf8').trim() };
    };
    const held = await run(1);
    expect(held.outcome.result).toBe('verified');
    expect(held.seen).toBe('');
    expect(held.outcome.summary).not.toContain('skills installed for the agent');
    nock.cleanAll();
    const offered = await run(0);
    expect(offered.outcome.result).toBe('verified');
    expect(offered.seen).toBe('http-retry-with-backoff');
    expect(offered.outcome.summary).toContain('skills installed for the agent (this job only): `http-retry-with-backoff`');
  });
});
