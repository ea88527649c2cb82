import { rm } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { harnessProcess } from '../helpers/cli.js';
import { main } from '../../app/cli/main.js';
import { standInGemini } from '../helpers/gemini-standin.js';
import { git, makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('harness run --agent gemini', () => {
  it(
    "runs each plan with Gemini CLI on this machine, its own approval mode (auto_edit) and the harness MCP server, and commits the plan's work",
    { timeout: 120_000 },
    async () => {
      const root = await makeRepo(specTree([{ id: '01-01', steps: [] }]));
      const gemini = await standInGemini([
        [
          { report: { type: 'session_ready' } },
          { write: ['out/01-01.txt', 'made by gemini\n'] },
          { report: { type: 'task_completed', message: 'Wrote out/01-01.txt.' } },
          { text: 'Wrote out/01-01.txt.' },
        ],
      ]);
      made.push(gemini.bin);

      const run = await harnessProcess(['run', SPEC_DIR, '--agent', 'gemini'], root, gemini.env);

      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const [call] = await gemini.calls();
      expect(call!.cwd).not.toBe(root);
      expect(call!.args.slice(2)).toEqual([
        '--output-format',
        'stream-json',
        '--skip-trust',
        '--approval-mode',
        'auto_edit',
        '--allowed-mcp-server-names',
        'harness',
      ]);
      expect(await gemini.servers()).toEqual([{ call: 0, servers: ['harness'] }]);
      expect(run.stdout).toContain('01-01 gemini session ');
      expect(run.stdout).toContain('SPC-007: 1/1 plans verified, 1/1 phases verified');
      expect(git(root, 'log', '--format=%s', 'harness/SPC-007/integration')).toContain('01-01: Plan 01-01');
      expect(git(root, 'show', 'harness/SPC-007/integration:out/01-01.txt')).toBe('made by gemini\n');
    },
  );

  it('says before anything starts that gemini is not on PATH, and how to install it', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: [] }]));
    let stderr = '';
    const code = await main(['run', SPEC_DIR, '--agent', 'gemini'], {
      stdout: () => undefined,
      stderr: (t) => void (stderr += t),
      cwd: root,
      env: { PATH: '/nonexistent' },
      isTTY: false,
    });
    expect(code).not.toBe(0);
    expect(stderr).toContain('--agent gemini cannot start: "gemini" is not on PATH; install Gemini CLI (npm install -g @google/gemini-cli)');
  });
});
