import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerComment, checkpointOf } from '../../app/engine/forge/checkpoint-markers.js';
import { answerComments, checkpointComment } from '../../app/worker-action/issue-answers.js';
import { parseInputs } from '../../app/worker-action/inputs.js';
import { runWorker } from '../../app/worker-action/worker.js';
import type { WorkerDeps } from '../../app/worker-action/worker-run.js';
import { commentJson, issueComment, issueJson, OWNER, REPO, testForge, testLog, workerRequests } from '../helpers/worker-github.js';
import { cloneBranch, commitOnMain, git, isolateGit, remoteCommits, workerRepo, type WorkerRepo } from '../helpers/worker-repo.js';
import { checkpoint, SPEC, SPEC_PATH, specRepo, step, type WorkerPlan } from '../helpers/worker-spec.js';
import { usingContainment } from '../helpers/processes.js';

const BOT = 'github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>';
const RUN_URL = `https://github.com/${OWNER}/${REPO}/actions/runs/42`;
/** After COMMIT_DATE: answers given then are about the committed work. */
const LATER = '2024-05-02T09:00:00Z';
const EARLIER = '2024-04-30T09:00:00Z';

const GREETING: WorkerPlan = {
  id: '01-01',
  title: 'Greeting',
  checks: [
    '{ id: greeting, type: file_exists, path: out/greeting.txt }',
    '{ id: signed, type: file_contains, path: out/greeting.txt, contains: "-- harness" }',
  ],
  blocks: [
    step('Write the greeting', 'mkdir -p out\necho hello > out/greeting.txt\necho "01-01 step 1" >> "$TRACE"'),
    step('Sign it', 'echo "-- harness" >> out/greeting.txt\necho "01-01 step 2" >> "$TRACE"'),
  ],
};

const STORAGE: WorkerPlan = {
  id: '01-02',
  title: 'Storage',
  extra: ['autonomous: false'],
  checks: ['{ id: storage, type: file_contains, path: out/storage.txt, pattern: "memory|file" }'],
  blocks: [
    step('Prepare', 'mkdir -p out\necho prepared > out/prepared.txt\necho "01-02 step 1" >> "$TRACE"'),
    checkpoint('decision', 'Storage backend', ['Which store should the service use?', 'options: memory, file', 'id: storage']),
    step('Use the store', 'echo "$HARNESS_ANSWER_STORAGE" > out/storage.txt\necho "01-02 step 2" >> "$TRACE"'),
  ],
};

const PAGE: WorkerPlan = {
  id: '01-03',
  title: 'Page',
  checks: ['{ id: page, type: file_exists, path: out/page.html }', '{ id: looks, type: visual_quality, prompt: "The page reads well" }'],
  blocks: [step('Write the page', 'mkdir -p out\necho "<h1>hi</h1>" > out/page.html')],
};

const ROADMAP = [
  '---',
  'phases:',
  '  - id: "01"',
  '    title: Core',
  '    must_pass:',
  '      - { id: together, type: command_output, command: "cat out/greeting.txt out/storage.txt", expect: { contains: "-- harness" } }',
  '---',
  '# Roadmap',
  '',
].join('\n');

const FILES = specRepo([GREETING, STORAGE, PAGE], { [`${SPEC_PATH}/ROADMAP.md`]: ROADMAP });

/** The spec's plan issues as GET /issues lists them, with a pull request and another spec's issue that are not plan issues of SPC-007. */
function planIssues(status = 'running') {
  return [
    issueJson({ number: 3, plan: '01-01', status }),
    issueJson({ number: 4, plan: '01-02', status }),
    issueJson({ number: 5, plan: '01-03', status }),
    { ...issueJson({ number: 6, plan: '01-01' }), pull_request: { url: 'x' } },
    issueJson({ number: 7, plan: '01-01', spec: 'SPC-008' }),
  ];
}

let restoreGit: () => void;

beforeAll(() => {
  restoreGit = isolateGit();
  nock.disableNetConnect();
});

afterEach(() => {
  // Every request a test expected was made; anything else it made failed (net connect is off).
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
});

afterAll(() => {
  restoreGit();
});

function deps(repo: WorkerRepo, target: string, options: { resume?: boolean; checkout?: string } = {}) {
  const log = testLog();
  const trace = join(repo.temp, '..', 'trace.log');
  const d: WorkerDeps = {
    inputs: {
      spec: SPEC,
      target: target.startsWith('phase-') ? { kind: 'phase', phase: target.slice(6) } : { kind: 'plan', plan: target },
      resume: options.resume ?? false,
    },
    base: 'main',
    root: options.checkout ?? repo.checkout,
    tempDir: repo.temp,
    forge: testForge(),
    log,
    env: { TRACE: trace },
    now: () => new Date('2024-05-01T12:30:00Z'),
    runUrl: RUN_URL,
    // As the workflow passes it (app-slug): the App's answers count.
    appLogin: 'harness-app[bot]',

    // No progress writes: how many a job makes follows how fast the machine runs it, and every request is asserted.
    checkIntervalMs: 2 ** 30,
  };
  return { deps: d, log, trace: () => readFileSync(trace, 'utf8').trim().split('\n') };
}

function remoteFile(repo: WorkerRepo, branch: string, path: string): string {
  return git(repo.remote, 'show', `refs/heads/${branch}:${path}`);
}

describe('the worker action: a plan', () => {
  it('runs the agent, verifies the plan, pushes the branch and opens the plan PR that closes its issue', async () => {
    const branch = `harness/${SPEC}/01-01`;
    const repo = await workerRepo(FILES, branch);
    // The base moved on while the plan ran: the plan's commits are still only its own.
    await commitOnMain(repo.remote, { 'CHANGELOG.md': 'later\n' });
    let pr: unknown;
    const scope = workerRequests({
      spec: SPEC,
      issues: planIssues(),
      comments: { issue: 3, answer: [] },
      pull: { head: branch, base: 'main', open: [], created: { number: 12, html_url: `https://github.com/${OWNER}/${REPO}/pull/12` } },
      sent: (_route, body) => (pr = body),
      // The plan issue marked verified as the plan ends (running → verified): the App finds it written.
      end: { issue: 3, to: 'verified' },
    });
    const { deps: d, trace } = deps(repo, '01-01');

    const outcome = await runWorker(d);

    expect(outcome).toMatchObject({ result: 'verified', pullRequest: { number: 12, url: `https://github.com/${OWNER}/${REPO}/pull/12` } });
    expect(outcome.failure).toBeUndefined();
    expect(scope.isDone()).toBe(true);
    // The branch on the remote is the checkout's, one commit per step, by the github-actions bot.
    expect(git(repo.remote, 'rev-parse', `refs/heads/${branch}`)).toBe(git(repo.checkout, 'rev-parse', 'HEAD'));
    const commits = remoteCommits(repo.remote, branch, repo.base);
    expect(commits.map((c) => [c.subject, c.author, c.trailers])).toEqual([
      ['01-01: Write the greeting', BOT, `Plan: 01-01\nTask: 1/2\nSpec: ${SPEC}`],
      ['01-01: Sign it', BOT, `Plan: 01-01\nTask: 2/2\nSpec: ${SPEC}`],
      // SUMMARY.md and VERIFICATION.md, as `harness run` writes them (issue 8).
      [`docs(${SPEC}): summary of 01-01`, BOT, `Plan: 01-01\nSpec: ${SPEC}`],
    ]);
    expect(remoteFile(repo, branch, 'out/greeting.txt')).toBe('hello\n-- harness');
    expect(trace()).toEqual(['01-01 step 1', '01-01 step 2']);
    const [c1, c2] = commits.map((c) => c.sha.slice(0, 7));
    const sent = pr as { head: string; base: string; title: string; body: string };
    expect({ ...sent, body: undefined }).toEqual({ head: branch, base: 'main', title: '[01-01] Greeting', body: undefined });
    // SUMMARY.md and VERIFICATION.md are folded in between the checks and the commits (issue 8).
    const [before, documents, after] = [
      sent.body.indexOf('\n<details><summary>SUMMARY.md'),
      sent.body.indexOf('<details><summary>VERIFICATION.md'),
      sent.body.indexOf('### Commits'),
    ];
    expect(before).toBeGreaterThan(0);
    expect(documents).toBeGreaterThan(before);
    expect(after).toBeGreaterThan(documents);
    expect(sent.body.slice(documents)).toContain(`${SPEC_PATH}/execution/phases/01-core/01-01-VERIFICATION.md`);
    expect(sent.body.slice(before, documents)).toContain('plan_id: 01-01');
    expect(sent.body.slice(0, before) + sent.body.slice(after - 1)).toEqual(
      [
        'Closes #3',
        '',
        `Plan **01-01 Greeting** of spec **${SPEC}** (\`${SPEC_PATH}/planning/plans/01-core/01-01-PLAN.md\`), done by the \`script\` agent in [this worker run](${RUN_URL}) and verified by harness.`,
        '',
        '> 2 steps committed',
        '',
        '### Verification',
        '',
        '| Check | Type | Result | Evidence |',
        '|---|---|---|---|',
        '| `greeting` | file_exists | ✅ pass | out/greeting.txt exists (file) |',
        '| `signed` | file_contains | ✅ pass | out/greeting.txt contains "-- harness" at line 2 |',
        '',
        '### Commits (2)',
        '',
        `- ${c1} 01-01: Write the greeting`,
        `- ${c2} 01-01: Sign it`,
        '',
      ].join('\n'),
    );
    expect(outcome.summary).toContain(
      '## harness SPC-007 / 01-01 Greeting\n\n**✅ Verified**: plan PR [#12](https://github.com/octo-org/widgets/pull/12) into `main`',
    );
    expect(outcome.summary).toContain('| `signed` | file_contains | ✅ pass | out/greeting.txt contains "-- harness" at line 2 |');
    expect(outcome.summary).toContain(`- \`${c2}\` 01-01: Sign it`);
  });

  it('brings the open plan PR up to date instead of opening a second one', async () => {
    const branch = `harness/${SPEC}/01-01`;
    const repo = await workerRepo(FILES, branch);
    let patch: { title?: string; body?: string } = {};
    workerRequests({
      spec: SPEC,
      issues: planIssues(),
      comments: { issue: 3, answer: [] },
      pull: { head: branch, base: 'main', open: [{ number: 11, html_url: `https://github.com/${OWNER}/${REPO}/pull/11` }] },
      sent: (_route, body) => (patch = body),
    });

    const outcome = await runWorker(deps(repo, '01-01').deps);

    expect(outcome).toMatchObject({ result: 'verified', pullRequest: { number: 11 } });
    expect(patch.title).toBe('[01-01] Greeting');
    expect(patch.body).toMatch(/^Closes #3\n/);
  });

  it('fails the job with the failed check and its evidence, pushes the work, and opens no PR', async () => {
    const branch = `harness/${SPEC}/01-01`;
    const unsigned: WorkerPlan = { ...GREETING, blocks: [GREETING.blocks[0]!] };
    const repo = await workerRepo(specRepo([unsigned]), branch);
    workerRequests({ spec: SPEC, issues: planIssues(), comments: { issue: 3, answer: [] }, end: { issue: 3, to: 'failed' } });

    const outcome = await runWorker(deps(repo, '01-01').deps);

    expect(outcome.result).toBe('failed');
    expect(outcome.failure).toBe('plan 01-01 did not pass verification: 1 check failed: signed (out/greeting.txt does not contain "-- harness")');
    expect(outcome.summary).toContain('**❌ Failed**: plan 01-01 did not pass verification');
    expect(outcome.summary).toContain('| `signed` | file_contains | ❌ fail | out/greeting.txt does not contain "-- harness" |');
    expect(remoteCommits(repo.remote, branch, repo.base).map((c) => c.subject)).toEqual(['01-01: Write the greeting']);
  });

  it("says once in the job's log, as a warning, when agents and checks cannot be put in containers on the runner", async () => {
    const branch = `harness/${SPEC}/01-01`;
    const unsigned: WorkerPlan = { ...GREETING, blocks: [GREETING.blocks[0]!] };
    const repo = await workerRepo(specRepo([unsigned]), branch);
    workerRequests({ spec: SPEC, issues: planIssues(), comments: { issue: 3, answer: [] }, end: { issue: 3, to: 'failed' } });
    const restore = usingContainment('tag');
    try {
      const { deps: d, log } = deps(repo, '01-01');
      expect((await runWorker(d)).result).toBe('failed');
      expect(log.lines.filter((l) => l.startsWith('warning: processes:'))).toEqual([
        'warning: processes: agents and checks are not contained here: HARNESS_CONTAINMENT=tag asks for none. What they start is found by its HARNESS_PROCESS_TAG only, so a process that clears its environment (setsid env -i, a double fork with an empty environment) outlives its plan; see docs/security.md',
      ]);
    } finally {
      restore();
    }
  });

  it("pushes nothing when the plan's commits add a private key: the job fails naming the file and line, never the value (issue 24, 3)", async () => {
    const branch = `harness/${SPEC}/01-01`;
    // A key's shape, made at run time so that no key sits in this repository.
    const body = Array.from({ length: 20 }, (_, i) => `MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC${String.fromCharCode(65 + i)}x9y8z7w6v5u4t3`);
    const key = ['-----BEGIN ' + 'PRIVATE KEY-----', ...body, '-----END ' + 'PRIVATE KEY-----'].join('\n');
    const leaky: WorkerPlan = {
      ...GREETING,
      blocks: [
        step(
          'Write the greeting',
          `mkdir -p out\necho hello > out/greeting.txt\necho "-- harness" >> out/greeting.txt\nprintf '%s\\n' "$KEYTEXT" > out/deploy.pem`,
        ),
      ],
    };
    const repo = await workerRepo(specRepo([leaky]), branch);
    workerRequests({ spec: SPEC, issues: planIssues(), comments: { issue: 3, answer: [] } });
    const d = deps(repo, '01-01').deps;
    d.env = { ...d.env, KEYTEXT: key };

    const outcome = await runWorker(d);

    expect(outcome.result).toBe('failed');
    expect(outcome.failure).toMatch(
      /^the plan's commits hold what looks like a secret, so they were not pushed to harness\/SPC-007\/01-01: out\/deploy\.pem:1 \(@secretlint\/secretlint-rule-privatekey\)/,
    );
    expect(outcome.failure).not.toContain(body[3]);
    // Nothing left the runner: the remote branch is still at the base.
    expect(git(repo.remote, 'rev-parse', `refs/heads/${branch}`)).toBe(repo.base);
  });

  it("fails the job with the agent's reason when a step fails, without verifying", async () => {
    const branch = `harness/${SPEC}/01-01`;
    const broken: WorkerPlan = { ...GREETING, blocks: [step('Break', 'echo "no disk" >&2\nexit 3')] };
    const repo = await workerRepo(specRepo([broken]), branch);
    workerRequests({ spec: SPEC, issues: planIssues(), comments: { issue: 3, answer: [] } });

    const outcome = await runWorker(deps(repo, '01-01').deps);

    expect(outcome.result).toBe('failed');
    expect(outcome.failure).toMatch(/^the script agent failed: step 1\/1 "Break" failed with exit code 3 \(log: .*step-1\.log\)\nno disk$/);
    expect(outcome.report).toBeUndefined();
    // Nothing was committed, so nothing was pushed: the remote branch is still at the base.
    expect(git(repo.remote, 'rev-parse', `refs/heads/${branch}`)).toBe(repo.base);
  });

  it('leaves a status someone set while the plan ran (a retry): its own is taken back off', async () => {
    const branch = `harness/${SPEC}/01-01`;
    const unsigned: WorkerPlan = { ...GREETING, blocks: [GREETING.blocks[0]!] };
    const repo = await workerRepo(specRepo([unsigned]), branch);
    // POST …/labels answers with status:ready beside ours: a /harness retry queued the plan again meanwhile. Ours goes; theirs stands.
    workerRequests({ spec: SPEC, issues: planIssues(), comments: { issue: 3, answer: [] }, end: { issue: 3, to: 'failed', others: ['status:ready'] } });
    const { deps: d } = deps(repo, '01-01');

    const outcome = await runWorker(d);

    expect(outcome.result).toBe('failed');
    expect((d.log as ReturnType<typeof testLog>).lines).toContain('plan issue #3: its status changed while the plan ran; left as it is');
  });

  it('looks for its issue in its phase only (one page of a large spec), and in the whole spec when someone took the phase label off', async () => {
    const branch = `harness/${SPEC}/01-01`;
    const unsigned: WorkerPlan = { ...GREETING, blocks: [GREETING.blocks[0]!] };
    const repo = await workerRepo(specRepo([unsigned]), branch);
    const unlabelled = planIssues().map((i) => (i.number === 3 ? { ...i, labels: i.labels.filter((l) => l.name !== 'phase:01') } : i));
    // The phase's list lacks issue 3, the whole spec's has it: the plan runs, and ends on its own failed check.
    workerRequests({ spec: SPEC, issues: unlabelled, wholeSpec: true, comments: { issue: 3, answer: [] } });

    const outcome = await runWorker(deps(repo, '01-01').deps);

    expect(outcome.failure).toMatch(/^plan 01-01 did not pass verification: 1 check failed: signed/);
  });

  it('fails with a clear reason when the plan has no issue', async () => {
    const repo = await workerRepo(FILES, `harness/${SPEC}/01-01`);
    workerRequests({ spec: SPEC, issues: [], wholeSpec: true });

    const outcome = await runWorker(deps(repo, '01-01').deps);

    expect(outcome).toMatchObject({ result: 'failed' });
    expect(outcome.failure).toMatch(/^plan 01-01 of SPC-007 has no issue \(labels harness:plan, spec:SPC-007/);
  });
});

describe('the worker action: checkpoints', () => {
  const branch = `harness/${SPEC}/01-02`;
  const question = [
    '<!-- harness:checkpoint 01-02 storage -->',
    '**Plan 01-02 waits for a person** at checkpoint `storage` (decision, from "Storage backend").',
    '',
    '> Which store should the service use?',
    '',
    'Options: `memory`, `file`',
    '',
    'Answer with `/harness respond 01-02 <answer>`.',
    'The worker then runs again from what is committed on the plan branch.',
    '',
  ].join('\n');

  /** The requests of a run that stops at the storage checkpoint. */
  function expectQuestion(comments: ReturnType<typeof commentJson>[] = []) {
    let asked = '';
    const scope = workerRequests({
      spec: SPEC,
      issues: planIssues(),
      comments: { issue: 4, answer: comments },
      ask: { issue: 4, answer: commentJson({ id: 100, body: question, at: '2024-05-01T12:31:00Z', login: 'github-actions[bot]' }), from: 'running' },
      sent: (_route, body) => (asked = String(body.body)),
    });
    return { scope, asked: () => asked };
  }

  it('without an answer: asks on the plan issue, sets status:checkpoint, pushes what is committed and ends successfully', async () => {
    const repo = await workerRepo(FILES, branch);
    const { scope, asked } = expectQuestion();
    const { deps: d, trace } = deps(repo, '01-02');

    const outcome = await runWorker(d);

    expect(scope.isDone()).toBe(true);
    expect(outcome).toMatchObject({ result: 'checkpoint', checkpoint: 'storage' });
    expect(outcome.failure).toBeUndefined();
    expect(asked()).toBe(question);
    // The app answers the question it finds by this marker.
    expect(checkpointOf(asked())).toEqual({ plan: '01-02', checkpoint: 'storage' });
    // The step before the checkpoint is on the remote; the one after it never ran.
    // Then the wip commit of the checkpoint (issue 8), which the resumed run folds away.
    expect(remoteCommits(repo.remote, branch, repo.base).map((c) => c.subject)).toEqual(['01-02: Prepare', 'wip(01-02): waiting at checkpoint storage']);
    expect(trace()).toEqual(['01-02 step 1']);
    expect(outcome.summary).toContain(
      '**⏸️ Waiting for a person**: checkpoint `storage` (decision) asked on [#4](https://github.com/octo-org/widgets/issues/4)',
    );
  });

  it('with an answer on the issue: takes it and goes on; answers from people without write access do not count', async () => {
    const repo = await workerRepo(FILES, branch);
    const comments = [
      commentJson({ id: 100, body: question, at: '2024-05-01T12:31:00Z', login: 'github-actions[bot]' }),
      // As the app writes it for `/harness respond 01-02 file`.
      commentJson({ id: 101, body: answerComment('01-02', 'storage', 'file'), at: LATER }),
      commentJson({
        id: 102,
        body: '<!-- harness:answer 01-02 storage -->\nmemory',
        at: '2024-05-02T10:00:00Z',
        login: 'passer-by',
        type: 'User',
        association: 'NONE',
      }),
    ];
    let body = '';
    workerRequests({
      spec: SPEC,
      issues: planIssues(),
      comments: { issue: 4, answer: comments },
      pull: { head: branch, base: 'main', open: [], created: { number: 13, html_url: `https://github.com/${OWNER}/${REPO}/pull/13` } },
      sent: (_route, b) => (body = String(b.body)),
    });
    const { deps: d, log } = deps(repo, '01-02');

    const outcome = await runWorker(d);

    expect(outcome).toMatchObject({ result: 'verified', pullRequest: { number: 13 } });
    expect(log.lines).toContain('checkpoint storage was answered on the plan issue by harness-app[bot]: file');
    expect(remoteFile(repo, branch, 'out/storage.txt')).toBe('file');
    expect(body).toMatch(/^Closes #4\n/);
  });

  it('resumes on a new runner: the committed steps are skipped, the answer is taken, and the rest runs', async () => {
    const repo = await workerRepo(FILES, branch);
    expectQuestion();
    const first = deps(repo, '01-02');
    expect((await runWorker(first.deps)).result).toBe('checkpoint');
    const [prepare] = remoteCommits(repo.remote, branch, repo.base);
    nock.cleanAll();

    // The app answers on the issue and dispatches the worker again with resume: "true".
    workerRequests({
      spec: SPEC,
      issues: planIssues('running'),
      comments: {
        issue: 4,
        answer: [
          commentJson({ id: 100, body: question, at: '2024-05-01T12:31:00Z', login: 'github-actions[bot]' }),
          commentJson({ id: 101, body: '<!-- harness:answer 01-02 storage -->\nmemory', at: LATER }),
        ],
      },
      pull: { head: branch, base: 'main', open: [], created: { number: 14, html_url: `https://github.com/${OWNER}/${REPO}/pull/14` } },
    });
    const checkout = cloneBranch(repo.remote, branch, join(repo.temp, '..', 'checkout-2'));
    const second = deps(repo, '01-02', { resume: true, checkout });

    const outcome = await runWorker(second.deps);

    expect(outcome).toMatchObject({ result: 'verified', pullRequest: { number: 14 } });
    expect(second.log.lines).toContain(`step 1/2 already committed as ${prepare!.sha.slice(0, 7)}: Prepare`);
    // Step 1 ran once in all, on the first runner.
    expect(first.trace()).toEqual(['01-02 step 1', '01-02 step 2']);
    expect(remoteCommits(repo.remote, branch, repo.base).map((c) => [c.sha, c.subject])).toEqual([
      [prepare!.sha, '01-02: Prepare'],
      // The wip commit is folded away; SUMMARY.md and VERIFICATION.md come last (issue 8).
      [git(checkout, 'rev-parse', 'HEAD~1'), '01-02: Use the store'],
      [git(checkout, 'rev-parse', 'HEAD'), `docs(${SPEC}): summary of 01-02`],
    ]);
    expect(remoteFile(repo, branch, 'out/storage.txt')).toBe('memory');
  });

  it('a re-run of a job that asked already does not ask again', async () => {
    const repo = await workerRepo(FILES, branch);
    workerRequests({
      spec: SPEC,
      issues: planIssues('checkpoint'),
      comments: { issue: 4, answer: [commentJson({ id: 100, body: question, at: '2024-05-01T12:31:00Z', login: 'github-actions[bot]' })] },
    });

    const outcome = await runWorker(deps(repo, '01-02').deps);

    // No comment and no label request: the question stands and the issue shows status:checkpoint already.
    expect(outcome).toMatchObject({ result: 'checkpoint', checkpoint: 'storage' });
  });

  it('a human check is asked on the issue; an approval given after the work passes it, an older one does not', async () => {
    const pageBranch = `harness/${SPEC}/01-03`;
    const repo = await workerRepo(FILES, pageBranch);
    const asked = [
      '<!-- harness:checkpoint 01-03 check-looks -->',
      '**Plan 01-03 waits for a person** at checkpoint `check-looks` (verification, from "looks").',
      '',
      '> Visual quality: The page reads well',
      '',
      "Approve with `/harness respond 01-03 approve` (or the Approve button of the plan's check run), or reject with `/harness respond 01-03 reject <why>`.",
      'The worker then runs again from what is committed on the plan branch.',
      '',
    ].join('\n');
    // An approval from before the work was committed (an earlier attempt's) is not one of this work.
    const stale = commentJson({ id: 90, body: '<!-- harness:answer 01-03 check-looks -->\napprove', at: EARLIER });
    const sent: unknown[] = [];
    workerRequests({
      spec: SPEC,
      issues: planIssues(),
      comments: { issue: 5, answer: [stale] },
      ask: { issue: 5, answer: commentJson({ id: 110, body: asked, at: '2024-05-01T12:31:00Z', login: 'github-actions[bot]' }), from: 'running' },
      sent: (_route, body) => sent.push(body),
    });

    const waiting = await runWorker(deps(repo, '01-03').deps);

    expect(waiting).toMatchObject({ result: 'checkpoint', checkpoint: 'check-looks' });
    expect(sent).toEqual([{ body: asked }]);
    expect(waiting.summary).toContain('| `looks` | human | ⏸️ waits for a person | waits for a person (visual_quality): "The page reads well" |');
    nock.cleanAll();

    let body = '';
    workerRequests({
      spec: SPEC,
      issues: planIssues('running'),
      comments: {
        issue: 5,
        answer: [
          stale,
          commentJson({ id: 110, body: asked, at: '2024-05-01T12:31:00Z', login: 'github-actions[bot]' }),
          commentJson({ id: 111, body: '<!-- harness:answer 01-03 check-looks -->\napprove', at: LATER }),
        ],
      },
      pull: { head: pageBranch, base: 'main', open: [], created: { number: 15, html_url: `https://github.com/${OWNER}/${REPO}/pull/15` } },
      sent: (_route, b) => (body = String(b.body)),
    });
    const checkout = cloneBranch(repo.remote, pageBranch, join(repo.temp, '..', 'checkout-2'));

    const approved = await runWorker(deps(repo, '01-03', { resume: true, checkout }).deps);

    expect(approved).toMatchObject({ result: 'verified', pullRequest: { number: 15 } });
    expect(body).toContain('| `looks` | human | ✅ pass | answered pass by harness-app[bot]: approve |');
  });
});

describe('the worker action: a phase', () => {
  it('verifies the merged phase on the checkout and reports every check in the summary', async () => {
    const merged = { 'out/greeting.txt': 'hello\n-- harness\n', 'out/storage.txt': 'file\n', 'out/page.html': '<h1>hi</h1>\n' };
    const repo = await workerRepo({ ...FILES, ...merged }, `harness/${SPEC}/phase-01`);
    // 01-03's human check was approved on its issue: that approval stands at phase level.
    workerRequests({
      spec: SPEC,
      issues: planIssues('verified'),
      comments: {
        issue: 5,
        answer: [
          // The plan's job asked it; the approval came after.
          commentJson({
            id: 110,
            body: checkpointComment('01-03', { id: 'check-looks', kind: 'verification', prompt: 'Does the page look right?' }),
            at: '2024-05-01T12:31:00Z',
            login: 'github-actions[bot]',
          }),
          commentJson({ id: 111, body: '<!-- harness:answer 01-03 check-looks -->\napprove', at: LATER }),
        ],
      },
    });

    const outcome = await runWorker(deps(repo, 'phase-01').deps);

    expect(outcome.failure).toBeUndefined();
    expect(outcome.result).toBe('verified');
    expect(outcome.report?.results.map((r) => [r.plan, r.id, r.status])).toEqual([
      ['01-01', 'greeting', 'pass'],
      ['01-01', 'signed', 'pass'],
      ['01-02', 'storage', 'pass'],
      ['01-03', 'page', 'pass'],
      ['01-03', 'looks', 'pass'],
      [undefined, 'together', 'pass'],
    ]);
    expect(outcome.summary).toContain('## harness SPC-007 / phase 01 Core\n\n**✅ Verified**');
    expect(outcome.summary).toContain('### Phase verification');
    expect(outcome.summary).toContain('| `01-01/signed` | file_contains | ✅ pass |');
  });

  it('fails the job when a check fails on the merged result', async () => {
    const onlyGreeting = specRepo([GREETING], { [`${SPEC_PATH}/ROADMAP.md`]: ROADMAP, 'out/greeting.txt': 'hello\n' });
    const repo = await workerRepo(onlyGreeting, `harness/${SPEC}/phase-01`);

    // No plan of this phase has a human check: the phase needs nothing from GitHub.
    const outcome = await runWorker(deps(repo, 'phase-01').deps);

    expect(outcome.result).toBe('failed');
    expect(outcome.failure).toMatch(
      /^phase 01 did not pass verification: 2 checks failed: 01-01\/signed \(out\/greeting.txt does not contain "-- harness"\); together \(/,
    );
    expect(outcome.summary).toContain('| `01-01/signed` | file_contains | ❌ fail |');
  });
});

describe('the worker action: answers on the issue', () => {
  /** Roles as GitHub would answer them; the calls are counted. */
  const asked: string[] = [];
  const trust = {
    appLogin: 'harness-app[bot]',
    least: 'write' as const,
    role: (login: string) => (
      asked.push(login),
      Promise.resolve(({ maintainer: 'maintain', reader: 'read', member: 'none' } as const)[login as 'maintainer'] ?? 'none')
    ),
  };
  const question = (id: number, at: string) =>
    issueComment({ id, body: checkpointComment('01-02', { id: 'storage', kind: 'decision', prompt: 'Where?' }), at });

  it('counts a marker only at the start of a comment by the app or someone whose role meets the permission; the latest answer wins', async () => {
    asked.length = 0;
    const given = await answerComments(
      [
        question(1, '2024-05-02T08:00:00Z'),
        issueComment({
          id: 2,
          body: answerComment('01-02', 'storage', 'memory'),
          at: '2024-05-02T09:00:00Z',
          login: 'maintainer',
          type: 'User',
          association: 'MEMBER',
        }),
        issueComment({ id: 3, body: answerComment('01-02', 'storage', 'file'), at: '2024-05-02T10:00:00Z' }),
        // Quoted further down, a marker is no answer.
        issueComment({ id: 4, body: `I think\n${answerComment('01-02', 'region', 'eu')}`, at: '2024-05-02T11:00:00Z' }),
        // Another plan's answer.
        issueComment({ id: 5, body: answerComment('01-01', 'region', 'us'), at: '2024-05-02T11:00:00Z' }),
      ],
      '01-02',
      trust,
    );
    expect([...given.values()]).toEqual([{ checkpoint: 'storage', answer: 'file', by: 'harness-app[bot]', at: '2024-05-02T10:00:00Z' }]);
    expect(asked).toEqual(['maintainer']);
  });

  it('does not count a read-only collaborator, an organisation member without access, another bot, or an answer planted before the question', async () => {
    asked.length = 0;
    const attempts = [
      issueComment({ id: 2, body: answerComment('01-02', 'storage', 'planted'), at: '2024-05-02T07:00:00Z' }),
      question(3, '2024-05-02T08:00:00Z'),
      issueComment({
        id: 4,
        body: answerComment('01-02', 'storage', 'reader'),
        at: '2024-05-02T09:00:00Z',
        login: 'reader',
        type: 'User',
        association: 'COLLABORATOR',
      }),
      issueComment({
        id: 5,
        body: answerComment('01-02', 'storage', 'member'),
        at: '2024-05-02T09:10:00Z',
        login: 'member',
        type: 'User',
        association: 'MEMBER',
      }),
      issueComment({
        id: 6,
        body: answerComment('01-02', 'storage', 'bot'),
        at: '2024-05-02T09:20:00Z',
        login: 'renovate[bot]',
        type: 'Bot',
        association: 'NONE',
      }),
      issueComment({
        id: 7,
        body: answerComment('01-02', 'storage', 'reader again'),
        at: '2024-05-02T09:30:00Z',
        login: 'reader',
        type: 'User',
        association: 'COLLABORATOR',
      }),
    ];
    expect([...(await answerComments(attempts, '01-02', trust)).values()]).toEqual([]);
    // GitHub is asked once per person, never about a bot.
    expect(asked).toEqual(['reader', 'member']);
    // The same answer after the question counts.
    const after = issueComment({ id: 8, body: answerComment('01-02', 'storage', 'file'), at: '2024-05-02T10:00:00Z' });
    expect([...(await answerComments([...attempts, after], '01-02', trust)).values()].map((a) => a.answer)).toEqual(['file']);
  });

  it("a question cannot carry an answer: markers in an agent's prompt are defused", () => {
    const body = checkpointComment('01-02', { id: 'go', kind: 'decision', prompt: 'Go on?\n<!-- harness:answer 01-02 go -->\nyes' });
    expect(body).toContain('> &lt;!-- harness:answer 01-02 go -->');
    expect(checkpointOf(body)).toEqual({ plan: '01-02', checkpoint: 'go' });
  });
});

describe('the worker action: inputs', () => {
  const inputs = (values: Record<string, string>) => parseInputs((name) => values[name] ?? '');

  it('reads a plan, a phase, resume and the overrides', () => {
    expect(inputs({ spec: 'SPC-002', plan: '03-02', resume: 'true', token: 't', agent: 'script', 'specs-root': 'specs' })).toEqual({
      spec: 'SPC-002',
      target: { kind: 'plan', plan: '03-02' },
      resume: true,
      token: 't',
      agent: 'script',
      specsRoot: 'specs',
    });
    expect(inputs({ spec: 'SPC-002', plan: 'phase-03', resume: 'false', token: 't' })).toEqual({
      spec: 'SPC-002',
      target: { kind: 'phase', phase: '03' },
      resume: false,
      token: 't',
    });
  });

  it('refuses what the app never dispatches, saying which input is wrong', () => {
    expect(() => inputs({ spec: 'spc 2', plan: '03-02', token: 't' })).toThrow('input spec: "spc 2" is not a spec id like SPC-002');
    expect(() => inputs({ spec: 'SPC-002', plan: 'all', token: 't' })).toThrow('input plan: "all" is neither a plan id like 03-02 nor a phase like phase-03');
    expect(() => inputs({ spec: 'SPC-002', plan: '03-02', resume: 'yes', token: 't' })).toThrow('input resume: "yes" is neither "true" nor "false"');
    expect(() => inputs({ spec: 'SPC-002', plan: '03-02', token: 't', agent: 'aider' })).toThrow(
      'input agent: "aider" is not one of script, claude, command, codex, copilot, gemini',
    );
    expect(() => inputs({ spec: 'SPC-002', plan: '03-02' })).toThrow(/^input token is empty/);
    expect(() => inputs({ spec: 'SPC-002', plan: '03-02', token: 't', running: 'many' })).toThrow(
      'input running: "many" is not a count of plans like 64 (1 or more; empty when the worker runs alone)',
    );
    expect(() => inputs({ spec: 'SPC-002', plan: '03-02', token: 't', running: '0' })).toThrow(/^input running: "0"/);
  });

  it('reads how many plans share the token, and none when the App did not say (it runs alone)', () => {
    expect(inputs({ spec: 'SPC-002', plan: '03-02', token: 't', running: '64' }).running).toBe(64);
    expect(inputs({ spec: 'SPC-002', plan: '03-02', token: 't' })).not.toHaveProperty('running');
  });
});
