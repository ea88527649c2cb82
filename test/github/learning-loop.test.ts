import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KNOWLEDGE_HEADING } from '../../app/engine/core/agents/knowledge-brief.js';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { knowledgeForge } from '../../app/worker-action/capture.js';
import { runWorker } from '../../app/worker-action/worker.js';
import { workerForge, type WorkerDeps } from '../../app/worker-action/worker-run.js';
import { FakeGitHub, spoken } from '../helpers/github-repo.js';
import { testOctokit } from '../helpers/octokit.js';
import { testProbot, webhookExample } from '../helpers/probot.js';
import { testLog } from '../helpers/worker-github.js';
import { git, isolateGit, workerRepo } from '../helpers/worker-repo.js';
import { planPath, SPEC, SPEC_PATH } from '../helpers/worker-spec.js';

/**
 * The learning loop on GitHub, closed through the worker and the App against one stateful
 * fake GitHub (Codertocat/Hello-World, as the real webhook payloads have it): three worker
 * jobs fail the same way and append their signals to the spec's signals PR; a person merges
 * it; `/harness reflect` opens a lesson PR from what is merged; a person merges that; a job
 * for a similar plan, on a checkout of what is merged, has the lesson in its brief and passes.
 * Along the way the agent prints a token from its environment: it reaches no request at all.
 */

const OWNER = 'Codertocat';
const REPO = 'Hello-World';
const BASE = 'ba5e000000000000000000000000000000000002';
const TOKEN = `ghp_${'Q7w8E9r0T1'.repeat(3)}yU2i3o`;

/** The scripted agent: without the lesson in its brief its tests lock each other out, and it says so (with the token it was given). */
const AGENT = [
  'brief=$(cat)',
  'printf "%s" "$brief" > "$BRIEFS/$HARNESS_PLAN.md"',
  'mkdir -p tests',
  'case "$brief" in',
  '  *"What harness has learned that applies here"*SQLITE_BUSY*)',
  '    echo "database: tests/$HARNESS_PLAN.db" > "tests/$HARNESS_PLAN.db.txt" ;;',
  '  *)',
  '    echo "database: tests/shared.db" > "tests/$HARNESS_PLAN.db.txt"',
  '    echo "connecting with $DEPLOY_TOKEN" >&2',
  '    echo "vitest run: SQLITE_BUSY: database is locked: tests/shared.db is open in another test file ($HARNESS_PLAN)" >&2',
  '    exit 1 ;;',
  'esac',
].join('\n');

const CONFIG = ['agent: command', 'agents:', '  command:', `    command: ${JSON.stringify(AGENT)}`, ''].join('\n');

function plan(id: string, store: string, title: string, body: string): [string, string] {
  return [
    planPath(id),
    [
      '---',
      `plan_id: "${id}"`,
      `title: ${title}`,
      `files_modified: ["src/db/${store}.ts", "tests/${id}.db.txt"]`,
      'must_pass:',
      `  - { id: own-database, type: file_contains, path: tests/${id}.db.txt, contains: "tests/${id}.db" }`,
      '---',
      `# ${title}`,
      '',
      body,
      '',
    ].join('\n'),
  ];
}

const FILES: Record<string, string> = {
  'README.md': '# Hello\n',
  '.github/harness.yml': CONFIG,
  [`${SPEC_PATH}/SPEC.md`]: `---\nid: ${SPEC}\ntitle: Stores and their tests\n---\n# Stores and their tests\n`,
  ...Object.fromEntries([
    plan('01-01', 'notes', 'Notes store with vitest tests', 'Save and load notes in SQLite; the vitest suite covers both and runs its files in parallel.'),
    plan('01-02', 'tags', 'Tag persistence and its test suite', 'Persist tags in the database and test them; test files run concurrently.'),
    plan('01-03', 'users', 'User records, tested', 'Keep user records in SQLite, with vitest tests for reading and writing them.'),
    plan('01-04', 'comments', 'Comments store and tests', 'Store comments in the SQLite database; vitest tests save and load them in parallel.'),
  ]),
};

const PLANS = ['01-01', '01-02', '01-03', '01-04'];

let github: FakeGitHub;
let restoreGit: () => void;
const briefs = mkdtempSync(join(tmpdir(), 'harness-briefs-'));

beforeAll(() => {
  restoreGit = isolateGit();
  nock.disableNetConnect();
});
afterEach(() => nock.cleanAll());
afterAll(() => restoreGit());

/** One worker job for a plan, on a runner whose checkout is the plan branch the App claimed at master's head. */
async function job(planId: string, run: number) {
  const master = github.branches.get('master')!;
  const branch = `harness/${SPEC}/${planId}`;
  github.branches.set(branch, master);
  const repo = await workerRepo(github.files('master'), branch);
  git(repo.remote, 'branch', 'master', 'main');
  const request = testOctokit().request;
  const deps: WorkerDeps = {
    inputs: { spec: SPEC, target: { kind: 'plan', plan: planId }, resume: false },
    base: 'master',
    root: repo.checkout,
    tempDir: repo.temp,
    forge: workerForge(request, { owner: OWNER, repo: REPO }, 'harness[bot]'),
    knowledge: (r) => knowledgeForge(request, r ?? { owner: OWNER, repo: REPO }),
    secrets: [],
    env: { BRIEFS: briefs, DEPLOY_TOKEN: TOKEN },
    log: testLog(),
    now: () => github.now(),
    runUrl: `https://github.com/${OWNER}/${REPO}/actions/runs/${run}`,
  };
  return runWorker(deps);
}

async function comment(body: string, id: number): Promise<void> {
  const payload = webhookExample<{ comment: { id: number; body: string } }>('issue_comment', (p) => p.action === 'created');
  payload.comment.body = body;
  payload.comment.id = id;
  await testProbot().receive({ id: `delivery-${id}`, name: 'issue_comment', payload } as never);
}

const signalsIn = (ref: string) =>
  Object.keys(github.files(ref))
    .filter((p) => p.endsWith('.signal.md'))
    .sort();

describe('the learning loop on GitHub', () => {
  it("signals of three failed jobs, merged, become a lesson PR; merged, the lesson is in the next similar plan's brief, and it passes", async () => {
    github = new FakeGitHub(OWNER, REPO);
    github.defaultBranch = 'master';
    github.commit(BASE, FILES);
    github.branches.set('master', BASE);
    github.roles.set('Codertocat', 'write');
    let clock = Date.parse('2026-11-20T09:00:00Z');
    github.now = () => new Date((clock += 60_000));
    PLANS.forEach((id, i) => {
      github.issues.push({
        id: 800_000 + i,
        number: 10 + i,
        title: `[${id}] ${id}`,
        body: `<!-- harness:plan ${SPEC}/${id} hash=0123456789abcdef -->\n**Spec** …`,
        labels: ['harness:plan', `spec:${SPEC}`, 'phase:01', 'status:running'],
        state: 'open',
        state_reason: null,
      });
    });
    github.install();

    // 1. Three jobs fail the same way; their signals gather on the spec's signals PR.
    for (const [i, id] of ['01-01', '01-02', '01-03'].entries()) {
      const outcome = await job(id, 500 + i);
      expect(outcome.result).toBe('failed');
      expect(readFileSync(join(briefs, `${id}.md`), 'utf8')).not.toContain(KNOWLEDGE_HEADING);
    }
    const signalsBranch = `harness/knowledge/signal/${SPEC}`;
    const signalsPr = github.pullRequests.find((p) => p.head === signalsBranch)!;
    expect(signalsPr).toMatchObject({ state: 'open', labels: ['harness:knowledge', 'signal'] });
    const captured = signalsIn(signalsBranch);
    expect(captured).toHaveLength(3);
    for (const file of captured) {
      const text = github.fileAt(signalsBranch, file)!;
      expect(parseKnowledge('signal', file, text).data).toMatchObject({ type: 'struggle', spec: SPEC });
      expect(text).toContain('SQLITE_BUSY: database is locked');
    }

    // 2. A person merges it: the signals are accepted.
    github.merge(signalsPr.number);

    // 3. /harness reflect, on what is merged: one lesson PR, citing the three.
    await comment('/harness reflect', 7001);
    const lessonPr = github.pullRequests.find((p) => p.labels.includes('lesson'))!;
    expect(lessonPr).toMatchObject({ state: 'open', base: 'master', labels: ['harness:knowledge', 'lesson'] });
    expect(github.pullRequests.filter((p) => p.labels.includes('lesson'))).toHaveLength(1);
    for (const file of captured) expect(lessonPr.body).toContain(`- \`${file}\``);
    const lessonPath = Object.keys(github.files(lessonPr.head)).find((p) => p.endsWith('.lesson.md'))!;
    const lesson = github.fileAt(lessonPr.head, lessonPath)!;
    expect(parseKnowledge('lesson', lessonPath, lesson).data).toMatchObject({ evidence_count: 3 });
    expect(lesson).toContain('SQLITE_BUSY: database is locked');
    expect(spoken(github.comments.at(-1)!.body)).toContain(`#${lessonPr.number} (opened)`);

    // 4. A person merges the lesson.
    github.merge(lessonPr.number);

    // 5. A similar plan, on a checkout of what is merged: the lesson is in its brief, and it passes.
    const outcome = await job('01-04', 510);
    expect(outcome.result).toBe('verified');
    const brief = readFileSync(join(briefs, '01-04.md'), 'utf8');
    const section = brief.slice(brief.indexOf(KNOWLEDGE_HEADING));
    expect(brief).toContain(KNOWLEDGE_HEADING);
    expect(section).toContain('SQLITE_BUSY: database is locked');
    expect(section).toContain(`(lesson \`${lessonPath.slice('.harness/knowledge/'.length)}\`, drafted by harness, `);
    const planPr = github.pullRequests.find((p) => p.head === `harness/${SPEC}/01-04`)!;
    expect(planPr.body).toContain('### Knowledge surfaced');
    expect(planPr.body).toContain(`\`${lessonPath}\` (lesson)`);
    // Its use is a signal on a new signals PR (the first was merged).
    const next = github.pullRequests.filter((p) => p.head === signalsBranch && p.state === 'open');
    expect(next).toHaveLength(1);
    const uses = signalsIn(signalsBranch).filter((f) => f.endsWith('-use.signal.md'));
    expect(uses).toHaveLength(1);
    expect(github.fileAt(signalsBranch, uses[0]!)).toContain(`lesson \`${lessonPath.slice('.harness/knowledge/'.length)}\``);

    // The token the agent printed reached no request GitHub was sent: no file, commit, comment, PR or check run.
    const sent = github.requests.filter((r) => r.body !== undefined).map((r) => JSON.stringify(r.body));
    expect(sent.length).toBeGreaterThan(20);
    for (const body of sent) {
      expect(body).not.toContain(TOKEN);
      expect(body).not.toContain(Buffer.from(TOKEN).toString('base64').slice(0, 24));
    }
    const merged = Object.values(github.files('master')).join('\n');
    expect(merged).not.toContain(TOKEN);
    expect(merged).toContain('connecting with [REDACTED]');
  });
});
