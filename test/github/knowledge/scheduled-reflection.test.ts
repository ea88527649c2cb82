import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scheduledReflection } from '../../../app/github/knowledge/scheduled-reflection.js';
import { FakeGitHub } from '../../helpers/github-repo.js';
import { testOctokit } from '../../helpers/octokit.js';
import { FIXTURES } from '../../helpers/paths.js';

/**
 * Reflection on a schedule (templates/workflows/harness-reflect.yml runs the app action with
 * `command: reflect`): no webhook, an installation token, the config read through the API.
 */

const R = '/repos/Codertocat/Hello-World';
const BASE = 'ba5e000000000000000000000000000000000003';
const STORE = join(FIXTURES, 'knowledge', 'reflect', 'store');

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

function repository(config?: string, owner?: string, name?: string): FakeGitHub {
  const files: Record<string, string> = { 'README.md': '# Hello\n', ...(config !== undefined ? { '.github/harness.yml': config } : {}) };
  for (const entry of readdirSync(STORE, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      files[`.harness/knowledge/${relative(STORE, join(entry.parentPath, entry.name))}`] = readFileSync(join(entry.parentPath, entry.name), 'utf8');
  }
  const github = owner && name ? new FakeGitHub(owner, name) : new FakeGitHub();
  github.commit(BASE, files);
  github.branches.set('master', BASE);
  github.install();
  return github;
}

async function reflectNow(warnings: string[] = []) {
  return scheduledReflection({
    request: testOctokit().request,
    repo: { owner: 'Codertocat', repo: 'Hello-World' },
    base: 'master',
    env: {},
    cwd: '/home/runner/work/Hello-World',
    log: { info: () => undefined, warn: (m) => warnings.push(m) },
    now: new Date('2026-03-16T04:17:00Z'),
  });
}

describe('scheduled reflection', () => {
  it('reads the config through the API, opens the lesson PRs and writes the summary; the next run proposes nothing again', async () => {
    const github = repository('knowledge:\n  reflect: { min_plans: 2 }\n');
    const { summary } = await reflectNow();

    expect(github.log().slice(0, 3)).toEqual([
      `GET ${R}/contents/.github?ref=master`,
      expect.stringMatching(new RegExp(`^GET ${R}/git/blobs/`)),
      `GET ${R}/contents/.harness/knowledge?ref=master`,
    ]);
    expect(github.pullRequests.map((p) => p.title)).toEqual([
      'Lesson: Struggle: test, sqlite, database',
      'Lesson evidence: 1 signal more for stop-background-servers',
    ]);
    expect(summary).toMatch(
      /^## harness reflect\n\nRead 12 signals of the 12 under `\.harness\/knowledge\/signals\/` on `master`\.\n\nFound 2 lessons to propose:\n- new lesson \*\*Struggle: test, sqlite, database\*\*/,
    );
    expect(github.fileAt(github.pullRequests[0]!.head, '.harness/knowledge/lessons/testing/struggle-test-sqlite-database.lesson.md')).toContain(
      'last_updated: "2026-03-16"',
    );

    const before = github.writes().length;
    const again = await reflectNow();
    expect(github.writes().length).toBe(before);
    expect(again.summary).toContain('Nothing to distil yet');
  });

  it('reflects on the knowledge repository when .github/harness.yml names one, and opens its lesson PRs there', async () => {
    // This repository holds only the config; the knowledge repository (acme/knowledge, default branch main) the store.
    const config = 'knowledge:\n  repository: acme/knowledge\n';
    const blob = 'c0f1600000000000000000000000000000000001';
    nock('https://api.github.com')
      .get(`${R}/contents/.github`)
      .query({ ref: 'master' })
      .reply(200, [{ type: 'file', name: 'harness.yml', path: '.github/harness.yml', sha: blob }])
      .get(`${R}/git/blobs/${blob}`)
      .reply(200, { sha: blob, encoding: 'base64', content: Buffer.from(config).toString('base64') });
    const knowledge = repository(undefined, 'acme', 'knowledge');
    knowledge.branches.delete('master');
    knowledge.branches.set('main', BASE);
    knowledge.defaultBranch = 'main';

    const { summary } = await reflectNow();

    expect(knowledge.log().slice(0, 2)).toEqual(['GET /repos/acme/knowledge', 'GET /repos/acme/knowledge/contents/.harness/knowledge?ref=main']);
    expect(knowledge.pullRequests.map((p) => [p.title, p.base])).toEqual([
      ['Lesson: Struggle: test, sqlite, database', 'main'],
      ['Lesson evidence: 1 signal more for stop-background-servers', 'main'],
    ]);
    expect(summary).toContain('under `.harness/knowledge/signals/` on `acme/knowledge@main`');
  });

  it('reports a broken config and reflects with the defaults', async () => {
    const github = repository('knowledge:\n  reflect: { min_weight: nope }\n');
    const warnings: string[] = [];
    await reflectNow(warnings);
    expect(warnings).toEqual([expect.stringMatching(/^\.github\/harness\.yml:2: knowledge\.reflect\.min_weight/)]);
    expect(github.pullRequests).toHaveLength(2);
  });
});
