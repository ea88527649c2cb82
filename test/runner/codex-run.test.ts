import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { harnessProcess } from '../helpers/cli.js';
import { agentsConfig } from '../../app/agents/config.js';
import { HarnessConfigSchema } from '../../app/engine/core/config/schema.js';
import { standInCodex } from '../helpers/codex-standin.js';
import { git, makeRepo, SPEC_DIR, specTree, worktreeOf } from '../helpers/repo.js';

describe('harness run --agent codex', () => {
  it('runs the plan with the Codex CLI on PATH, sandboxed to the worktree, and merges its verified work', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: [], body: 'Write out/01-01.txt.' }]));
    const codex = await standInCodex([
      [{ report: { type: 'progress_update', message: 'writing' } }, { write: ['out/01-01.txt', 'one\n'] }, { final: 'Wrote it.' }],
    ]);

    const run = await harnessProcess(['run', SPEC_DIR, '--agent', 'codex'], root, codex.env);

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(git(root, 'show', 'harness/SPC-007/integration:out/01-01.txt')).toBe('one\n');
    const [call] = await codex.calls();
    expect(call!.args.slice(0, 7)).toEqual(['exec', '--json', '--ignore-user-config', '-c', 'approval_policy="never"', '-c', 'sandbox_mode="workspace-write"']);
    expect(call!.cwd).toBe(worktreeOf(root, 'SPC-007', '01-01'));
    expect(readFileSync(join(codex.bin, 'servers.jsonl'), 'utf8')).toBe(`${JSON.stringify({ call: 0, servers: ['harness'] })}\n`);
  });

  it('refuses to start when codex is not on PATH, before any plan counts an attempt, and says what to install', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: [] }]));

    const run = await harnessProcess(['run', SPEC_DIR, '--agent', 'codex'], root, { PATH: '/usr/bin:/bin' });

    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'harness run: --agent codex cannot start: "codex" is not on PATH; install the Codex CLI (npm install -g @openai/codex), set agents.codex.executable in .github/harness.yml, or choose another agent with --agent (script, command)\n',
    );
  });
});

describe('.github/harness.yml for codex', () => {
  it('takes agent: codex and agents.codex, in the form the agent takes', () => {
    const config = HarnessConfigSchema.parse({
      agent: 'codex',
      agents: {
        codex: {
          model: 'gpt-6.2-sol',
          sandbox: 'danger-full-access',
          max_turns: 40,
          price: { input_per_million: 1.25, output_per_million: 10 },
          extra_args: ['-c', 'model_reasoning_effort="high"'],
        },
      },
    });
    expect(config.agent).toBe('codex');
    expect(agentsConfig(config).codex).toEqual({
      model: 'gpt-6.2-sol',
      sandbox: 'danger-full-access',
      maxTurns: 40,
      price: { inputPerMillion: 1.25, outputPerMillion: 10 },
      extraArgs: ['-c', 'model_reasoning_effort="high"'],
    });
    expect(HarnessConfigSchema.safeParse({ agents: { codex: { sandbox: 'none' } } }).success).toBe(false);
    expect(HarnessConfigSchema.safeParse({ agents: { codex: { approval_policy: 'never' } } }).success).toBe(false);
  });
});

describe('harness run --agent codex without a credential', () => {
  it("fails the plan as the machine's problem, not an attempt, and says which variable to set", async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: [] }]));
    const codex = await standInCodex([[{ write: ['out/01-01.txt', 'one\n'] }]]);

    const run = await harnessProcess(['run', SPEC_DIR, '--agent', 'codex'], root, { ...codex.env, CODEX_API_KEY: '' });

    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 1, stderr: '' });
    expect(run.stdout).toContain('01-01 FAILED: the codex agent failed: codex could not reach the model: unexpected status 401 Unauthorized');
    expect(run.stdout).toContain('set CODEX_API_KEY (an OpenAI API key) for the agent, or run codex login');
    const result = JSON.parse(readFileSync(join(root, '.orchestration/SPC-007/sessions/01-01/result.json'), 'utf8')) as {
      outcome: string;
      environment?: boolean;
    };
    expect(result).toMatchObject({ outcome: 'failed', environment: true });
  });
});
