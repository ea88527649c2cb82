import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseKnowledge } from '../../../app/engine/knowledge/documents/parse.js';
import { REDACTED } from '../../../app/machine/content-safety.js';
import { FakeGitHub, spoken } from '../../helpers/github-repo.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';
import { FIXTURES } from '../../helpers/paths.js';

/**
 * `/harness reflect` through Probot, with a real `issue_comment.created` payload
 * (Codertocat/Hello-World, default branch master) and the stateful fake GitHub, which
 * records every request: the recorded store (test/fixtures/knowledge/reflect/store) is committed on
 * master under .harness/knowledge/.
 */

const R = '/repos/Codertocat/Hello-World';
const BASE = 'ba5e000000000000000000000000000000000001';
const COMMENT = 492700400;
const STORE = join(FIXTURES, 'knowledge', 'reflect', 'store');
const NEW_LESSON = '.harness/knowledge/lessons/testing/struggle-test-sqlite-database.lesson.md';
const PORT_LESSON = '.harness/knowledge/lessons/tooling/stop-background-servers.lesson.md';
const NEW_BRANCH = 'harness/knowledge/lesson/struggle-test-sqlite-database';
const SQLITE = [
  '.harness/knowledge/signals/notes-service/2026-03-02/2026-03-02T09-14-00Z-struggle.signal.md',
  '.harness/knowledge/signals/notes-service/2026-03-04/2026-03-04T15-40-00Z-repair.signal.md',
  '.harness/knowledge/signals/tags-service/2026-03-09/2026-03-09T11-02-00Z-struggle.signal.md',
];
/** A link's branch is named by the signals it adds (their paths in the store), so the same evidence is the same branch. */
const LINK_BRANCH = `harness/knowledge/lesson/stop-background-servers-evidence-${createHash('sha256').update('signals/tags-service/2026-03-10/2026-03-10T13-25-00Z-struggle.signal.md').digest('hex').slice(0, 8)}`;
const BLOB = expect.stringMatching(new RegExp(`^GET ${R}/git/blobs/[0-9a-f]{40}$`));

function storeFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(STORE, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    files[`.harness/knowledge/${relative(STORE, full)}`] = readFileSync(full, 'utf8');
  }
  return files;
}

function repository(config?: string): FakeGitHub {
  const github = new FakeGitHub();
  github.config = config;
  github.commit(BASE, { 'README.md': '# Hello\n', ...storeFiles() });
  github.branches.set('master', BASE);
  github.roles.set('Codertocat', 'write');
  github.install();
  return github;
}

type CommentPayload = { comment: { id: number; body: string } };

async function comment(body: string, id = COMMENT): Promise<void> {
  const payload = webhookExample<CommentPayload>('issue_comment', (p) => p.action === 'created');
  payload.comment.body = body;
  payload.comment.id = id;
  await testProbot().receive({ id: `delivery-${id}`, name: 'issue_comment', payload } as never);
}

/** What the App asks of GitHub to open one knowledge PR (gateway/knowledge-pr.ts). */
function opening(branch: string, number: number, baseRead = true): unknown[] {
  return [
    `GET ${R}/pulls?head=Codertocat:${branch}&state=all&per_page=100`,
    `GET ${R}/git/ref/heads/master`,
    // A commit named by its sha is read once: the second PR on the same base finds it in the App's memory (app-memory.ts).
    ...(baseRead ? [`GET ${R}/git/commits/${BASE}`] : []),
    `POST ${R}/git/trees`,
    `POST ${R}/git/commits`,
    `POST ${R}/git/refs`,
    `POST ${R}/pulls`,
    `POST ${R}/issues/${number}/labels`,
  ];
}

/** The reads before any decision: the command's own checks, then the store, the lessons and the open PRs. */
const READS = [
  `POST ${R}/issues/comments/${COMMENT}/reactions`,
  `GET ${R}/contents/.github/harness.yml`,
  `GET /repos/Codertocat/.github/contents/.github/harness.yml`,
  `GET ${R}/collaborators/Codertocat/permission`,
  `GET ${R}/contents/.harness/knowledge?ref=master`,
  expect.stringMatching(new RegExp(`^GET ${R}/git/trees/[0-9a-f]{40}\\?recursive=1$`)),
  expect.stringMatching(new RegExp(`^GET ${R}/git/trees/[0-9a-f]{40}\\?recursive=1$`)),
  BLOB,
  `GET ${R}/pulls?state=open&per_page=100`,
];

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('/harness reflect', () => {
  it('reads what is merged, opens one lesson PR for the new pattern and one for the link, and answers with both', async () => {
    const github = repository();
    await comment('/harness reflect');

    expect(github.log()).toEqual([
      ...READS,
      // 10 signals no lesson cites, and the lesson's own 2 (to know what it is about).
      ...Array.from({ length: 12 }, () => BLOB),
      ...opening(NEW_BRANCH, 100),
      ...opening(LINK_BRANCH, 101, false),
      `POST ${R}/issues/1/comments`,
    ]);

    const [lessonPr, linkPr] = github.pullRequests;
    expect(lessonPr).toMatchObject({
      number: 100,
      title: 'Lesson: Struggle: test, sqlite, database',
      head: NEW_BRANCH,
      base: 'master',
      state: 'open',
      labels: ['harness:knowledge', 'lesson'],
    });
    expect(lessonPr!.body).toMatch(
      new RegExp(
        `^<!-- harness:lesson create ${NEW_LESSON} -->\nReflection found a recurring pattern and proposes a lesson: \\*\\*Struggle: test, sqlite, database\\*\\*`,
      ),
    );
    expect(lessonPr!.body).toContain('### Why it qualified\n\n3 signals say the same thing');
    for (const path of SQLITE) expect(lessonPr!.body).toContain(`- \`${path}\` (`);
    const lesson = github.fileAt(NEW_BRANCH, NEW_LESSON)!;
    expect(parseKnowledge('lesson', NEW_LESSON, lesson).problems).toEqual([]);
    expect(lesson).toContain('_Drafted by harness from this evidence, not written by an agent');
    // The lesson PR is one commit on master: nothing else changes.
    expect(github.fileAt(NEW_BRANCH, 'README.md')).toBe('# Hello\n');

    expect(linkPr).toMatchObject({
      number: 101,
      head: LINK_BRANCH,
      title: 'Lesson evidence: 1 signal more for stop-background-servers',
      labels: ['harness:knowledge', 'lesson'],
    });
    expect(parseKnowledge('lesson', PORT_LESSON, github.fileAt(linkPr!.head, PORT_LESSON)!).data?.evidence_count).toBe(3);

    const answer = spoken(github.comments.at(-1)!.body);
    expect(answer).toBe(
      [
        'Read 12 signals of the 12 under `.harness/knowledge/signals/` on `master`.',
        '',
        'Found 2 lessons to propose:',
        '- new lesson **Struggle: test, sqlite, database** (3 signals, drafted by harness): #100 (opened)',
        `- 1 more signal for \`${PORT_LESSON}\`: #101 (opened)`,
        '',
        'Not made into lessons: 8 signals (2 evidence of a lesson already, 3 one-offs, 2 recurring in one place only, 1 completion or use signals, which are not reflected on).',
      ].join('\n'),
    );
  });

  it('asked twice, opens nothing twice: what is proposed counts as processed', async () => {
    const github = repository();
    await comment('/harness reflect');
    const before = github.requests.length;
    await comment('/harness reflect', COMMENT + 1);

    expect(github.writes(before).map((w) => `${w.method} ${w.url}`)).toEqual([
      `POST ${R}/issues/comments/${COMMENT + 1}/reactions`,
      `POST ${R}/issues/1/comments`,
    ]);
    expect(github.pullRequests).toHaveLength(2);
    const answer = spoken(github.comments.at(-1)!.body);
    expect(answer).toContain('Nothing to distil yet');
    expect(answer).toContain('4 evidence of a proposed lesson');
  });

  it('once the lesson is merged its signals are processed; a closed link is not proposed again', async () => {
    const github = repository();
    await comment('/harness reflect');
    github.merge(100);
    github.close(101);
    expect(github.fileAt('master', NEW_LESSON)).toBeDefined();

    const before = github.requests.length;
    await comment('/harness reflect', COMMENT + 1);
    const writes = github.writes(before).map((w) => `${w.method} ${w.url}`);
    expect(writes).toEqual([`POST ${R}/issues/comments/${COMMENT + 1}/reactions`, `POST ${R}/issues/1/comments`]);
    const answer = spoken(github.comments.at(-1)!.body);
    expect(answer).toMatch(
      /- 1 more signal for `\.harness\/knowledge\/lessons\/tooling\/stop-background-servers\.lesson\.md`: #101 \(closed without merging: not proposed again\)/,
    );
    expect(answer).toContain('5 evidence of a lesson already');
  });

  it('a secret in the reflector agent’s answer reaches no file, commit, pull request or comment', async () => {
    const fake = join(FIXTURES, 'knowledge', 'reflect', 'fake-reflector.mjs');
    const token = `ghp_${'k4M'.repeat(12)}`;
    const github = repository(`knowledge:\n  reflect: { agent: command, command: 'node "${fake}"' }\n`);
    process.env.FAKE_REFLECTOR_LEAK = token;
    try {
      await comment('/harness reflect');
    } finally {
      delete process.env.FAKE_REFLECTOR_LEAK;
    }

    const lessonPr = github.pullRequests[0]!;
    expect(lessonPr.title).toBe('Lesson: One SQLite file per test worker');
    const lesson = github.fileAt(lessonPr.head, NEW_LESSON)!;
    expect(lesson).toContain(`(the token was ${REDACTED})`);
    expect(lesson).toContain('_Written by the reflector agent (command) from this evidence, which harness chose._');
    for (const request of github.requests) expect(JSON.stringify(request.body ?? '')).not.toContain(token);
    expect(lessonPr.body).toContain(REDACTED);
  });

  it('reads the newest 300 signals no lesson cites, and says the rest wait for the next reflection', async () => {
    const files: Record<string, string> = { 'README.md': '# Hello\n' };
    for (let i = 0; i < 302; i++) {
      const ts = new Date(Date.UTC(2026, 2, 1) + i * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      files[`.harness/knowledge/signals/app/2026-03-01/${ts.replace(/:/g, '-')}-stuck.signal.md`] =
        `---\ntype: stuck\nseverity: low\nproject: app\ntimestamp: ${ts}\ntags: []\n---\n\n## What happened\n\nCheck number ${i} of its own kind failed (token${i}x).\n`;
    }
    const github = new FakeGitHub();
    github.commit(BASE, files);
    github.branches.set('master', BASE);
    github.roles.set('Codertocat', 'write');
    github.install();
    await comment('/harness reflect');

    expect(github.log().filter((l) => /\/git\/blobs\//.test(l))).toHaveLength(300);
    const answer = spoken(github.comments.at(-1)!.body);
    expect(answer).toMatch(
      /^Read 300 signals of the 302 under `\.harness\/knowledge\/signals\/` on `master` \(of those no lesson cites, the newest 300; the rest wait for the next reflection\)\./,
    );
    expect(answer).toContain('2 not read this time');
  });

  it('says there is nothing to reflect on without a store', async () => {
    const github = new FakeGitHub();
    github.commit(BASE, { 'README.md': '# Hello\n' });
    github.branches.set('master', BASE);
    github.roles.set('Codertocat', 'write');
    github.install();
    await comment('/harness reflect');
    expect(spoken(github.comments.at(-1)!.body)).toBe('I found no signals to reflect on: there is no `.harness/knowledge/signals/` on `master` yet.');
  });
});
