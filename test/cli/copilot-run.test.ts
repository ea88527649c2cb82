import { chmod, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';
import { standInCopilot } from '../helpers/copilot-standin.js';

describe('harness run --agent copilot', () => {
  it('runs the plan with Copilot CLI on this machine and merges its work, the cost counted at the configured price', async () => {
    const copilot = await standInCopilot([
      [{ write: ['out/01-01.txt', 'made by copilot\n'] }, { report: { type: 'progress_update', message: 'wrote it' } }, { text: 'Wrote out/01-01.txt.' }],
    ]);
    // The machine's own copilot, signed in: a launcher that holds its environment, named in .github/harness.yml.
    const launcher = join(copilot.bin, 'copilot-here');
    const exports = Object.entries(copilot.env)
      .map(([k, v]) => `export ${k}='${v}'`)
      .join('\n');
    await writeFile(launcher, `#!/bin/sh\n${exports}\nexec copilot "$@"\n`);
    await chmod(launcher, 0o755);
    const root = await makeRepo({
      ...specTree([{ id: '01-01', steps: ['false'] }]),
      '.github/harness.yml': `agents:\n  copilot:\n    executable: ${launcher}\n    price: { input_per_million: 2, output_per_million: 8 }\n`,
    });

    const r = await runCli(['run', SPEC_DIR, '--agent', 'copilot'], root);

    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('01-01 copilot session (gpt-5.4)');
    expect(r.stdout).toContain('SPC-007: 1/1 plans verified');
    expect(git(root, 'show', 'harness/SPC-007/integration:out/01-01.txt')).toBe('made by copilot\n');
    const [call] = await copilot.calls();
    expect(call!.args.slice(0, 1)).toEqual(['-p']);
    expect(call!.args).toContain('--output-format');
    // The run's record of the plan: 3 turns, 3000 tokens in at $2 and 50 out at $8 per million.
    const record = readdirSync(root, { recursive: true, encoding: 'utf8' }).find((p) => p.endsWith(join('sessions', '01-01', 'result.json')))!;
    expect((JSON.parse(readFileSync(join(root, record), 'utf8')) as { usage: unknown }).usage).toEqual({
      turns: 3,
      costUsd: 0.0064,
      inputTokens: 3000,
      outputTokens: 50,
    });
  });

  it("leaves a classic GH_TOKEN out of the CLI's environment, and with no other credential fails as the machine's problem, not an attempt, saying what token Copilot needs", async () => {
    const copilot = await standInCopilot([[{ write: ['out/01-01.txt', 'made by copilot\n'] }, { text: 'Wrote it.' }]], { token: false });
    const root = await makeRepo(specTree([{ id: '01-01', steps: ['false'] }]));

    const r = await runCli(['run', SPEC_DIR, '--agent', 'copilot'], root, { env: { ...copilot.env, GH_TOKEN: 'ghp_classic_for_gh' } });

    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      '01-01 FAILED: the copilot agent failed: copilot could not sign in: No authentication information found. — harness looked at COPILOT_GITHUB_TOKEN and GH_TOKEN',
    );
    expect(r.stdout).toContain(
      'GH_TOKEN held a classic personal access token (ghp_…), which Copilot refuses, so harness left it out. Copilot needs a fine-grained personal access token (github_pat_…)',
    );
    const result = JSON.parse(readFileSync(join(root, '.orchestration/SPC-007/sessions/01-01/result.json'), 'utf8')) as {
      outcome: string;
      environment?: boolean;
    };
    expect(result).toMatchObject({ outcome: 'failed', environment: true });
    expect((await copilot.calls())[0]!.env.GH_TOKEN).toBeUndefined();
  });

  it('says how to install Copilot CLI when it is not there, before anything runs', async () => {
    const root = await makeRepo({
      ...specTree([{ id: '01-01', steps: ['true'] }]),
      '.github/harness.yml': 'agents:\n  copilot:\n    executable: /nowhere/copilot\n',
    });
    const r = await runCli(['run', SPEC_DIR, '--agent', 'copilot'], root);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      '--agent copilot cannot start: "/nowhere/copilot" is not a program that can run; install GitHub Copilot CLI (npm install -g @github/copilot)',
    );
  });
});
