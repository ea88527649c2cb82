/**
 * The answer to `/harness help` and to any line that does not parse. No line of it starts
 * with `/harness`: the App reads its own comments like anyone's, and must find no command there.
 */
export function helpText(problem?: string): string {
  const lines: string[] = [];
  if (problem !== undefined) lines.push(`I could not run that: ${problem}.`, '');
  lines.push(
    'harness understands these commands, written at the start of a line of an issue or pull request comment:',
    '',
    '| command | does | who |',
    '|---|---|---|',
    '| `/harness execute all`, `… execute 03`, `… execute 03-02` | queues the plans (ready when what they need is verified, else blocked) and starts what can run | write access |',
    "| `/harness status` | the spec's progress, plan by plan | anyone |",
    '| `/harness verify 03` or `… verify 03-02` | runs phase- or plan-level verification again | write access |',
    '| `/harness retry 03-02` | starts a failed plan afresh (its branch is deleted) | write access |',
    "| `/harness abort 03-02` | cancels the plan's worker runs and marks it failed | write access |",
    "| `/harness respond 03-02 <answer…>` | answers the plan's checkpoint; the worker resumes | write access |",
    '| `/harness spike "<question>"` | opens a spike\'s knowledge PR and starts its worker, which drafts the hypothesis and the experiment, runs it and writes the decision there | write access |',
    '| `/harness reflect` | reads the merged signals no lesson cites yet; opens a lesson PR for each pattern that recurs, and one adding evidence to a lesson that already says it | write access |',
    "| `/harness retrospective [SPEC]` | reviews the spec's run for skills: every candidate with each of the four gates' verdicts, extracted and skipped alike; opens a skill PR for each extracted one; `/harness retrospective [SPEC/]PP-NN` asks for a skill from that plan's repair though it did not recur | write access |",
    "| `/harness audit` | the skills pending review (their open PRs), each active skill's matches, uses, success and age from the trajectory, and the ones to prune (unused, rarely matched, superseded) | write access |",
    '| `/harness help` | this | anyone |',
    '',
    "On a spec pull request, planning: each command runs an agent on the worker, which commits documents to the pull request's branch and answers here with what it wrote. Nothing that does not validate is committed.",
    '',
    '| command | writes | who |',
    '|---|---|---|',
    '| `/harness plan-spec` | `planning/PROJECT.md` from SPEC.md | write access |',
    '| `/harness research-spec` | `planning/research/`: stack, features, architecture, pitfalls, and a summary | write access |',
    '| `/harness define-requirements` | `planning/REQUIREMENTS.md` | write access |',
    '| `/harness create-roadmap` | `ROADMAP.md`: phases with goals, success criteria and `must_pass` | write access |',
    '| `/harness discuss-phase 03` | questions about the phase, posted here; run it again after answering, for `planning/discuss/phase-03-context.md` | write access |',
    '| `/harness research-phase 03` | `planning/research/phase-03-research.md` | write access |',
    "| `/harness plan-phase 03` | the phase's PLAN.md files, goal-backward from its success criteria | write access |",
    '| `/harness add-phase "<goal>"` | one more phase in `ROADMAP.md` | write access |',
    '| `/harness map-codebase` | `planning/codebase/`: structure, stack, patterns, integrations, testing, concerns | write access |',
    '',
    "On a plan issue the spec is the issue's; on a spec pull request, the spec it changes. To name the spec, write it before the target: `SPC-002/03-02`, `SPC-002/all`, `status SPC-002`.",
    'Only the first `/harness` line of a comment counts, and none inside a code block.',
  );
  return lines.join('\n');
}
