import { planningWords, type PlanningCommand } from './planning-command.js';

export interface PlanningAnswerInput {
  command: PlanningCommand;
  spec: string;
  /** Where the documents went: the PR's branch, or this checkout's branch. */
  branch: string;
  outcome:
    | {
        kind: 'committed';
        sha: string;
        files: readonly string[];
        retries: readonly { stage: string; problems: readonly string[] }[];
        discarded: readonly string[];
        redactions: readonly string[];
        earlier?: readonly string[];
      }
    | {
        kind: 'failed';
        reason: string;
        problems: readonly string[];
        retries: readonly { stage: string; problems: readonly string[] }[];
        earlier?: readonly string[];
      };
  /** The worker run, for the details. */
  runUrl?: string;
  /** How a file is linked: a URL on GitHub, a path locally. */
  link?: (path: string) => string;
}

/** What to read in the new documents, and what usually comes next. */
function lookAt(command: PlanningCommand): string {
  switch (command.name) {
    case 'plan-spec':
      return 'Check that PROJECT.md says what the project is for, its constraints and what is out of scope, as you meant them; its open questions are yours to answer in SPEC.md. Next: `research-spec` or `define-requirements`.';
    case 'research-spec':
      return 'Start with SUMMARY.md: its recommendations, and every finding of low confidence or marked not found, are where your judgement is needed. Next: `define-requirements`.';
    case 'define-requirements':
      return "Check that every requirement is one you want, testable as written; those marked (proposed) are the agent's suggestions. Next: `create-roadmap`.";
    case 'create-roadmap':
      return "Check the order of the phases, each phase's success criteria and the `must_pass` checks that prove them: those checks decide when a phase is done. Next: `plan-phase 01` (or `discuss-phase 01` first).";
    case 'add-phase':
      return "Check the new phase's goal, success criteria and `must_pass`. Next: `plan-phase` for it.";
    case 'discuss-phase':
      return `Answer the questions in this conversation, then run \`discuss-phase ${command.phase}\` again: the answers become the phase's context, which \`plan-phase ${command.phase}\` reads.`;
    case 'research-phase':
      return `Check the findings of low confidence and anything marked not found before \`plan-phase ${command.phase}\` relies on them.`;
    case 'plan-phase':
      return `Read the verifier's verdict first (\`planning/checks/phase-${command.phase}-plans.md\`): its gaps are where the plans fall short of the phase's success criteria. Then check each plan's \`depends_on\` (only what it truly needs), its \`files_modified\` (plans that share a file never run at once) and its \`must_pass\` (what proves it done). When they are right: \`execute\` them.`;
    case 'map-codebase':
      return 'CONCERNS.md is the one to read first; the others are a reference for planning.';
  }
}

/** The answer in the PR's conversation (or the terminal) after a planning command. */
export function planningAnswer(input: PlanningAnswerInput): string {
  const { command, outcome } = input;
  const link = input.link ?? ((p: string) => `\`${p}\``);
  const words = `\`${planningWords(command)}\``;
  const run = input.runUrl ? ` ([run](${input.runUrl}))` : '';
  const lines: string[] = [];
  if (outcome.kind === 'committed') {
    lines.push(
      `${words} for ${input.spec} wrote ${outcome.files.length} file${outcome.files.length === 1 ? '' : 's'} to \`${input.branch}\` in ${outcome.sha.slice(0, 7)}${run}:`,
      '',
    );
    lines.push(...outcome.files.map((f) => `- ${link(f)}`), '', lookAt(command));
    for (const r of outcome.retries) {
      lines.push(
        '',
        `The first try of ${r.stage} was refused and written again; it had ${r.problems.length === 1 ? 'this problem' : 'these problems'}:`,
        '',
        ...r.problems.map((p) => `- \`${p}\``),
      );
    }
    if (outcome.discarded.length > 0)
      lines.push('', `Put back, written outside the command's documents: ${outcome.discarded.map((p) => `\`${p}\``).join(', ')}.`);
    if (outcome.redactions.length > 0) lines.push('', `Secrets taken out before the commit: ${outcome.redactions.map((p) => `\`${p}\``).join(', ')}.`);
    lines.push(...earlierLines(words, outcome.earlier, 'the new documents were committed with'));
  } else {
    lines.push(`${words} for ${input.spec} did not commit anything${run}: ${outcome.reason}.`);
    if (outcome.problems.length > 0) lines.push('', ...outcome.problems.map((p) => `- \`${p}\``));
    if (outcome.retries.length > 0)
      lines.push('', `The agent had one more try with the problems of its first (${outcome.retries.map((r) => r.stage).join(', ')}).`);
    lines.push(...earlierLines(words, outcome.earlier, 'nothing was committed for what is said above, not for'));
    lines.push('', `Fix what is said above (the spec, or .github/harness/agents/ if the instructions are at fault) and write ${words} again.`);
  }
  return lines.join('\n');
}

/** Problems in what was written before the command ran (a plan a person wrote, or imported): theirs, said as such. */
function earlierLines(words: string, earlier: readonly string[] | undefined, effect: string): string[] {
  if (earlier === undefined || earlier.length === 0) return [];
  return [
    '',
    `Already so before ${words} ran, in the documents as they were written before it: the agent was not asked to fix ${earlier.length === 1 ? 'this' : 'these'}, and ${effect} ${earlier.length === 1 ? 'it' : 'them'}:`,
    '',
    ...earlier.map((p) => `- \`${p}\``),
  ];
}
