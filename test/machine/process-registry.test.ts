import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contain } from '../../app/machine/containment.js';
import { PROCESS_TAG, processTag } from '../../app/machine/process-group.js';
import { ProcessRegistry } from '../../app/machine/process-registry.js';
import { fileAppears } from '../helpers/file-appears.js';
import { CONTAINER_KINDS, containmentWorks, leavingBehind, leftInOnceGone, usingContainment } from '../helpers/processes.js';

/**
 * What a run killed with SIGKILL leaves running (a check's server, in a group of its own) is
 * stopped by the next run, from the records the registry keeps: at any moment of the kill,
 * before the group's id was written as well as after.
 */

const started: ChildProcess[] = [];

/** A detached `sleep` (its own group), carrying `tag` as a check's processes do; with `mark`, started in the background and the mark made once it is (by the shell itself: a touch still running would be stopped too). */
function sleeper(seconds: string, tag?: string, mark?: string): ChildProcess {
  const child = spawn('sh', ['-c', mark ? `sleep ${seconds} & : > "${mark}"; wait` : `sleep ${seconds}; :`], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, ...(tag ? { [PROCESS_TAG]: tag } : {}) },
  });
  started.push(child);
  return child;
}

function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Is a live process running exactly `command`? */
function running(command: string): boolean {
  return readdirSync('/proc').some((pid) => {
    try {
      return /^\d+$/.test(pid) && alive(Number(pid)) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim() === command;
    } catch {
      return false; // Gone meanwhile.
    }
  });
}

/** Resolves once the process has exited; the test's time-out catches one that never does. */
const ended = (child: ChildProcess) => new Promise<void>((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', () => r())));

afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Stopped by the test, as it should be.
    }
  }
});

describe('the process registry', () => {
  it('stops a group killed before its id was written, found by the tag recorded before it started', async () => {
    const registry = new ProcessRegistry(await mkdtemp(join(tmpdir(), 'harness-registry-')));
    const tag = processTag();
    await registry.track(tag);
    const mark = join(await mkdtemp(join(tmpdir(), 'harness-mark-')), 'sleep-started');
    const child = sleeper('311.5', tag, mark);
    // The run is killed here: `started` never writes the group's id. The next run comes once the shell has started its sleep.
    await fileAppears(mark);

    const stopped = await registry.reap();

    await ended(child);
    // A process sent SIGKILL ends a moment later, longer on a busy machine: /proc sends no event, so this looks again until it
    // has (no deadline but the test's: one never killed fails it).
    while (running('sleep 311.5')) await new Promise((r) => setImmediate(r));
    expect(stopped).toHaveLength(2);
    for (const what of stopped) expect(what).toMatch(/^process \d+ \((sh -c sleep 311\.5 & .*|sleep 311\.5)\)$/);
    expect(readdirSync(registry.dir)).toEqual([]);
  });

  it('stops a recorded group, and says so by its id', async () => {
    const registry = new ProcessRegistry(await mkdtemp(join(tmpdir(), 'harness-registry-')));
    const tag = processTag();
    await registry.track(tag);
    const child = sleeper('312.5', tag);
    await registry.started(tag, child.pid!);

    expect(await registry.reap(100)).toEqual([`process group ${child.pid}`]);
    await ended(child);
    expect(readdirSync(registry.dir)).toEqual([]);
  });

  it("leaves alone a process that has the recorded group's id but started later (the id given again)", async () => {
    const registry = new ProcessRegistry(await mkdtemp(join(tmpdir(), 'harness-registry-')));
    const child = sleeper('313.5');
    const tag = processTag();
    await registry.track(tag);
    // The recorded leader started at another time than the process now holding the id.
    await writeFile(join(registry.dir, tag), `${child.pid} 1`);

    expect(await registry.reap(100)).toEqual([]);
    expect(alive(child.pid!)).toBe(true);
    expect(readdirSync(registry.dir)).toEqual([]);
  });

  it('stops what a record of an earlier version names (a file named by the group id, holding start time and tag)', async () => {
    const registry = new ProcessRegistry(await mkdtemp(join(tmpdir(), 'harness-registry-')));
    const tag = processTag();
    const child = sleeper('314.5', tag);
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    await writeFile(join(registry.dir, String(child.pid)), `${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]}\n${tag}`);

    expect(await registry.reap(100)).toEqual([`process group ${child.pid}`]);
    await ended(child);
    expect(readdirSync(registry.dir)).toEqual([]);
  });

  it('refuses a tag that is not one processTag() makes, before writing anywhere', async () => {
    const registry = new ProcessRegistry(await mkdtemp(join(tmpdir(), 'harness-registry-')));
    await expect(registry.track('../escape')).rejects.toThrow('not a process tag: "../escape"');
  });
});

describe.each(CONTAINER_KINDS)('the process registry, with checks in a %s of their own', (kind) => {
  const here = containmentWorks(kind);
  let restore: () => void = () => undefined;
  afterEach(() => restore());

  it.skipIf(!here)(
    `stops all a killed run's check left: with an empty environment, out of its group, ignoring SIGTERM (${kind} available here)`,
    async ({ signal }) => {
      restore = usingContainment(kind);
      const registry = new ProcessRegistry(await mkdtemp(join(tmpdir(), 'harness-registry-')));
      const work = realpathSync(await mkdtemp(join(tmpdir(), 'harness-left-')));
      const n = kind === 'cgroup' ? '5601.' : '5602.';
      // As a run starts a check's command (verify-ports.ts): recorded, then started in its container.
      const tag = processTag();
      await registry.track(tag);
      const env = { ...process.env, [PROCESS_TAG]: tag };
      const container = contain('sh', ['-c', `${leavingBehind(n, work)}\ntouch ready\nexec sleep ${n}9`], { tag, cwd: work, env });
      const child = spawn(container.command, container.args, { cwd: work, env, detached: true, stdio: 'ignore' });
      started.push(child);
      await registry.started(tag, child.pid!);
      await fileAppears(join(work, 'ready'));
      // The run is killed here: nothing of it ends the container. The next run reaps.
      expect(await registry.reap(100)).toEqual([`process group ${child.pid}`]);
      await ended(child);
      expect(await leftInOnceGone(work, signal)).toEqual([]);
      expect(readdirSync(registry.dir)).toEqual([]);
    },
  );
});
