/**
 * The environment of harness's own git commands. Git starts `git maintenance run --auto`
 * (and, in older versions, `git gc --auto`) after commits and merges: a background process
 * per commit, which on a run of hundreds of plans was a tenth of every process started and
 * competed with the agents for the disk. Harness's commands turn both off through
 * GIT_CONFIG_COUNT (the environment's own config, after any the caller already set), so
 * the repository's and the person's config stay untouched; their own git commands (and the
 * agents') keep automatic maintenance as configured.
 */
export function gitEnv(base: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const QUIET: readonly [string, string][] = [
    ['maintenance.auto', 'false'],
    ['gc.auto', '0'],
  ];
  const env: NodeJS.ProcessEnv = { ...base, ...extra, GIT_TERMINAL_PROMPT: '0' };
  const given = Number(env.GIT_CONFIG_COUNT ?? 0);
  const count = Number.isInteger(given) && given > 0 ? given : 0;
  QUIET.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${count + i}`] = key;
    env[`GIT_CONFIG_VALUE_${count + i}`] = value;
  });
  env.GIT_CONFIG_COUNT = String(count + QUIET.length);
  return env;
}
