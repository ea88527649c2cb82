import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PROCESS_TAG, processTag, reapTagged } from '../../app/machine/process-group.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';
import { running } from '../helpers/processes.js';

/**
 * reapTagged over a /proc of the test's making, whose entries stand for processes of this
 * machine: each entry's id is a real process the test started, which is what a reap kills.
 * The test changes an entry between two looks (the reap's pause, which the test gives), so a
 * process can be shown in the middle of its exec at one look (its environment and command line
 * empty, as the kernel shows them then) and with its tag at the next.
 */

/** A live process of this machine for an entry to stand for: `sleep`, killed at the test's end if the reap did not. */
function sleeper(): { pid: number; ended: Promise<NodeJS.Signals | null> } {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  onTestFinished(() => void child.kill('SIGKILL'));
  return { pid: child.pid!, ended: new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal))) };
}

/** stat(5) as the kernel writes it, with the state and the flags field given. */
const stat = (pid: number, state: string, flags: number) => `${pid} (sleep) ${state} 1 ${pid} ${pid} 0 -1 ${flags} 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n`;

/** An entry of `proc` for `pid`: its stat (state, flags), command line and environment; written again when called again. */
async function entry(proc: string, pid: number, fields: { state?: string; flags?: number; cmdline: string; environ: string }): Promise<void> {
  const dir = join(proc, String(pid));
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'stat'), stat(pid, fields.state ?? 'S', fields.flags ?? 0x400000));
  await writeFile(join(dir, 'cmdline'), fields.cmdline);
  await writeFile(join(dir, 'environ'), fields.environ);
}

const SLEEP = 'sleep\0' + '600\0';

describe('reapTagged', () => {
  it('looks again at a process whose exec was under way, and kills it once its environment shows the tag', async () => {
    const proc = await mkdtemp(join(tmpdir(), 'harness-proc-'));
    const tag = processTag();
    const child = sleeper();
    // At the first look the process is between two programs: no environment, no command line.
    await entry(proc, child.pid, { cmdline: '', environ: '' });
    let pauses = 0;
    // By the next, its exec is done.
    const pause = async () => {
      pauses++;
      await entry(proc, child.pid, { cmdline: SLEEP, environ: `PATH=/usr/bin\0${PROCESS_TAG}=${tag}\0` });
    };
    const reaped = await reapTagged(tag, { proc, pause });
    expect(pauses).toBe(1);
    expect(reaped).toEqual([{ pid: child.pid, command: 'sleep 600' }]);
    expect(await child.ended).toBe('SIGKILL');
  });

  it('looks again a hundred times at most (a second, 10 ms apart) while a process stays between programs, then ends with what it found', async () => {
    const proc = await mkdtemp(join(tmpdir(), 'harness-proc-'));
    const child = sleeper();
    await entry(proc, child.pid, { cmdline: '', environ: '' });
    let pauses = 0;
    const reaped = await reapTagged(processTag(), { proc, pause: async () => void pauses++ });
    expect(reaped).toEqual([]);
    expect(pauses).toBe(100);
    expect(running(child.pid)).toBe(true);
  });

  it('keeps its process alive while it waits to look again, though a reap is all the process has left to do', async () => {
    const proc = await mkdtemp(join(tmpdir(), 'harness-proc-'));
    const child = sleeper();
    // Between programs at every look: the reap waits its whole second, 10 ms at a time, then ends.
    await entry(proc, child.pid, { cmdline: '', environ: '' });
    const ended = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const p = execFile(process.execPath, ['--import', 'tsx', join(FIXTURES, 'machine', 'reap-last.ts'), proc], { cwd: ROOT }, (_error, stdout) =>
        resolve({ code: p.exitCode, stdout }),
      );
    });
    // A timer that does not keep node alive ends the process at the first wait, its await unsettled: exit 13, nothing printed.
    expect(ended).toEqual({ code: 0, stdout: '[]\n' });
  });

  it('does not wait on a kernel thread, nor on a process started with no environment: neither is between programs', async () => {
    const proc = await mkdtemp(join(tmpdir(), 'harness-proc-'));
    const kernel = sleeper();
    const bare = sleeper();
    // A kernel thread has neither an environment nor a command line, ever: its flags (PF_KTHREAD) say what it is.
    await entry(proc, kernel.pid, { flags: 0x00208040, cmdline: '', environ: '' });
    // `env -i sleep 600`: no environment, but a command line.
    await entry(proc, bare.pid, { cmdline: SLEEP, environ: '' });
    let pauses = 0;
    const reaped = await reapTagged(processTag(), { proc, pause: async () => void pauses++ });
    expect(reaped).toEqual([]);
    expect(pauses).toBe(0);
    expect(running(kernel.pid) && running(bare.pid)).toBe(true);
  });

  it('kills no process whose environment carries another tag, nor one already ended', async () => {
    const proc = await mkdtemp(join(tmpdir(), 'harness-proc-'));
    const tag = processTag();
    const other = sleeper();
    const zombie = sleeper();
    await entry(proc, other.pid, { cmdline: SLEEP, environ: `${PROCESS_TAG}=${processTag()}\0` });
    // Ended, not yet waited for: its memory is gone, so it shows as a process in its exec would, but its state says Z.
    await entry(proc, zombie.pid, { state: 'Z', cmdline: '', environ: `${PROCESS_TAG}=${tag}\0` });
    let pauses = 0;
    const reaped = await reapTagged(tag, { proc, pause: async () => void pauses++ });
    expect(reaped).toEqual([]);
    expect(pauses).toBe(0);
    expect(running(other.pid) && running(zombie.pid)).toBe(true);
  });
});
