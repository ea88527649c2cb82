import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub, specAt } from '../../helpers/github-repo.js';
import { testProbot, webhookExample } from '../../helpers/probot.js';
import { planMd, planPath, SPEC_MD, specFiles } from '../../helpers/spec.js';

/**
 * Format characters (Unicode category Cf) in a title are refused as bidi controls are (issue 36,
 * 6): a zero-width space or joiner makes `[01-02] Login` and `[01-02] Lo\u200Bgin` two titles
 * that read alike, and hides a word from a search. A spec PR with one gets a failing check run
 * naming the file and line, and no plan issue is written.
 */

interface PullRequestPayload {
  pull_request: { head: { sha: string }; base: { sha: string } };
}

const R = '/repos/Codertocat/Hello-World';
const DIR = 'docs/specs/SPC-042-password-reset';

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());

describe('a spec PR whose plan title carries a format character', () => {
  for (const [name, char] of [
    ['zero-width space U+200B', '\u200B'],
    ['zero-width joiner U+200D', '\u200D'],
    ['word joiner U+2060', '\u2060'],
    ['byte order mark U+FEFF', '\uFEFF'],
    ['language tag U+E0001', '\u{E0001}'],
  ] as const) {
    it(`${name}: a failing check run at the title's line, and no issue written`, async () => {
      const payload = webhookExample<PullRequestPayload>('pull_request', (p) => p.action === 'opened');
      const github = new FakeGitHub();
      github.config = 'specs_root: docs/specs\n';
      github.commit(payload.pull_request.base.sha, { 'README.md': '# Hello\n', 'docs/specs/README.md': 'Specs live here.\n' });
      const plan = planMd({ id: '01-01', title: `Lo${char}gin endpoint` });
      github.commit(payload.pull_request.head.sha, {
        'README.md': '# Hello\n',
        'docs/specs/README.md': 'Specs live here.\n',
        ...specAt(DIR, specFiles({ 'SPEC.md': SPEC_MD, [planPath('01-01')]: plan })),
      });
      github.install();

      await testProbot().receive({ id: 'delivery-1', name: 'pull_request', payload } as never);

      expect(
        github
          .writes()
          .map((w) => `${w.method} ${w.url}`)
          .filter((w) => w.includes('/issues')),
      ).toEqual([]);
      expect(github.issues).toEqual([]);
      const run = github.checkRuns.find((r) => r.name === 'harness / spec')!;
      expect(run.conclusion).toBe('failure');
      expect(run.annotations).toContainEqual(
        expect.objectContaining({ path: `${DIR}/${planPath('01-01')}`, start_line: 3, message: expect.stringContaining('format characters') }),
      );
      expect(github.writes().some((w) => w.url === `${R}/check-runs`)).toBe(true);
    });
  }
});
