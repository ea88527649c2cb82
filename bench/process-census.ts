/**
 * Which processes a local run starts, by kind, and whose they are. Node's spawn() is
 * watched for what harness starts itself (its git commands, and the shells that run the
 * agent's steps and the checks); git's trace2 log (GIT_TRACE2_EVENT) adds what those git
 * commands start in turn (automatic maintenance, hooks' git, …), which Node never sees.
 * Each git process writes a session id ending in its pid (-P<hex>), its children's ids
 * begin with their parent's: so every git process is traced back to the process Node
 * started, and counted as harness's own when that process was one of harness's git
 * commands, and as the agent's or a check's otherwise (a git that a step runs).
 */
import { readFileSync } from 'node:fs';

export interface Spawned {
  command: string;
  args: readonly string[];
  pid: number | undefined;
  /** Harness's own though not git. */
  own?: boolean;
}

export interface Census {
  /** Processes harness started for itself, by kind ("git rev-parse", "git maintenance (by git)"). */
  own: Record<string, number>;
  /** Processes the agent and the checks started (their shells, the git they run). */
  work: Record<string, number>;
  ownTotal: number;
  workTotal: number;
}

/** The git subcommand of an argument list: the first word that is not an option (nor -c's value). */
export function gitSubcommand(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-c' || a === '-C') i++;
    else if (!a.startsWith('-')) return a;
  }
  return '(none)';
}

interface TraceStart {
  sid: string;
  argv: string[];
}

function traceStarts(file: string): TraceStart[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const starts: TraceStart[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"event":"start"')) continue;
    const event = JSON.parse(line) as { sid: string; argv: string[] };
    starts.push({ sid: event.sid, argv: event.argv });
  }
  return starts;
}

const pidOf = (sid: string) => Number.parseInt(/-P([0-9a-f]+)$/.exec(sid)?.[1] ?? '', 16);

export function census(spawned: readonly Spawned[], traceFile: string): Census {
  const own: Record<string, number> = {};
  const work: Record<string, number> = {};
  const add = (into: Record<string, number>, kind: string) => (into[kind] = (into[kind] ?? 0) + 1);
  const harnessGit = new Set<number>();
  for (const s of spawned) {
    if (s.command === 'git') {
      add(own, `git ${gitSubcommand(s.args)}`);
      if (s.pid !== undefined) harnessGit.add(s.pid);
    } else add(s.own ? own : work, s.command);
  }
  for (const start of traceStarts(traceFile)) {
    const chain = start.sid.split('/');
    if (chain.length === 1) {
      // A git process with no git parent: harness's own are counted from spawn() already.
      if (!harnessGit.has(pidOf(chain[0]!))) add(work, `git ${gitSubcommand(start.argv.slice(1))}`);
      continue;
    }
    const kind = `git ${gitSubcommand(start.argv.slice(1))} (by git)`;
    add(harnessGit.has(pidOf(chain[0]!)) ? own : work, kind);
  }
  const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
  return { own, work, ownTotal: total(own), workTotal: total(work) };
}
