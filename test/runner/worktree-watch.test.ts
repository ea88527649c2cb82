import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OrchestrationStore } from '../../app/runner/store.js';
import { runCli, tempDir, type CliResult } from '../helpers/cli.js';
import { pathAppears } from '../helpers/file-appears.js';
import { gate } from '../helpers/gate.js';
import { git, makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';

/** Resolves once the run's own record of something (a question, a result) is at `path`: on file events; fails if the run ends first. */
async function recorded(path: string, running: Promise<CliResult>, what: string): Promise<void> {
  const ended = running.then((r) => Promise.reject(new Error(`the run ended (exit ${r.code}) before ${what}:\n${r.stdout}\n${r.stderr}`)));
  ended.catch(() => undefined);
  await Promise.race([pathAppears(path), ended]);
}

describe("writes an agent makes in another plan's worktree (issue 24, 8)", () => {
  it('are put back and reported as the deviation of the plan whose agent made them, not of the plan whose worktree it is', async () => {
    // 01-02 waits for a person before its command agent starts; meanwhile 01-01's agent writes in
    // 01-02's worktree (once the test has seen 01-02's question, and opened 01-01's gate).
    const asked = gate(join(await tempDir('harness-gate-'), 'asked'));
    const root = await makeRepo({
      '.github/harness.yml': ['agent: command', 'agents:', '  command:', '    command: "mkdir -p out && echo made > out/01-02.txt"', ''].join('\n'),
      ...specTree([
        {
          id: '01-01',
          extra: 'agent: script',
          steps: [`${asked.wait}; echo planted > ../01-02/stray.txt; mkdir -p out && echo x > out/01-01.txt`],
        },
        {
          id: '01-02',
          extra: 'autonomous: false\ncheckpoints: [decision]',
          steps: [],
          body: ['```checkpoint decision Storage backend', 'Which store should the service use?', 'options: memory, file', 'id: storage', '```', ''].join('\n'),
        },
      ]),
    });
    const store = new OrchestrationStore(join(root, '.orchestration/SPC-007'));
    const running = runCli(['run', SPEC_DIR, '--slots', '2'], root);
    await recorded(join(root, '.orchestration/SPC-007/sessions/01-02/checkpoint.json'), running, '01-02 asked');
    expect((await store.readCheckpoint('01-02'))?.id).toBe('storage');
    asked.open();
    await recorded(join(root, '.orchestration/SPC-007/sessions/01-01/result.json'), running, '01-01 ended');
    expect((await runCli(['respond', SPEC_DIR, '01-02', 'file'], root)).code).toBe(0);
    const done = await running;
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);

    const integration = 'harness/SPC-007/integration';
    const files = git(root, 'ls-tree', '-r', '--name-only', integration).split('\n');
    expect(files).not.toContain('stray.txt');
    expect(files).toContain('out/01-02.txt');
    const summary = (id: string) => git(root, 'show', `${integration}:${SPEC_DIR}/execution/phases/01-phase/${id}-SUMMARY.md`);
    expect(summary('01-02')).not.toContain('stray.txt');
    expect(summary('01-01')).toContain('../01-02/stray.txt');
    expect(summary('01-01')).toContain('wrote in the worktree of plan 01-02: stray.txt');
    expect(done.stdout).toContain("01-02's worktree: the agent of 01-01 wrote stray.txt there; put back, and a deviation of 01-01, not of 01-02");
  });
});
