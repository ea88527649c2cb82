import { spawnSync } from 'node:child_process';
import { accessSync, constants, type Dirent, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { readdir, readFile, readlink, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { PROCESS_TAG, processTag, reapTagged, statFields, type ReapedProcess } from './process-group.js';

/**
 * Each agent and each check runs in a container of processes the kernel keeps, so that what it
 * starts ends with it whatever it does to its environment (`setsid env -i`, a double fork):
 *
 * - `cgroup`: a cgroup v2 of its own, made under this process's cgroup where this process may
 *   write there (a delegated cgroup: a systemd user session, a container run as root). The
 *   command is moved into it before it starts and runs as it would have; `cgroup.kill` ends
 *   everything in it. Nothing else about the command changes.
 * - `pidns`: a PID namespace of its own (`unshare --pid`, in a user namespace of its own where
 *   this process is not root), with its own /proc. The command's parent stays outside, so its
 *   exit code and signal are exactly its own; inside, it has the namespace's process ids (its
 *   `$$` is small, its parent's id is 0) and sees only its own processes. Killing the
 *   namespace's first process ends everything in it. In a user namespace, set-user-ID programs
 *   (sudo) do not gain their owner's rights.
 * - `tag`: neither could be made. Processes are found by the PROCESS_TAG in their environment
 *   only, which a process that clears its environment does not carry (process-group.ts).
 *
 * Which one works is found once per process by trying it (a command run in it), in that order,
 * or in the order HARNESS_CONTAINMENT names (`pidns`, `cgroup,pidns`, `tag`). Whatever the
 * kind, the command's working directory, environment, streams, exit code and signal are its
 * own, and its process group is what it was: a signal to the group reaches what it reached.
 */

export type ContainmentKind = 'cgroup' | 'pidns' | 'tag';
export const CONTAINMENT_ENV = 'HARNESS_CONTAINMENT';
const KINDS: readonly Exclude<ContainmentKind, 'tag'>[] = ['cgroup', 'pidns'];

export interface Containment {
  readonly kind: ContainmentKind;
  /** cgroup: the cgroup (a directory) each process's own is made in. */
  readonly cgroupBase?: string;
  /** pidns: whether a user namespace is made too (this process is not root). */
  readonly userns?: boolean;
  /** tag: the one line a run's log says it with: what was tried, why it failed, and what that leaves. */
  readonly notice?: string;
}

/** The programs the containers are made with, found on this process's PATH when it probes. */
interface Tools {
  unshare: string;
  nsenter: string;
  setsid: string;
  mkfifo: string;
  rm: string;
  sleep: string;
  env: string;
}

interface Probed extends Containment {
  tools?: Tools;
}

const SH = '/bin/sh';
/**
 * How long the namespace's first process sleeps at a time (seconds), reaping the orphans given
 * to it meanwhile; after each, it ends the namespace if nothing else is left in it.
 */
const INIT_SLEEP = '61';
/** How long a probe may take before it counts as failed (a hung probe must not hang harness). */
const PROBE_TIMEOUT_MS = 30_000;
/** How long end() waits for the kernel to have ended what it killed. */
const END_WAIT_MS = 5_000;

const cache = new Map<string, Probed>();

/** What this process uses, found on first use by trying each kind (HARNESS_CONTAINMENT: which, in which order). */
export function containment(): Containment {
  return probed();
}

function probed(): Probed {
  const wanted = process.env[CONTAINMENT_ENV]?.trim() ?? '';
  // The programs are found on PATH: another PATH may find others.
  const key = `${wanted}\0${process.env.PATH ?? ''}`;
  let found = cache.get(key);
  if (!found) {
    found = probe(wanted);
    cache.set(key, found);
  }
  return found;
}

/** The line a run's log says once when processes are contained by their tag only; undefined when they are in containers. */
export function containmentNotice(): string | undefined {
  return probed().notice;
}

function probe(wanted: string): Probed {
  const names = wanted === '' ? [...KINDS] : wanted.split(/[\s,]+/).filter(Boolean);
  const unknown = names.filter((n) => n !== 'tag' && !(KINDS as readonly string[]).includes(n));
  const tried: string[] = [];
  if (process.platform === 'linux') {
    for (const name of names) {
      if (name === 'cgroup') {
        const r = probeCgroup();
        if (r.base !== undefined) return { kind: 'cgroup', cgroupBase: r.base, tools: r.tools };
        tried.push(`no cgroup (${r.why})`);
      } else if (name === 'pidns') {
        const r = probePidns();
        if (r.tools !== undefined) return { kind: 'pidns', userns: r.userns, tools: r.tools };
        tried.push(`no PID namespace (${r.why})`);
      } else if (name === 'tag') {
        break;
      }
    }
  } else {
    tried.push(`no cgroup and no PID namespace on ${process.platform}`);
  }
  const why = tried.length > 0 ? tried.join('; ') : `${CONTAINMENT_ENV}=${wanted} asks for none`;
  const odd = unknown.length > 0 ? ` (${CONTAINMENT_ENV} names ${unknown.map((u) => JSON.stringify(u)).join(', ')}, which are not cgroup, pidns or tag)` : '';
  return {
    kind: 'tag',
    notice: `processes: agents and checks are not contained here: ${why}${odd}. What they start is found by its ${PROCESS_TAG} only, so a process that clears its environment (setsid env -i, a double fork with an empty environment) outlives its plan; see docs/security.md`,
  };
}

// ---------------------------------------------------------------------------------------------
// Finding programs and the cgroup.

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** `name` as the shell would find it on `path` (relative to `cwd` when it holds a slash), or undefined. */
export function findProgram(name: string, path: string | undefined, cwd: string): string | undefined {
  if (name.includes('/')) {
    const full = resolve(cwd, name);
    return executable(full) ? full : undefined;
  }
  for (const dir of (path ?? '').split(delimiter)) {
    const full = resolve(cwd, dir === '' ? '.' : dir, name);
    if (executable(full)) return full;
  }
  return undefined;
}

function tools(): Tools | string {
  const found: Partial<Tools> = {};
  for (const name of ['unshare', 'nsenter', 'setsid', 'mkfifo', 'rm', 'sleep', 'env'] as const) {
    const full = findProgram(name, process.env.PATH, process.cwd());
    if (full === undefined) return `${name} is not on PATH`;
    found[name] = full;
  }
  return found as Tools;
}

function octal(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, n: string) => String.fromCharCode(parseInt(n, 8)));
}

/** This process's own cgroup v2 directory, or why there is none. */
function ownCgroup(): { dir?: string; why?: string } {
  let mountinfo: string;
  let cgroup: string;
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
    cgroup = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    return { why: 'no /proc to read it from' };
  }
  // "id parent major:minor root mount-point options … - fstype source options"
  const mount = mountinfo
    .split('\n')
    .map((line) => {
      const [before = '', after = ''] = line.split(' - ');
      const fields = before.split(' ');
      return { root: octal(fields[3] ?? ''), point: octal(fields[4] ?? ''), type: after.split(' ')[0] };
    })
    .find((m) => m.type === 'cgroup2');
  if (!mount) return { why: 'no cgroup v2 is mounted' };
  const own = cgroup
    .split('\n')
    .find((l) => l.startsWith('0::'))
    ?.slice(3);
  if (own === undefined || own.endsWith(' (deleted)')) return { why: 'this process is in no cgroup v2' };
  const root = mount.root.replace(/\/$/, '');
  if (root !== '' && own !== root && !own.startsWith(`${root}/`)) return { why: `its cgroup ${own} is outside the mounted ${mount.root}` };
  return { dir: join(mount.point, own.slice(root.length)) };
}

function firstLine(text: string | Buffer | null | undefined): string {
  return (
    String(text ?? '')
      .trim()
      .split('\n')[0] ?? ''
  );
}

/** Make a cgroup beside what this process runs, run a command in it, and see it there. */
function probeCgroup(): { base?: string; tools?: Tools; why?: string } {
  const own = ownCgroup();
  if (own.dir === undefined) return { why: own.why };
  const found = tools();
  if (typeof found === 'string') return { why: found };
  const dir = join(own.dir, `harness-probe-${process.pid}-${processTag().slice(0, 8)}`);
  try {
    mkdirSync(dir);
  } catch (e) {
    return { why: `this process may not make one in ${own.dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  try {
    if (!existsSync(join(dir, 'cgroup.kill'))) return { why: 'it has no cgroup.kill (Linux 5.14 and later have it)' };
    const r = spawnSync(SH, ['-c', CGROUP_WRAP, 'harness-cgroup', dir, SH, '-c', 'cat /proc/self/cgroup'], { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS });
    const name = dir.slice(dir.lastIndexOf('/'));
    if (r.status !== 0 || !r.stdout.split('\n').some((l) => l.startsWith('0::') && l.endsWith(name))) {
      return { why: `a command could not be moved into ${dir}: ${firstLine(r.stderr) || `exit ${r.status ?? r.signal}`}` };
    }
    return { base: own.dir, tools: found };
  } finally {
    try {
      rmdirSync(dir);
    } catch {
      // Still held a moment by the probe's process: an empty cgroup costs nothing.
    }
  }
}

/** Run a command in a PID namespace of its own (without a user namespace first, then with one) and see /proc agree with it. */
function probePidns(): { tools?: Tools; userns?: boolean; why?: string } {
  const found = tools();
  if (typeof found === 'string') return { why: found };
  const whys: string[] = [];
  for (const userns of [false, true]) {
    const flags = [...(userns ? ['--user', '--map-current-user'] : []), '--pid', '--fork', '--kill-child', '--mount-proc'];
    // First the namespace alone, for unshare's own words when it cannot be made.
    const tiny = spawnSync(found.unshare, [...flags, 'true'], { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS });
    if (tiny.status !== 0) {
      whys.push(`unshare ${flags.join(' ')}: ${firstLine(tiny.stderr) || `exit ${tiny.status ?? tiny.signal}`}`);
      continue;
    }
    const tag = processTag();
    const dir = mkdtempSync(join(tmpdir(), 'harness-pidns-'));
    try {
      // The namespace's own /proc shows the command under its own id (a command that is not first in it is not its init);
      // then the command ends the namespace itself, so that nothing of the probe outlives it, should this process be killed meanwhile.
      const check = 'read pid rest </proc/self/stat; if [ "$pid" = "$$" ] && [ "$$" != 1 ]; then echo contained; fi; kill -USR1 1';
      const r = spawnSync(SH, ['-c', pidnsWrap(found, userns, true), 'harness-pidns', initScript(found, tag, true), dir, found.env, SH, '-c', check], {
        encoding: 'utf8',
        timeout: PROBE_TIMEOUT_MS,
      });
      if (r.stdout.split('\n').includes('contained')) return { tools: found, userns };
      whys.push(`a command could not be run in one made with unshare ${flags.join(' ')}: ${firstLine(r.stderr) || `exit ${r.status ?? r.signal}`}`);
    } finally {
      killMachinerySync(tag);
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { why: whys.join('; ') };
}

// ---------------------------------------------------------------------------------------------
// The wrappers: shell scripts that put the command in its container, then exec it.

function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** $1: the cgroup; the rest: the command (env, which puts back what sh set, then the program). */
const CGROUP_WRAP = 'echo $$ > "$1/cgroup.procs" || exit 125; shift; exec "$@"';

/**
 * $1: the namespace's first process (its script), $2: a directory of harness's for the FIFO it
 * says it is ready on and for what the programs that wait say; the rest: the command. The first
 * process is started in a session of its own (the command's process group stays the command's
 * own) in new PID and mount namespaces with their own /proc; once it is ready, the command
 * enters them with nsenter, and `unshare --fork` (outside the namespace, as the command's
 * parent) passes on its exit code and signal, ignores the SIGTERM and SIGINT sent to the
 * command's group while it waits (the command gets them), and kills the command should it be
 * killed itself. What nsenter and unshare say goes to $2/waiter, not to the command's stderr,
 * which the command gets back before it starts.
 */
function pidnsWrap(t: Tools, userns: boolean, probe = false): string {
  const user = userns ? ['--user', '--map-current-user'] : [];
  const enter = userns ? ['--user="/proc/$!/ns/user"', '--preserve-credentials'] : [];
  return [
    'init=$1; dir=$2; shift 2',
    `${quote(t.mkfifo)} "$dir/ready" || exit 125`,
    // A probe's stays in the probing process's group: killed with it before its command has run, it leaves nothing.
    `${probe ? '' : `${quote(t.setsid)} `}${quote(t.unshare)} ${user.join(' ')} --pid --fork --kill-child --mount-proc -- ${SH} -c "$init" </dev/null >"$dir/ready" 2>/dev/null &`,
    'exec 4<"$dir/ready"',
    `${quote(t.rm)} -f "$dir/ready"`,
    'read ready <&4',
    'exec 4<&-',
    '[ "$ready" = ok ] || { echo "harness: could not make a PID namespace" >&2; exit 125; }',
    'exec 3>&2 2>"$dir/waiter"',
    `exec ${quote(t.nsenter)} -t "$!" --wd ${enter.join(' ')} --mount="/proc/$!/ns/mnt" --pid="/proc/$!/ns/pid_for_children" --no-fork -- ${quote(t.unshare)} --fork --kill-child -- ${SH} -c 'exec 2>&3 3>&-; exec "$@"' harness-stderr "$@"`,
  ].join('\n');
}

/** The marker the namespace's first process (and the unshare that made it) carry on their command line. */
function marker(tag: string): string {
  return `: harness-init ${tag};`;
}

/**
 * The namespace's first process: says it is ready, then reaps what is given to it (a shell
 * waiting for its children reaps any). Harness ends it when the command ends; should harness
 * be gone by then, it ends itself once nothing else is left in the namespace (its /proc shows
 * only itself), so that it outlives nothing. A probe's also ends on SIGUSR1 from the probe's
 * command (a first process gets only the signals it has a handler for), which `wait` lets it
 * take at once.
 */
function initScript(t: Tools, tag: string, probe = false): string {
  const rest = probe
    ? `${quote(t.sleep)} ${INIT_SLEEP} & wait`
    : `while :; do ${quote(t.sleep)} ${INIT_SLEEP} & wait; set -- /proc/[0-9]*; [ $# -gt 1 ] || exit 0; done`;
  return `${marker(tag)}${probe ? ' trap "exit 0" USR1;' : ''} echo ok; exec >/dev/null 2>&1 </dev/null; ${rest}`;
}

/** The variables sh itself sets or changes, which the command must get as they were. */
const SHELL_SET = ['PWD', 'OLDPWD', 'SHLVL', '_'];

function restoredEnv(t: Tools, env: Record<string, string | undefined>): string[] {
  const args: string[] = [t.env];
  for (const name of SHELL_SET) args.push('-u', name);
  for (const name of SHELL_SET) if (env[name] !== undefined) args.push(`${name}=${env[name]}`);
  return args;
}

// ---------------------------------------------------------------------------------------------
// A process in its container.

export interface Contained {
  /** What to spawn (detached, with the command's own cwd, env and stdio): the wrapper, or the command itself. */
  readonly command: string;
  readonly args: string[];
  /** The kind this process got (`tag` where its command cannot be found: it starts nothing). */
  readonly kind: ContainmentKind;
  /** cgroup: its cgroup, for the record a killed run leaves (endCgroup ends it). */
  readonly cgroup?: string;
  /**
   * End everything in the container (SIGKILL) and resolve once the kernel has: what was still
   * running in it, by id (as seen from here) and command line. Call it when the command has
   * exited or been stopped; call it once.
   */
  end(): Promise<ReapedProcess[]>;
  /**
   * How the command ended, from how what was spawned ended: the same, but for a command in a PID
   * namespace that a SIGKILL not sent to its group ended (the OOM killer), which `unshare --fork`
   * (util-linux 2.38 and later) reports as exit 1 with "sigprocmask unblock failed".
   */
  ended(code: number | null, signal: NodeJS.Signals | null): { code: number | null; signal: NodeJS.Signals | null };
}

/** The cgroup a process with this tag gets, where processes get cgroups; for records a killed run leaves (process-registry.ts). */
export function cgroupFor(tag: string): string | undefined {
  const c = probed();
  return c.kind === 'cgroup' && c.cgroupBase !== undefined ? join(c.cgroupBase, `harness-${tag}`) : undefined;
}

/**
 * `command args` to be spawned in a container of its own (see above), tagged with `tag` (the
 * caller puts PROCESS_TAG=tag in `env`). A command that cannot be found is left unwrapped: its
 * spawn fails as it always did, and nothing runs to contain.
 */
export function contain(command: string, args: readonly string[], options: { tag: string; cwd: string; env: Record<string, string | undefined> }): Contained {
  const c = probed();
  const { tag } = options;
  const same = (code: number | null, signal: NodeJS.Signals | null) => ({ code, signal });
  const bare: Contained = { command, args: [...args], kind: 'tag', end: once(() => endTagged(tag)), ended: same };
  if (c.kind === 'tag' || c.tools === undefined) return bare;
  const program = findProgram(command, options.env.PATH, options.cwd);
  // Not found, or a name env would take for a variable: spawned as it is.
  if (program === undefined || program.includes('=')) return bare;
  // The command as it was given (its argv[0] its own), found by env on its own PATH as spawn would have.
  const inner = [...restoredEnv(c.tools, options.env), command, ...args];
  if (c.kind === 'cgroup') {
    const dir = cgroupFor(tag)!;
    try {
      mkdirSync(dir);
    } catch {
      return bare;
    }
    return {
      command: SH,
      args: ['-c', CGROUP_WRAP, 'harness-cgroup', dir, ...inner],
      kind: 'cgroup',
      cgroup: dir,
      end: once(() => endCgroup(dir, tag)),
      ended: same,
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'harness-pidns-'));
  const tools = c.tools;
  return {
    command: SH,
    args: ['-c', pidnsWrap(tools, c.userns === true), 'harness-pidns', initScript(tools, tag), dir, ...inner],
    kind: 'pidns',
    end: once(async () => {
      const ended = await endPidns(tag, tools);
      await rm(dir, { recursive: true, force: true });
      return ended;
    }),
    ended(code, signal) {
      if (code !== 1) return { code, signal };
      let said = '';
      try {
        said = readFileSync(join(dir, 'waiter'), 'utf8');
      } catch {
        // Nothing said.
      }
      return /sigprocmask unblock failed/.test(said) ? { code: null, signal: 'SIGKILL' } : { code, signal };
    },
  };
}

function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
}

// ---------------------------------------------------------------------------------------------
// Ending a container.

interface Proc {
  pid: number;
  ppid: number;
  state: string;
  command: string;
}

async function proc(pid: number): Promise<Proc | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const [state = '', ppid = ''] = statFields(stat);
    const command = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ').trim();
    return { pid, ppid: Number(ppid), state, command };
  } catch {
    return undefined;
  }
}

const live = (p: Proc | undefined): p is Proc => p !== undefined && p.state !== 'Z' && p.state !== 'X';

async function pids(): Promise<number[]> {
  return (await readdir('/proc')).filter((e) => /^\d+$/.test(e)).map(Number);
}

function wait(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Look again until `done` (the kernel says nothing when a process it killed is gone), END_WAIT_MS at most. */
async function until(done: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + END_WAIT_MS;
  while (!(await done()) && Date.now() < end) await wait(10);
}

/** The cgroup and those made in it (a harness run inside makes its own), deepest first. */
async function cgroupTree(dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const below = await Promise.all(entries.filter((e) => e.isDirectory()).map((e) => cgroupTree(join(dir, e.name))));
  return [...below.flat(), dir];
}

/**
 * What runs in the cgroup `dir` (and those made in it), ended with cgroup.kill; the cgroups
 * removed once empty. Processes that carry `tag` and moved out of it, where this process let
 * them write to another cgroup, are ended by their tag.
 */
export async function endCgroup(dir: string, tag?: string): Promise<ReapedProcess[]> {
  const tree = await cgroupTree(dir);
  const ended: ReapedProcess[] = [];
  for (const cg of tree) {
    const text = await readFile(join(cg, 'cgroup.procs'), 'utf8').catch(() => '');
    for (const p of await Promise.all(
      text
        .split('\n')
        .filter(Boolean)
        .map((n) => proc(Number(n))),
    ))
      if (live(p)) ended.push({ pid: p.pid, command: p.command });
  }
  if (tree.length > 0) {
    await writeFile(join(dir, 'cgroup.kill'), '1').catch(() => undefined);
    await until(async () => /^populated 0$/m.test(await readFile(join(dir, 'cgroup.events'), 'utf8').catch(() => 'populated 0')));
    for (const cg of tree) await rmdir(cg).catch(() => undefined);
  }
  if (tag !== undefined) for (const p of await endTagged(tag)) if (!ended.some((e) => e.pid === p.pid)) ended.push(p);
  return ended;
}

/**
 * What runs in the PID namespace of the process tagged `tag`, its first process aside, ended
 * by killing that first process (the kernel then kills the rest); resolves once none is left.
 */
async function endPidns(tag: string, t: Tools): Promise<ReapedProcess[]> {
  const mark = marker(tag);
  const all = (await Promise.all((await pids()).map(proc))).filter(live);
  const machinery = all.filter((p) => p.command.includes(mark));
  const own = await readlink('/proc/self/ns/pid').catch(() => undefined);
  let ns: string | undefined;
  let init: Proc | undefined;
  for (const p of machinery) {
    const link = await readlink(`/proc/${p.pid}/ns/pid`).catch(() => undefined);
    if (link !== undefined && link !== own) [ns, init] = [link, p];
  }
  const members: Proc[] = [];
  if (ns !== undefined && init !== undefined) {
    const sleeper = `${t.sleep} ${INIT_SLEEP}`;
    for (const p of all) {
      if (p.pid === init.pid || (p.ppid === init.pid && p.command === sleeper)) continue;
      if ((await readlink(`/proc/${p.pid}/ns/pid`).catch(() => undefined)) === ns) members.push(p);
    }
  }
  for (const p of machinery) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  const watched = [...members, ...machinery];
  await until(async () => !(await Promise.all(watched.map((p) => proc(p.pid)))).some(live));
  return members.map((p) => ({ pid: p.pid, command: p.command }));
}

/** What carries `tag`, killed (process-group.ts); resolves once the kernel has ended it. */
async function endTagged(tag: string): Promise<ReapedProcess[]> {
  const ended = await reapTagged(tag);
  await until(
    async () =>
      !(await Promise.all(ended.map((p) => proc(p.pid)))).some((now) => live(now) && ended.some((e) => e.pid === now.pid && e.command === now.command)),
  );
  return ended;
}

/** Kill what a probe started (by its marker), from a probe that may not wait. */
function killMachinerySync(tag: string): void {
  const mark = marker(tag);
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').includes(mark)) process.kill(Number(entry), 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

/** The namespace's machinery (its first process, the unshare that made it, and its sleep), not the command's processes. */
export function isMachinery(command: string): boolean {
  return command.includes(': harness-init ') || new RegExp(`^\\S*/sleep ${INIT_SLEEP}$`).test(command);
}
