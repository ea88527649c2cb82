import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { standInCodex } from '../helpers/codex-standin.js';
import { standInGemini } from '../helpers/gemini-standin.js';
import { runCli } from '../helpers/cli.js';
import { git, makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';

const SESSIONS = '.orchestration/SPC-007/sessions';
const INTEGRATION = 'harness/SPC-007/integration';
const SUMMARY = `${SPEC_DIR}/execution/phases/01-phase/01-01-SUMMARY.md`;

/** codex, the configured agent, at its usage limit after writing half the plan's file; gemini the fallback. */
async function fallbackSpec(config: string, geminiCalls: Record<string, unknown>[][]) {
  const root = await makeRepo({
    ...specTree([{ id: '01-01', steps: [], body: 'Write out/01-01.txt.' }]),
    '.github/harness.yml': config,
  });
  const resetsAt = new Date((Math.floor(Date.now() / 60_000) + 2 * 1440) * 60_000);
  const codex = await standInCodex([
    [
      { write: ['out/01-01.txt', 'half\n'] },
      { message: 'Wrote the first half of out/01-01.txt.' },
      { limit: { plan: 'plus', resets_at: resetsAt.getTime() / 1000 } },
    ],
  ]);
  const gemini = await standInGemini(geminiCalls);
  const env = { ...codex.env, ...gemini.env, PATH: `${codex.bin}:${gemini.bin}:${process.env.PATH}` };
  return { root, codex, gemini, env, resetsAt };
}

const CONFIG =
  'agent: codex\nagents:\n  fallback: [gemini]\n  codex:\n    price: { input_per_million: 1, output_per_million: 10 }\n  gemini:\n    price: { input_per_million: 1, output_per_million: 10 }\n';

describe("harness run with agents.fallback, at the agent's usage limit", () => {
  it('goes on with the next engine in a new session told what the first did; the plan is verified and its records name both engines and their costs', async () => {
    const { root, codex, gemini, env } = await fallbackSpec(CONFIG, [
      [{ recall: 'Other engines worked on this plan before you' }, { tokens: [2000, 100] }, { text: 'Kept the half codex wrote.' }],
    ]);

    const run = await runCli(['run', SPEC_DIR], root, { env });

    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("codex stopped at the model's usage limit: gemini takes the plan over (agents.fallback)");
    expect((await codex.calls()).length).toBe(1);
    const [call] = await gemini.calls();
    const brief = call!.args[1]!;
    expect(brief).toContain('## Taking over');
    expect(brief).toMatch(/\n- codex stopped at the model's usage limit: You’ve hit your usage limit\./);
    expect(brief).toContain('Where the last one was: "Wrote the first half of out/01-01.txt."');
    // The first engine's uncommitted work was kept for the one taking over, not discarded: it is what was merged.
    expect(git(root, 'show', `${INTEGRATION}:out/01-01.txt`)).toBe('half\n');
    const result = JSON.parse(readFileSync(join(root, SESSIONS, '01-01/result.json'), 'utf8')) as { outcome: string; usage: Record<string, number> };
    expect(result.outcome).toBe('verified');
    const summary = git(root, 'show', `${INTEGRATION}:${SUMMARY}`);
    expect(summary).toMatch(/^agent: gemini$/m);
    expect(summary).toContain('engines:');
    expect(summary).toMatch(
      /Engines, in order \(agents\.fallback\):\n- codex \(1 turns\): codex stopped at the model's usage limit: You’ve hit your usage limit\./,
    );
    expect(summary).toContain('\n- gemini ($0.00, 1 turns, 2000 tokens in, 100 out): finished the attempt');
    // What both used together is the plan's: codex's turn (a run stopped at its limit reports no tokens) and gemini's.
    expect(summary).toContain('Cost: $0.00, 2 turns, 2000 tokens in, 100 out');
    expect(result.usage).toMatchObject({ turns: 2, inputTokens: 2000, outputTokens: 100 });
    // harness status --json: the plan's spend names both engines, counted under the one that finished it.
    const status = await runCli(['status', SPEC_DIR, '--json'], root, { env });
    const spend = (JSON.parse(status.stdout) as { spend: { plans: { plan: string; engine: string; inputTokens: number }[]; engines: { engine: string }[] } })
      .spend;
    expect(spend.plans).toEqual([expect.objectContaining({ plan: '01-01', engine: 'codex → gemini', inputTokens: 2000 })]);
    expect(spend.engines.map((e) => e.engine)).toEqual(['gemini']);
    // The retrospective ranks the plans by what they cost, with their attempts and engines.
    const retro = await runCli(['retrospective', SPEC_DIR, '--dry-run'], root, { env });
    expect(retro.stdout).toContain(
      'Costliest plans of SPC-007 ($0.00 in all, as the agents reported it):\n  01-01 (codex → gemini): $0.00 over 1 attempt, 2 turns, 2,000 tokens in, 100 out\n',
    );
  });

  it('pauses as it would without fallbacks when none of them can go on', async () => {
    const { root, env, resetsAt } = await fallbackSpec(CONFIG, [[{ text: 'never' }]]);

    const run = await runCli(['run', SPEC_DIR], root, { env: { ...env, GEMINI_API_KEY: '' } });

    expect(run.code).toBe(75);
    expect(run.stdout).toContain("codex stopped at the model's usage limit: gemini takes the plan over (agents.fallback)");
    expect(run.stderr).toContain(`01-01 paused at the model's usage limit until ${resetsAt.toISOString()}`);
    const status = JSON.parse(readFileSync(join(root, SESSIONS, '01-01/status.json'), 'utf8')) as { state: string; attempt: number };
    expect(status).toMatchObject({ state: 'paused', attempt: 1 });
  });

  it('passes over a fallback that cannot start here (no credential) for the next one', async () => {
    const config = CONFIG.replace('fallback: [gemini]', 'fallback: [gemini, command]').replace('  codex:\n', '  command:\n    command: "true"\n  codex:\n');
    const { root, env } = await fallbackSpec(config, [[{ text: 'never' }]]);

    const run = await runCli(['run', SPEC_DIR], root, { env: { ...env, GEMINI_API_KEY: '' } });

    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('gemini could not start: command takes the plan over (agents.fallback)');
    const summary = git(root, 'show', `${INTEGRATION}:${SUMMARY}`);
    expect(summary).toMatch(/^agent: command$/m);
    expect(summary).toMatch(/\n- gemini: could not start: gemini could not authenticate: set GEMINI_API_KEY/);
  });

  it('does not fall back on any other failure', async () => {
    const root = await makeRepo({ ...specTree([{ id: '01-01', steps: [], body: 'Write out/01-01.txt.' }]), '.github/harness.yml': CONFIG });
    const codex = await standInCodex([[{ fail: 'the model refused the request' }], [{ fail: 'the model refused the request' }]]);
    const gemini = await standInGemini([[{ text: 'never' }]]);

    const run = await runCli(['run', SPEC_DIR], root, { env: { ...codex.env, ...gemini.env, PATH: `${codex.bin}:${gemini.bin}:${process.env.PATH}` } });

    expect(run.code).not.toBe(0);
    expect(run.stdout).not.toContain('takes the plan over');
    await expect(gemini.calls()).rejects.toThrow(/ENOENT/);
  });
});
