import { execFileSync } from 'node:child_process';

/** One argument as sh reads it back unchanged: in single quotes, each ' closed, escaped and reopened. */
const quote = (arg: string): string => `'${arg.replaceAll("'", `'\\''`)}'`;

/**
 * Run several git commands, in order, in one shell in `cwd`; stops at the first that fails (set -e),
 * which throws as execFileSync throws. Gives back what they printed.
 *
 * The same commands a helper would run one by one, in one process the test worker starts rather
 * than one each: a test worker is a large process (its loaded modules, a few hundred MB), and every
 * process it starts costs it and the child a copy and a tear-down of its page tables, 20–30 ms of
 * CPU, where the git command itself takes a few. A repository made with init, config, add and
 * commit so costs one of those instead of five.
 */
export function gitBatch(cwd: string, ...commands: string[][]): string {
  const script = ['set -e', ...commands.map((args) => ['git', ...args].map(quote).join(' '))].join('\n');
  return execFileSync('sh', ['-c', script], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * A new repository on `main` in `root` (its files already written), every file committed as
 * `who`, in one shell as gitBatch runs it; `then` runs after, in the same shell (a
 * `rev-parse HEAD`, say), and what it printed is given back. `config` is more of the
 * repository's configuration, as [key, value] pairs.
 */
export function firstCommit(root: string, who: { name: string; email: string }, message: string, config: [string, string][] = [], ...then: string[][]): string {
  return gitBatch(
    root,
    ['init', '--quiet', '--initial-branch=main'],
    ['config', 'user.name', who.name],
    ['config', 'user.email', who.email],
    ...config.map(([key, value]) => ['config', key, value]),
    ['add', '-A'],
    ['commit', '--quiet', '-m', message],
    ...then,
  );
}
