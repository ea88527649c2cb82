/** execution/commits.log: one line per commit of the spec, `<sha> <plan> <task> <subject>`, appended in order. */
export interface LoggedCommit {
  sha: string;
  plan: string;
  task?: string;
  subject: string;
}

export function appendCommits(existing: string, commits: readonly LoggedCommit[]): string {
  const known = new Set(
    existing
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ')[0]),
  );
  const lines = commits.filter((c) => !known.has(c.sha)).map((c) => `${c.sha} ${c.plan} ${c.task ?? '-'} ${c.subject.replace(/\s+/g, ' ')}`);
  if (lines.length === 0) return existing;
  const head = existing === '' || existing.endsWith('\n') ? existing : `${existing}\n`;
  return `${head}${lines.join('\n')}\n`;
}
