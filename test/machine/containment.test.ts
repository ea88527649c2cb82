import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { chmod, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runProcess, startProcess, type ProcessResult } from '../../app/agents/process.js';
import { containment, containmentNotice, type ContainmentKind } from '../../app/machine/containment.js';
import { PROCESS_TAG } from '../../app/machine/process-group.js';
import { runShell } from '../../app/machine/process-run.js';
import { localVerifyPorts } from '../../app/machine/verify-ports.js';
import type { ExecResult } from '../../app/engine/core/verify/ports.js';
import { fileAppears } from '../helpers/file-appears.js';
import { gate } from '../helpers/gate.js';
import { CONTAINER_KINDS, containmentWorks, leavingBehind, leftIn, running, runningCommand, usingContainment } from '../helpers/processes.js';

/**
 * Each agent and each check runs in a container of processes the kernel keeps (a cgroup of its
 * own, or a PID namespace of its own where no cgroup can be made), so that what it starts ends
 * with it whatever it does to its environment (issue 36), while the command itself sees what it
 * saw before: its cwd, environment, streams, exit code and signal.
 */

/** The process's id in its own PID namespace (the last of /proc/<pid>/status NSpid). */
function innerPid(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('NSpid:'))!;
  return Number(line.split(/\s+/).at(-1));
}

/** A directory of its own: the command's working directory, which everything it starts inherits. */
async function workdir(): Promise<string> {
  return realpathSync(await mkdtemp(join(tmpdir(), 'harness-contained-')));
}

/**
 * A command that leaves four processes behind (leavingBehind, in the working directory: each a
 * `sleep <n><i>` that wrote its id, as it knows it, to p<i>), then does `rest`:
 * 1. out of its group and session with an empty environment (`setsid env -i`): no tag;
 * 2. a double fork with an empty environment, out of the session too (a daemon): no tag, no parent;
 * 3. out of its group, ignoring SIGTERM;
 * 4. in its group, ignoring SIGTERM.
 */
function leaving(n: string, rest: string): string {
  return `${leavingBehind(n, '.')}\n${rest}`;
}

const LEFT = [1, 2, 3, 4];

/** Resolves once the four are sleeping (the script says so: leavingBehind), with each one's id on this machine (checked against the id it wrote). */
async function started(dir: string, n: string, kind: ContainmentKind): Promise<number[]> {
  await fileAppears(join(dir, 'sleeping'));
  const pids: number[] = [];
  for (const i of LEFT) {
    const written = Number(readFileSync(join(dir, `p${i}`), 'utf8').trim());
    const found = runningCommand(`sleep ${n}${i}`);
    expect(found, `sleep ${n}${i}`).toHaveLength(1);
    const pid = found[0]!;
    // In a PID namespace, a process knows itself by its id there; elsewhere, by its id here.
    expect(kind === 'pidns' ? innerPid(pid) : pid).toBe(written);
    if (kind === 'cgroup') expect(readFileSync(`/proc/${pid}/cgroup`, 'utf8')).toMatch(/^0::.*\/harness-[0-9a-f-]{36}$/m);
    pids.push(pid);
  }
  return pids;
}

const EVERY_KIND = CONTAINER_KINDS;

describe.each(EVERY_KIND)('a command in a %s of its own', (kind) => {
  const here = containmentWorks(kind);
  /** The sleeps' durations of case `n`, each kind's their own: what one case leaves is never taken for another's. */
  const sleeps = (n: number) => `${4000 + 100 * (EVERY_KIND.indexOf(kind) + 1) + n}.`;
  let restore: () => void = () => undefined;
  beforeEach(() => {
    restore = usingContainment(kind);
  });
  afterEach(() => restore());

  describe.skipIf(!here)(`(${kind}: available here)`, () => {
    it('sees its cwd, its environment exactly, its stdin, and writes stdout and stderr apart', async () => {
      const dir = await workdir();
      // Including what a shell sets itself (PWD, SHLVL, _), as the command was given them, and nothing more.
      const env = { PATH: process.env.PATH, HOME: '/nowhere', PWD: '/somewhere/else', SHLVL: '7', _: '/usr/bin/true', ODD: 'a b\tc' };
      const lines: string[] = [];
      const result = await runProcess({ command: 'env', args: [], cwd: dir, env, onLine: (l) => void lines.push(l) });
      expect(result).toMatchObject({ code: 0, signal: null });
      const expected = Object.entries(env).map(([k, v]) => `${k}=${v}`);
      expect(lines.filter((l) => !l.startsWith(`${PROCESS_TAG}=`)).sort()).toEqual(expected.sort());
      expect(lines.filter((l) => l.startsWith(`${PROCESS_TAG}=`))).toHaveLength(1);

      const seen: [string, string][] = [];
      const io = await runProcess({
        command: 'sh',
        args: ['-c', 'cat; pwd -P; echo oops >&2'],
        cwd: dir,
        env: { PATH: process.env.PATH },
        input: 'hello\n',
        onLine: (l, s) => void seen.push([s, l]),
      });
      expect(io).toMatchObject({ code: 0, signal: null });
      expect(seen.filter(([s]) => s === 'stdout').map(([, l]) => l)).toEqual(['hello', dir]);
      expect(seen.filter(([s]) => s === 'stderr').map(([, l]) => l)).toEqual(['oops']);
    });

    it('ends with its own exit code or signal, told apart', async () => {
      const dir = await workdir();
      const said: string[] = [];
      const run = (script: string) =>
        runProcess({ command: 'sh', args: ['-c', script], cwd: dir, env: { PATH: process.env.PATH }, onLine: (l) => void said.push(l) });
      expect(await run('exit 3')).toMatchObject({ code: 3, signal: null });
      expect(await run('exit 1')).toMatchObject({ code: 1, signal: null });
      expect(await run('exit 143')).toMatchObject({ code: 143, signal: null });
      expect(await run('kill -TERM $$')).toMatchObject({ code: null, signal: 'SIGTERM' });
      // Not from harness (which kills the whole group): as the OOM killer ends the command alone.
      expect(await run('kill -KILL $$')).toMatchObject({ code: null, signal: 'SIGKILL' });
      // Whatever puts them in a container said nothing on their streams.
      expect(said).toEqual([]);
      // A program that is not there fails to start, as it always did.
      const missing = await runProcess({ command: 'no-such-program-anywhere', args: [], cwd: dir, env: { PATH: process.env.PATH } });
      expect(missing.error?.message).toMatch(/ENOENT/);
      // And a check command's exit code is its own too.
      expect(await runShell('exit 5', { cwd: dir, timeoutMs: 120_000 })).toMatchObject({ code: 5, timedOut: false });
    });

    it('a check: what it left running, out of its group, with an empty environment, ignoring SIGTERM, is gone when it ends', async () => {
      const dir = await workdir();
      const go = gate(join(dir, 'gate'));
      const check = runShell(leaving(sleeps(1), go.wait), { cwd: dir, timeoutMs: 600_000 });
      const pids = await started(dir, sleeps(1), kind);
      go.open();
      const result = await check;
      expect(result).toMatchObject({ code: 0, timedOut: false });
      for (const pid of pids) expect(running(pid), `process ${pid}`).toBe(false);
      expect(leftIn(dir)).toEqual([]);
    });

    it('an agent: what it left running is gone when it ends, and its log says what was ended', async () => {
      const dir = await workdir();
      const log = join(dir, 'agent.log');
      const proc = startProcess({
        command: 'sh',
        args: ['-c', leaving(sleeps(2), 'read go || :')],
        cwd: dir,
        env: { PATH: process.env.PATH },
        keepStdin: true,
        logFile: log,
      });
      const pids = await started(dir, sleeps(2), kind);
      proc.closeStdin();
      const result = await proc.done;
      expect(result).toMatchObject({ code: 0, signal: null });
      for (const pid of pids) expect(running(pid), `process ${pid}`).toBe(false);
      expect(leftIn(dir)).toEqual([]);
      // Those out of its group, by their ids here; the one in its group ended with the group.
      for (const i of [1, 2, 3]) expect(result.reaped).toContainEqual({ pid: pids[i - 1], command: `sleep ${sleeps(2)}${i}` });
      expect(readFileSync(log, 'utf8')).toMatch(new RegExp(`\\[harness\\] ended \\d+ processes left running: .*\\(sleep ${sleeps(2).replace('.', '\\.')}1\\)`));
    });

    it("a check's server answers on its port from outside, and what it left is gone once it is stopped", async () => {
      const dir = await workdir();
      const ports = localVerifyPorts(dir);
      const server = `${leavingBehind(sleeps(5), dir)}\nexec node -e "require('http').createServer((q, s) => s.end('up')).listen(process.env.PORT, '127.0.0.1')"`;
      try {
        const handle = await ports.serve({ command: server, url: 'http://127.0.0.1:{port}' });
        // No network namespace of its own: what listens in it is this machine's port.
        expect(await (await fetch(handle.baseUrl)).text()).toBe('up');
        await handle.stop();
        expect(leftIn(dir)).toEqual([]);
      } finally {
        await ports.close();
      }
    });

    it('by its time-out: a check and an agent that ignore SIGTERM and leave all four behind end with everything they started', async () => {
      // The time-out must come after the four have started, which a busy machine makes later: tried again with twice the time until it did.
      for (const run of [
        (dir: string, ms: number) => runShell(leaving(sleeps(3), `trap '' TERM; read never < never`), { cwd: dir, timeoutMs: ms }),
        (dir: string, ms: number) =>
          runProcess({
            command: 'sh',
            args: ['-c', leaving(sleeps(4), `trap '' TERM; read never < never`)],
            cwd: dir,
            env: { PATH: process.env.PATH },
            timeoutMs: ms,
          }),
      ]) {
        for (let ms = 250; ; ms *= 2) {
          const dir = await workdir();
          gate(join(dir, 'never'));
          const result: ExecResult | ProcessResult = await run(dir, ms);
          expect(result.timedOut).toBe(true);
          // Whatever had started by then, before or after its exec, under any id: gone.
          expect(leftIn(dir)).toEqual([]);
          if (LEFT.every((i) => existsSync(join(dir, `p${i}`)))) break;
        }
      }
    });
  });
});

describe('where no container can be made', () => {
  let restore: () => void = () => undefined;
  const savedPath = process.env.PATH;
  afterEach(() => {
    restore();
    process.env.PATH = savedPath;
  });

  /** A PATH with this machine's programs, and an unshare that is refused as a machine refuses a user namespace. */
  async function refusingUnshare(): Promise<string> {
    const bin = await mkdtemp(join(tmpdir(), 'harness-bin-'));
    for (const name of ['sh', 'env', 'setsid', 'nsenter', 'mkfifo', 'rm', 'sleep', 'cat']) {
      const found = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      await symlink(found, join(bin, name));
    }
    await writeFile(join(bin, 'unshare'), '#!/bin/sh\necho "unshare: unshare failed: Operation not permitted" >&2\nexit 1\n');
    await chmod(join(bin, 'unshare'), 0o755);
    return bin;
  }

  it('falls back to the tag, which still ends what keeps it, and says why in one line', async () => {
    process.env.PATH = await refusingUnshare();
    restore = usingContainment('pidns');
    expect(containment().kind).toBe('tag');
    expect(containmentNotice()).toBe(
      'processes: agents and checks are not contained here: no PID namespace (unshare --pid --fork --kill-child --mount-proc: unshare: unshare failed: Operation not permitted; unshare --user --map-current-user --pid --fork --kill-child --mount-proc: unshare: unshare failed: Operation not permitted). What they start is found by its HARNESS_PROCESS_TAG only, so a process that clears its environment (setsid env -i, a double fork with an empty environment) outlives its plan; see docs/security.md',
    );
    // What keeps its environment is still found by its tag, in its group or out of it, SIGTERM or not.
    const dir = await workdir();
    // It says its id at a gate once it has left the group; the check waits there, then writes it down.
    gate(join(dir, 'left'));
    const result = await runShell(`setsid sh -c 'trap "" TERM; echo $$ > left; exec sleep 4105.1' &\nread -r p < left && echo "$p" > p1`, {
      cwd: dir,
      timeoutMs: 600_000,
    });
    expect(result.code).toBe(0);
    const pid = Number(readFileSync(join(dir, 'p1'), 'utf8'));
    expect(running(pid)).toBe(false);
    expect(leftIn(dir)).toEqual([]);
  });

  it('says which names HARNESS_CONTAINMENT gave that it does not know', async () => {
    restore = usingContainment('tag,chroot');
    expect(containment().kind).toBe('tag');
    expect(containmentNotice()).toMatch(
      /^processes: agents and checks are not contained here: HARNESS_CONTAINMENT=tag,chroot asks for none \(HARNESS_CONTAINMENT names "chroot", which are not cgroup, pidns or tag\)\./,
    );
  });
});
