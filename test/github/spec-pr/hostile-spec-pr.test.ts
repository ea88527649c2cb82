import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APP_MAX_PLANS_PER_SPEC } from '../../../app/github/spec-pr/read-spec.js';
import { FakeGitHub, specAt } from '../../helpers/github-repo.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';
import { planMd, planPath, SPEC_MD, specFiles, specOf, type PlanOptions } from '../../helpers/spec.js';

/**
 * A fork's spec PR reaches the validator with whatever its author wrote (issue 10). Driven
 * through Probot with the real `pull_request` payload, against the fake GitHub that records
 * every request: the App answers each attack with a failing check run naming the problem,
 * and reads no more of the repository than its limits allow.
 */

interface PullRequestPayload {
  action: string;
  pull_request: {
    number: number;
    head: { sha: string; ref: string; repo: { full_name: string } | null };
    base: { sha: string; ref: string; repo: { full_name: string } };
  };
}

const R = '/repos/Codertocat/Hello-World';
const DIR = 'docs/specs/SPC-042-password-reset';

function forkPullRequest(): PullRequestPayload {
  const payload = webhookExample<PullRequestPayload>('pull_request', (p) => p.action === 'opened');
  payload.pull_request.head.repo = { full_name: 'mallory/Hello-World' };
  return payload;
}

function repository(files: Record<string, Uint8Array>, symlinks: string[] = []): { github: FakeGitHub; head: string } {
  const payload = forkPullRequest();
  const github = new FakeGitHub();
  github.config = 'specs_root: docs/specs\n';
  for (const link of symlinks) github.symlinks.add(link);
  github.commit(payload.pull_request.base.sha, { 'README.md': '# Hello\n', 'docs/specs/README.md': 'Specs live here.\n' });
  github.commit(payload.pull_request.head.sha, { 'README.md': '# Hello\n', 'docs/specs/README.md': 'Specs live here.\n', ...files });
  github.install();
  return { github, head: payload.pull_request.head.sha };
}

async function deliver(): Promise<void> {
  await testProbot().receive({ id: 'delivery-1', name: 'pull_request', payload: forkPullRequest() } as never);
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('a fork PR with a hostile spec', () => {
  it('a 10,000-deep flow sequence gets a failing check run with the problem at its line', async () => {
    const deep = planMd({ id: '01-01' }).replace('depends_on: []', `depends_on: ${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    const { github } = repository(specAt(DIR, specFiles({ 'SPEC.md': SPEC_MD, [planPath('01-01')]: deep })));
    await deliver();

    expect(github.writes().map((w) => `${w.method} ${w.url}`)).toEqual([`POST ${R}/check-runs`]);
    const run = github.checkRuns[0]!;
    expect(run.conclusion).toBe('failure');
    expect(run.annotations).toEqual([
      expect.objectContaining({
        path: `${DIR}/${planPath('01-01')}`,
        start_line: 4,
        message: 'YAML nesting deeper than 64 levels; frontmatter is a few flat keys and short lists, so flatten this value',
      }),
    ]);
  });

  it(`more than ${APP_MAX_PLANS_PER_SPEC} plan files are counted from the tree listing, and no blob is fetched`, async () => {
    const plans: PlanOptions[] = Array.from({ length: APP_MAX_PLANS_PER_SPEC + 1 }, (_, i) => ({ id: `01-${String(i + 1).padStart(4, '0')}` }));
    const { github } = repository(specAt(DIR, specOf(plans)));
    await deliver();

    expect(github.log().filter((l) => l.includes('/git/blobs/'))).toEqual([]);
    expect(github.writes().map((w) => `${w.method} ${w.url}`)).toEqual([`POST ${R}/check-runs`]);
    const run = github.checkRuns[0]!;
    expect(run.conclusion).toBe('failure');
    expect(run.annotations.map((a) => [a.path, a.message])).toEqual([
      [
        `${DIR}/planning/plans`,
        `1,001 plan files is over the 1,000 the harness App reads in a spec (each is a request to GitHub); split the spec, or check it with "harness validate" locally`,
      ],
    ]);
  });

  it('a plan file committed as a symbolic link is reported, and its blob never read', async () => {
    const files = specAt(DIR, specOf([{ id: '01-01' }, { id: '01-02' }]));
    files[`${DIR}/${planPath('01-02')}`] = new TextEncoder().encode('/home/runner/.ssh/id_rsa');
    const { github } = repository(files, [`${DIR}/${planPath('01-02')}`]);
    await deliver();

    expect(github.log().filter((l) => l.includes('/git/blobs/'))).toHaveLength(2); // SPEC.md and 01-01
    const run = github.checkRuns[0]!;
    expect(run.conclusion).toBe('failure');
    expect(run.annotations.map((a) => [a.path, a.message])).toEqual([
      [
        `${DIR}/${planPath('01-02')}`,
        'is a symbolic link; harness never follows links in a spec, which could point anywhere: put the file or folder itself here',
      ],
    ]);
  });
});
