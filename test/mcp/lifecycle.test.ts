import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';
import { makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';
import { fileGone, fileHolds } from '../helpers/file-appears.js';
import { lifeline } from '../helpers/gate.js';
import { startHarnessMcp } from './mcp-client.js';

/** Alive and not a zombie (a container's init may never reap one). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!);
  } catch {
    return false;
  }
}

describe('harness mcp, its runs and its end', () => {
  it('stops a run on request as Ctrl-C would: its agent ends, and the spec can be executed again at once', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: ['echo $$ > "$PIDS/step"; sleep 600; mkdir -p out && echo done > out/01-01.txt'] }]));
    const pids = join(root, '.pids');
    const mcp = await startHarnessMcp(root, { PIDS: pids });
    try {
      await import('node:fs/promises').then((fs) => fs.mkdir(pids));
      const started = await mcp.call('harness_execute', { spec: 'SPC-007', agent: 'script' });
      const step = Number(await fileHolds(join(pids, 'step'), (text) => text.trim() !== ''));
      const stopped = await mcp.call('harness_stop_run', { run: started.data.run as string });
      expect(stopped.data).toMatchObject({ state: 'stopped', outcome: 'stopped on request; running it again resumes where it was' });
      expect(alive(step)).toBe(false);
      // The lock is released: the same spec can be executed again at once.
      const again = await mcp.call('harness_execute', { spec: 'SPC-007', agent: 'script' });
      expect(again.isError).toBe(false);
      await mcp.call('harness_stop_run', { run: again.data.run as string });
    } finally {
      await mcp.close();
    }
  });

  it('stops the runs it started when the client goes away, leaving no agent behind', async () => {
    // The step and its sleep hold a lifeline (test/helpers/gate.ts): the test learns from the kernel when both have ended.
    const life = lifeline(join(await tempDir('harness-life-'), 'step'));
    const root = await makeRepo(specTree([{ id: '01-01', steps: [`${life.hold}; echo $$ > "$PIDS/step"; sleep 600`] }]));
    const pids = join(root, '.pids');
    await import('node:fs/promises').then((fs) => fs.mkdir(pids));
    const mcp = await startHarnessMcp(root, { PIDS: pids });
    await mcp.call('harness_execute', { spec: 'SPC-007', agent: 'script' });
    await fileHolds(join(pids, 'step'), (text) => text.trim() !== '');
    expect(existsSync(join(root, '.orchestration/SPC-007/run.lock'))).toBe(true);
    await mcp.close();
    await life.gone;
    // The run itself ended cleanly, releasing its lock; its plan's state is kept for the next run to resume, and shown as stopped.
    await fileGone(join(root, '.orchestration/SPC-007/run.lock'));
    const status = JSON.parse((await runCli(['status', SPEC_DIR, '--json'], root)).stdout) as { plans: { id: string; state: string }[] };
    expect(status.plans).toMatchObject([{ id: '01-01', state: 'stopped' }]);
  });
});

describe('harness mcp, its options', () => {
  it('refuses --repo without a token, and a repository that is not OWNER/NAME', async () => {
    const root = await makeRepo({});
    const noToken = await runCli(['mcp', '--repo', 'octo-org/widgets'], root);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('--repo needs a token: set GITHUB_TOKEN');
    const bad = await runCli(['mcp', '--repo', 'widgets'], root);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--repo must be OWNER/NAME, as octo-org/service, not "widgets"');
  });
});
