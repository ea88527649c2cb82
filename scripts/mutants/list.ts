/**
 * Targeted mutations of claims the docs and the notes make, each with the tests that must catch
 * it (`npm run mutants`: scripts/mutants.ts). A mutation is one exact piece of text replaced in
 * one file; it must occur exactly once, so that a moved line is noticed rather than silently
 * not mutated. Add one for every claim a figure or a note rests on.
 */
export interface Mutant {
  /** What the tests claim, which this mutation breaks. */
  claim: string;
  file: string;
  from: string;
  to: string;
  /** The test files that must turn red. */
  tests: string[];
}

export const MUTANTS: Mutant[] = [
  {
    claim: 'a re-sync that finds existing issues is seen when it cannot finish (sync sweep)',
    file: 'app/github/spec-pr/sync-plan-issues.ts',
    from: '  if (!actual) await createPlanIssue(',
    to: "  if (actual && input.issues.listed.length > 0 && plan.id === spec.plans[0]!.id) throw new Error('mutant: a re-sync that finds issues fails');\n  if (!actual) await createPlanIssue(",
    tests: ['test/github/spec-pr/sync-faults.test.ts'],
  },
  {
    claim: 'a half-done sync is never taken for a finished one: the next delivery resumes it',
    file: 'app/github/spec-pr/spec-pull-requests.ts',
    from: "    const trusted = report.conclusion !== 'neutral';",
    to: '    const trusted = true;',
    tests: ['test/github/spec-pr/sync-faults.test.ts', 'test/github/spec-pr/spec-pr.test.ts'],
  },
  {
    claim: 'a dependency missing from the lockfile is an error, never skipped (packaging)',
    file: 'scripts/package-tree.ts',
    from: "      if (!hit) throw new Error(`package-lock.json resolves no ${name} for ${from || 'the package'}: run npm install`);",
    to: '      if (!hit) continue;',
    tests: ['test/cli/packaging.test.ts'],
  },
  {
    claim: "the agent's flags are the pinned Claude Code's own (a renamed flag is refused by the stand-in)",
    file: 'app/agents/claude.ts',
    from: "args.push('--max-budget-usd',",
    to: "args.push('--max-budget',",
    tests: ['test/agents/cli-flags.test.ts'],
  },
  {
    claim: "plan issues are the App's own, never another bot's (trust)",
    file: 'app/gateway/plan-issues.ts',
    from: "  return issue.authorType === 'Bot' && issue.author === owner;",
    to: "  return issue.authorType === 'Bot';",
    tests: ['test/github/trust/attack-matrix.test.ts'],
  },
  {
    claim: "a plan issue that lost its labels is found by the App's login, never opened twice (trust)",
    file: 'app/gateway/plan-issues.ts',
    from: '  if (found.length === 0) return before;',
    to: '  if (found.length >= 0) return before;',
    tests: ['test/github/spec-pr/spec-pr.test.ts', 'test/github/schedule/hidden-plan.test.ts'],
  },
  {
    claim: 'a write whose answer was lost is looked for, never sent again blind (create-once)',
    file: 'app/gateway/create-once.ts',
    from: '    if (found !== undefined) return found;',
    to: '    void found;',
    tests: ['test/gateway/create-once.test.ts'],
  },
  {
    claim: 'a known secret value is redacted wherever harness writes text (content safety)',
    file: 'app/machine/content-safety.ts',
    from: '    if (secret.length < MIN_SECRET_LENGTH) continue;',
    to: '    continue;',
    tests: ['test/machine/content-safety.test.ts'],
  },
  {
    claim: 'encoded tokens in added lines are found once decoded (push scan)',
    file: 'app/machine/push-scan.ts',
    from: '  for (const l of file.lines) for (const [encoding, text] of decodedRuns(l.text)) decoded.push(',
    to: '  for (const l of file.lines) for (const [encoding, text] of decodedRuns(l.text).slice(0, 0)) decoded.push(',
    tests: ['test/runner/secrets.test.ts'],
  },
  {
    claim: 'format characters (zero-width) in titles are refused like bidi controls',
    file: 'app/engine/core/spec/schema.ts',
    from: 'export const SINGLE_LINE = /^[^\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]*$/u;',
    to: 'export const SINGLE_LINE = /^[^\\p{Cc}\\p{Zl}\\p{Zp}]*$/u;',
    tests: ['test/github/trust/format-characters.test.ts'],
  },
  {
    claim: 'writes outside files_modified are recorded as a deviation',
    file: 'app/engine/lifecycle/attempt-plan.ts',
    from: '    undeclaredWrites: undeclaredWrites(changed, input.plan.filesModified),',
    to: '    undeclaredWrites: [],',
    tests: ['test/engine/lifecycle/attempt-plan.test.ts', 'test/runner/runner.test.ts'],
  },
  {
    claim: "the App's remembered caches are bounded",
    file: 'app/github/app-memory.ts',
    from: '  readonly statusComments = new LRUCache<string, { id: number; body: string; at: number }>({ max: REMEMBERED_MAX });',
    to: '  readonly statusComments = new LRUCache<string, { id: number; body: string; at: number }>({ max: REMEMBERED_MAX + 1 });',
    tests: ['test/github/app-memory.test.ts'],
  },
  {
    claim: 'a request GitHub refuses for a rate limit is asked again after the wait it gives, by the one limiter',
    file: 'app/gateway/conditional.ts',
    from: '      if (!limitRefusal(e)) {',
    to: '      if (true) {',
    tests: ['test/gateway/client.test.ts'],
  },
  {
    claim: "a 403 for a permission is never asked again (the limiter's refusals are rate limits only)",
    file: 'app/gateway/limit-model.ts',
    from: "  return typeof error.message === 'string' && /\\brate limit\\b/i.test(error.message);",
    to: '  return true;',
    tests: ['test/gateway/client.test.ts'],
  },
  {
    claim: "the App's Octokit leaves GitHub's limits to harness's limiter (Probot's throttling off)",
    file: 'app/github/app-octokit.ts',
    from: '  throttle: { ...(options.throttle as object | undefined), enabled: false },',
    to: '  throttle: { ...(options.throttle as object | undefined), enabled: true },',
    tests: ['test/github/app-octokit.test.ts'],
  },
  {
    claim: "a request body field GitHub's OpenAPI description does not name fails the test that sent it (REST fake check)",
    file: 'test/helpers/github-openapi.ts',
    from: '  if (out.properties && out.additionalProperties === undefined && !inAllOf) out.additionalProperties = false;',
    to: '  void inAllOf;',
    tests: ['test/helpers/github-openapi.test.ts'],
  },
  {
    claim: 'the App sends only fields GitHub documents: a misspelt one fails the existing tests, though GitHub would ignore it (REST fake check)',
    file: 'app/gateway/labels.ts',
    from: '      ...(label.description ? { description: label.description } : {}),',
    to: '      ...(label.description ? { descripton: label.description } : {}),',
    tests: ['test/gateway/one-issue-per-plan.test.ts', 'test/gateway/status-writes.test.ts'],
  },
  {
    claim: 'the fake GitHub answers only statuses GitHub documents, checked as the existing tests use it (REST fake check)',
    file: 'test/helpers/github-repo.ts',
    from: '      return [201, this.commentJson(comment)];',
    to: '      return [200, this.commentJson(comment)];',
    tests: ['test/gateway/create-once.test.ts', 'test/gateway/one-issue-per-plan.test.ts'],
  },
  {
    claim: 'a process in the middle of its exec when the tag is looked for is looked at again, not left running (tag containment)',
    file: 'app/machine/process-group.ts',
    from: '    if (!pass.unsettled || looksLeft-- === 0) return reaped;',
    to: '    return reaped;',
    tests: ['test/machine/process-group.test.ts'],
  },
  {
    claim: 'a kernel thread is never waited on as a process in its exec (tag containment)',
    file: 'app/machine/process-group.ts',
    from: ' && (Number(fields[6]) & KERNEL_THREAD) === 0',
    to: '',
    tests: ['test/machine/process-group.test.ts'],
  },
  {
    claim: "a reap that waits to look again keeps harness's process alive (no exit 13 with the reap unsettled)",
    file: 'app/machine/process-group.ts',
    from: '  const pause = looks.pause ?? (() => new Promise((resolve) => setTimeout(resolve, UNSETTLED_WAIT_MS)));',
    to: '  const pause = looks.pause ?? (() => wait(UNSETTLED_WAIT_MS));',
    tests: ['test/machine/process-group.test.ts'],
  },
];
