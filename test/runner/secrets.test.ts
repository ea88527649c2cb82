import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordingReporter } from '../../app/runner/progress.js';
import { runSpec } from '../../app/runner/runner.js';
import { git, makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';

/**
 * No secret leaves a plan by its commits or its evidence (issue 24, 3), on real git through
 * `harness run`: the plan's commits are scanned before they are merged into the integration
 * branch (as a runner's are before it pushes), and a command's output is redacted before it is
 * cut to the last lines its evidence keeps.
 */

// A private key's shape, made at run time so that no key sits in this repository.
const BODY = Array.from({ length: 26 }, (_, i) => `MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC${String.fromCharCode(65 + i)}x9y8z7w6v5u4t3s2r1q0`);
const KEY = ['-----BEGIN ' + 'PRIVATE KEY-----', ...BODY, '-----END ' + 'PRIVATE KEY-----'].join('\n');

const integration = (root: string) => join(root, '.git/harness/worktrees/SPC-007/integration');
const summary = (root: string, plan: string) => readFileSync(join(integration(root), SPEC_DIR, `execution/phases/01-phase/${plan}-SUMMARY.md`), 'utf8');

describe('the scan before a plan is merged', () => {
  it('stops a plan whose commits add a private key: the plan fails naming the file and line, never the value, and nothing is merged', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', files: ['config/deploy.pem'], steps: [`mkdir -p config && printf '%s\\n' "$KEYTEXT" > config/deploy.pem`] }]));
    const reporter = new RecordingReporter();
    const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 1, agent: 'script', reporter, pollMs: 25, env: { KEYTEXT: KEY } });

    expect(outcome.complete).toBe(false);
    const text = summary(root, '01-01');
    expect(text).toContain("the plan's commits hold what looks like a secret, so they were not merged into harness/SPC-007/integration: config/deploy.pem:1 (@secretlint/secretlint-rule-privatekey)");
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
    const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 1, agent: 'script', reporter: new RecordingReporter(), pollMs: 25, env: { KEYTEXT: KEY } });
    expect(outcome.complete).toBe(true);
    expect(git(root, 'show', 'harness/SPC-007/integration:test/fixtures/key.pem')).toContain(BODY[3]);
  });

  it('an allow file the plan itself adds allows nothing', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', files: ['config/deploy.pem', '.harness/secrets-allow'], steps: [`mkdir -p config .harness && printf '%s\\n' "$KEYTEXT" > config/deploy.pem && echo '**' > .harness/secrets-allow`] }]));
    const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 1, agent: 'script', reporter: new RecordingReporter(), pollMs: 25, env: { KEYTEXT: KEY } });
    expect(outcome.complete).toBe(false);
    expect(summary(root, '01-01')).toContain('config/deploy.pem:1 (@secretlint/secretlint-rule-privatekey)');
  });
});

describe('evidence from a command that prints a key', () => {
  it('is redacted before it is cut: not one line of the key reaches SUMMARY.md', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: ['mkdir -p out && echo done > out/01-01.txt'], checks: ['  - { id: made, type: file_exists, path: out/01-01.txt }', `  - { id: prints, type: command_output, command: 'printf "%s\\\\n" "$KEYTEXT"; exit 1', expect: { exit_code: 0 } }`] }]));
    const reporter = new RecordingReporter();
    const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 1, agent: 'script', reporter, pollMs: 25, env: { KEYTEXT: KEY } });
    expect(outcome.complete).toBe(false);
    const text = summary(root, '01-01');
    expect(text).toContain('exit 1, expected exit 0; output ends:');
    expect(text).toContain('[REDACTED]');
    for (const line of BODY) expect(text).not.toContain(line.slice(0, 40));
  });
});
