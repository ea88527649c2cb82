import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordingReporter } from '../../app/runner/progress.js';
import { runSpec } from '../../app/runner/runner.js';
import { git, makeRepo, SPEC_DIR, specTree, worktreeOf } from '../helpers/repo.js';

/**
 * No secret leaves a plan by its commits or its evidence (issue 24, 3), on real git through
 * `harness run`: the plan's commits are scanned before they are merged into the integration
 * branch (as a runner's are before it pushes), and a command's output is redacted before it is
 * cut to the last lines its evidence keeps.
 */

// A private key's shape, made at run time so that no key sits in this repository.
const BODY = Array.from({ length: 26 }, (_, i) => `MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC${String.fromCharCode(65 + i)}x9y8z7w6v5u4t3s2r1q0`);
const KEY = ['-----BEGIN ' + 'PRIVATE KEY-----', ...BODY, '-----END ' + 'PRIVATE KEY-----'].join('\n');

const integration = (root: string) => worktreeOf(root, 'SPC-007', 'integration');
const summary = (root: string, plan: string) => readFileSync(join(integration(root), SPEC_DIR, `execution/phases/01-phase/${plan}-SUMMARY.md`), 'utf8');

describe('the scan before a plan is merged', () => {
  it('stops a plan whose commits add a private key: the plan fails naming the file and line, never the value, and nothing is merged', async () => {
    const root = await makeRepo(
      specTree([{ id: '01-01', files: ['config/deploy.pem'], steps: [`mkdir -p config && printf '%s\\n' "$KEYTEXT" > config/deploy.pem`] }]),
    );
    const reporter = new RecordingReporter();
    const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 1, agent: 'script', reporter, pollMs: 25, env: { KEYTEXT: KEY } });

    expect(outcome.complete).toBe(false);
    const text = summary(root, '01-01');
    expect(text).toContain(
      "the plan's commits hold what looks like a secret, so they were not merged into harness/SPC-007/integration: config/deploy.pem:1 (@secretlint/secretlint-rule-privatekey)",
    );
    expect(text).toContain('.harness/secrets-allow');
    // Not merged: the key is nowhere in the integration branch's history, and no document quotes it.
    expect(git(root, 'log', '-p', 'harness/SPC-007/integration')).not.toContain(BODY[3]);
    expect(JSON.stringify(reporter)).not.toContain(BODY[3]);
  });

  it('lets through what a writer allowed in .harness/secrets-allow on the base, and only that', async () => {
    const root = await makeRepo({
      ...specTree([{ id: '01-01', files: ['test/fixtures/key.pem'], steps: [`mkdir -p test/fixtures && printf '%s\\n' "$KEYTEXT" > test/fixtures/key.pem`] }]),
      '.harness/secrets-allow': '# test fixtures are keys on purpose\ntest/fixtures/*.pem @secretlint/secretlint-rule-privatekey\n',
    });
    const outcome = await runSpec({
      specDir: join(root, SPEC_DIR),
      specArg: SPEC_DIR,
      slots: 1,
      agent: 'script',
      reporter: new RecordingReporter(),
      pollMs: 25,
      env: { KEYTEXT: KEY },
    });
    expect(outcome.complete).toBe(true);
    expect(git(root, 'show', 'harness/SPC-007/integration:test/fixtures/key.pem')).toContain(BODY[3]);
  });

  it('an allow file the plan itself adds allows nothing', async () => {
    const root = await makeRepo(
      specTree([
        {
          id: '01-01',
          files: ['config/deploy.pem', '.harness/secrets-allow'],
          steps: [`mkdir -p config .harness && printf '%s\\n' "$KEYTEXT" > config/deploy.pem && echo '**' > .harness/secrets-allow`],
        },
      ]),
    );
    const outcome = await runSpec({
      specDir: join(root, SPEC_DIR),
      specArg: SPEC_DIR,
      slots: 1,
      agent: 'script',
      reporter: new RecordingReporter(),
      pollMs: 25,
      env: { KEYTEXT: KEY },
    });
    expect(outcome.complete).toBe(false);
    expect(summary(root, '01-01')).toContain('config/deploy.pem:1 (@secretlint/secretlint-rule-privatekey)');
  });
});

describe('secrets in every place a commit carries text (issue 36, 4)', () => {
  // A GitHub token's shape, made at run time; the steps get it by the environment.
  const TOKEN = `ghp_${'A1b2C3d4E5'.repeat(3)}xY9z0w`;
  const plan = (steps: string[]) =>
    specTree([{ id: '01-01', files: ['out/01-01.txt', 'out/**'], checks: ['  - { id: made, type: file_exists, path: out/01-01.txt }'], steps }]);
  const run = async (steps: string[]) => {
    const root = await makeRepo(plan(steps));
    const reporter = new RecordingReporter();
    const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 1, agent: 'script', reporter, pollMs: 25, env: { TOKEN } });
    const text = summary(root, '01-01');
    // Never merged, and the value is in no document.
    expect(outcome.complete).toBe(false);
    expect(git(root, 'ls-tree', '-r', '--name-only', 'harness/SPC-007/integration')).not.toContain('out/');
    expect(git(root, 'log', '-p', '--format=fuller', 'harness/SPC-007/integration')).not.toContain(TOKEN);
    expect(text).not.toContain(TOKEN);
    expect(JSON.stringify(reporter)).not.toContain(TOKEN);
    return text;
  };
  const RULE = '@secretlint/secretlint-rule-github';

  it('a token as a file name: named by its commit and number, not by the name', async () => {
    const text = await run([`mkdir -p out && echo done > out/01-01.txt && echo x > "out/$TOKEN.txt"`]);
    expect(text).toMatch(new RegExp(`not merged into harness/SPC-007/integration: .*commit [0-9a-f]{12} file name #\\d \\(${RULE}\\)`));
  });

  it('a token as the name of a symbolic link', async () => {
    const text = await run([`mkdir -p out && echo done > out/01-01.txt && ln -s 01-01.txt "out/$TOKEN"`]);
    expect(text).toMatch(new RegExp(`commit [0-9a-f]{12} file name #\\d \\(${RULE}\\)`));
  });

  it('a token inside a binary file', async () => {
    const text = await run([`mkdir -p out && echo done > out/01-01.txt && printf 'BIN\\000\\001\\002%s\\000\\377' "$TOKEN" > out/blob.bin`]);
    expect(text).toContain(`out/blob.bin (binary) (${RULE})`);
  });

  it("a token as a commit's author name and email", async () => {
    const text = await run([
      `mkdir -p out && echo done > out/01-01.txt && git add -A && git commit -q --author="Deploy $TOKEN <$TOKEN@example.com>" -m 'work'`,
    ]);
    expect(text).toMatch(new RegExp(`commit [0-9a-f]{12} author name \\(${RULE}\\)`));
    expect(text).toMatch(new RegExp(`commit [0-9a-f]{12} author email \\(${RULE}\\)`));
  });

  it("a token as a commit's committer name", async () => {
    const text = await run([`mkdir -p out && echo done > out/01-01.txt && git add -A && git -c user.name="CI $TOKEN" commit -q -m 'work'`]);
    expect(text).toMatch(new RegExp(`commit [0-9a-f]{12} committer name \\(${RULE}\\)`));
  });

  it('a token base64-encoded on an added line', async () => {
    const text = await run([`mkdir -p out && echo "config: $(printf %s "$TOKEN" | base64 -w0)" > out/01-01.txt`]);
    expect(text).toContain(`out/01-01.txt:1 (base64) (${RULE})`);
  });

  it('a token hex-encoded on an added line', async () => {
    const text = await run([`mkdir -p out && echo "config: $(printf %s "$TOKEN" | od -An -tx1 | tr -d ' \\n')" > out/01-01.txt`]);
    expect(text).toContain(`out/01-01.txt:1 (hex) (${RULE})`);
  });

  it('ordinary code with long identifiers and hashes is no finding', async () => {
    const root = await makeRepo(
      plan([
        `mkdir -p out && echo "const averyLongIdentifierName = 'd41d8cd98f00b204e9800998ecf8427e'; // sha 0123456789abcdef0123456789abcdef01234567" > out/01-01.txt && printf 'PNG\\000\\001 plain bytes here and there\\000' > out/logo.bin`,
      ]),
    );
    const outcome = await runSpec({
      specDir: join(root, SPEC_DIR),
      specArg: SPEC_DIR,
      slots: 1,
      agent: 'script',
      reporter: new RecordingReporter(),
      pollMs: 25,
      env: { TOKEN },
    });
    expect(outcome.complete).toBe(true);
  });
});

describe('evidence from a command that prints a key', () => {
  it('is redacted before it is cut: not one line of the key reaches SUMMARY.md', async () => {
    const root = await makeRepo(
      specTree([
        {
          id: '01-01',
          steps: ['mkdir -p out && echo done > out/01-01.txt'],
          checks: [
            '  - { id: made, type: file_exists, path: out/01-01.txt }',
            `  - { id: prints, type: command_output, command: 'printf "%s\\\\n" "$KEYTEXT"; exit 1', expect: { exit_code: 0 } }`,
          ],
        },
      ]),
    );
    const reporter = new RecordingReporter();
    const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 1, agent: 'script', reporter, pollMs: 25, env: { KEYTEXT: KEY } });
    expect(outcome.complete).toBe(false);
    const text = summary(root, '01-01');
    expect(text).toContain('exit 1, expected exit 0; output ends:');
    expect(text).toContain('[REDACTED]');
    for (const line of BODY) expect(text).not.toContain(line.slice(0, 40));
  });
});
