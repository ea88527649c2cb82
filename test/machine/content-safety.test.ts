import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeSafe, PROJECT_ROOT, REDACTED, relativise, secretValues } from '../../app/machine/content-safety.js';

const GITHUB_TOKEN = `ghp_${'A1b2C3d4E5'.repeat(3)}xY9z0w`;
const ANTHROPIC_KEY = `sk-ant-api03-${'q'.repeat(93)}AA`;
const PRIVATE_KEY = generateKeyPairSync('rsa', {
  modulusLength: 1024,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey.trim();
const KEY_BODY = PRIVATE_KEY.split('\n')[1]!;

describe('the content-safety pass', () => {
  it('redacts the credentials a maintained scanner knows, wherever they stand in the text', async () => {
    const text = `npm test failed\nAuthorization: token ${GITHUB_TOKEN}\nexport ANTHROPIC_API_KEY=${ANTHROPIC_KEY}\n${PRIVATE_KEY}\nthe end`;

    const safe = await makeSafe(text);

    expect(safe.text).not.toContain(GITHUB_TOKEN);
    expect(safe.text).not.toContain(ANTHROPIC_KEY);
    expect(safe.text).not.toContain(KEY_BODY);
    expect(safe.text.startsWith('npm test failed\nAuthorization: token [REDACTED]\n')).toBe(true);
    expect(safe.text.endsWith('\nthe end')).toBe(true);
    expect(safe.redactions.map((r) => [r.rule, r.line])).toEqual([
      ['@secretlint/secretlint-rule-github', 2],
      ['@secretlint/secretlint-rule-anthropic', 3],
      ['@secretlint/secretlint-rule-privatekey', 4],
    ]);
  });

  it('redacts the values of the secrets this process holds, which no scanner could recognise', async () => {
    const env = { DEPLOY_TOKEN: 'corp-7f3a9c-internal', DB_PASSWORD: 'hunter2hunter2', PORT: '3000', SHORT_TOKEN: 'abc', HOME: '/root' };

    const safe = await makeSafe('connecting with corp-7f3a9c-internal as admin:hunter2hunter2 on 3000 (abc)', { secrets: secretValues(env) });

    expect(safe.text).toBe(`connecting with ${REDACTED} as admin:${REDACTED} on 3000 (abc)`);
    expect(safe.redactions).toEqual([
      { rule: 'known-secret', line: 1 },
      { rule: 'known-secret', line: 1 },
    ]);
  });

  it('leaves ordinary output alone', async () => {
    const text = 'FAIL src/auth/login.test.ts > rejects a wrong password\nexpected 401, got 500\n    at login (src/auth/login.ts:42:7)';
    expect(await makeSafe(text)).toEqual({ text, redactions: [] });
  });

  it("makes this machine's paths relative to the project, and only whole paths", () => {
    const text = 'ENOENT /tmp/run-1/repo/src/a.ts; see "/tmp/run-1/repo" and /tmp/run-1/repo-2/b.ts, cwd /tmp/run-1/repo';
    expect(relativise(text, ['/tmp/run-1/repo/'])).toBe(
      `ENOENT ${PROJECT_ROOT}/src/a.ts; see "${PROJECT_ROOT}" and /tmp/run-1/repo-2/b.ts, cwd ${PROJECT_ROOT}`,
    );
  });

  it('takes the longest root first, so that a worktree inside the repository is the project too', async () => {
    const roots = ['/work/repo', '/work/repo/.git/harness/worktrees/SPC-1/01-01'];
    const safe = await makeSafe('wrote /work/repo/.git/harness/worktrees/SPC-1/01-01/out.txt and /work/repo/README.md', { roots });
    expect(safe.text).toBe(`wrote ${PROJECT_ROOT}/out.txt and ${PROJECT_ROOT}/README.md`);
  });
});
