import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runWorker } from '../../app/worker-action/worker.js';
import type { WorkerDeps } from '../../app/worker-action/worker-run.js';
import { issueJson, OWNER, REPO, testForge, testLog, workerRequests } from '../helpers/worker-github.js';
import { isolateGit, workerRepo } from '../helpers/worker-repo.js';
import { SPEC, specRepo, type WorkerPlan } from '../helpers/worker-spec.js';
import { GREETING_LESSON, GREETING_PLAN, lessonText } from '../helpers/surfacing.js';

const GREETING: WorkerPlan = GREETING_PLAN;
const LESSON = GREETING_LESSON;

/** A command agent that keeps its brief and writes the greeting; the config makes it the agent. */
const CONFIG = 'agents:\n  command:\n    command: mkdir -p out && cat > "$BRIEF" && printf "hello\\n-- harness\\n" > out/greeting.txt\n';

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

describe('the worker action: surfacing', () => {
  it("gives the agent the checkout's lessons that apply, and names them in the plan PR and the job summary", async () => {
    const branch = `harness/${SPEC}/01-01`;
    const repo = await workerRepo(
      specRepo([GREETING], {
        '.github/harness.yml': CONFIG,
        '.harness/knowledge/lessons/workflow/sign-greetings.lesson.md': LESSON,
        '.harness/knowledge/lessons/testing/sqlite.lesson.md': lessonText({
          tags: ['sqlite', 'tests'],
          lesson: 'SQLite tests lock.',
          when: 'Tests against SQLite.',
          recommendation: 'One database per test file.',
        }),
      }),
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
    const log = testLog();
    const deps: WorkerDeps = {
      inputs: { spec: SPEC, target: { kind: 'plan', plan: '01-01' }, resume: false, agent: 'command' },
      base: 'main',
      root: repo.checkout,
      tempDir: repo.temp,
      forge: testForge(),
      log,
      env: { BRIEF: brief },
      now: () => new Date('2024-05-01T12:30:00Z'),
    };

    const outcome = await runWorker(deps);

    expect(outcome.result).toBe('verified');
    const given = readFileSync(brief, 'utf8');
    expect(given).toContain('## What harness has learned that applies here');
    expect(given).toContain(
      '- When Greetings that are not signed get rejected in review → End every greeting with the line "-- harness". (lesson `lessons/workflow/sign-greetings.lesson.md`, by a person, 2026-03-01; merged by Seed, 2024-05-01)',
    );
    expect(given).not.toContain('sqlite');
    expect(pr.body).toContain(
      [
        '### Knowledge surfaced',
        '',
        "What harness had learned that applies, as the agent's brief gave it:",
        '',
        '- `.harness/knowledge/lessons/workflow/sign-greetings.lesson.md` (lesson): tags greeting; names out/greeting.txt (plan: out/**); its trigger words greeting,',
      ].join('\n'),
    );
    expect(pr.body!.indexOf('### Knowledge surfaced')).toBeLessThan(pr.body!.indexOf('### Commits'));
    expect(outcome.summary).toContain('- surfaced into the brief: lesson `lessons/workflow/sign-greetings.lesson.md`');
  });
});
