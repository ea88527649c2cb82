import { quotedAnswer } from './quoted-answer.js';
import type { BriefKnowledge } from '../protocol/messages.js';
import type { Check, Plan } from '../spec/model.js';
import { CHECKPOINT_MARKER } from './checkpoint-line.js';
import { insightInstructions } from './insight-line.js';
import { knowledgeBrief } from './knowledge-brief.js';
import { parsePlanTasks, type CheckpointTask, type StepTask } from './tasks.js';

/**
 * The brief a coding agent works from: the plan itself, plus what the agent cannot see in it —
 * which files are its own, how its work will be judged, how to ask a person, how to commit.
 * It is plain Markdown so that any agent (Claude Code, a command) can read it on stdin or argv.
 */

export interface PromptOptions {
  /** The spec id, for commit trailers. */
  spec: string;
  /**
   * How the agent asks a person: `line` ends its turn with a HARNESS_CHECKPOINT line (agents
   * that only print text), `protocol` writes a decision_needed message on stdout and reads the
   * answer from stdin (commands that speak the worker protocol), `none` cannot ask at all.
   */
  checkpoints: 'line' | 'protocol' | 'none' | 'mcp';
  /** Checkpoints answered in an earlier attempt: never asked again. */
  answers?: Readonly<Record<string, string>>;
  /** Commits the plan already has on its branch, when an interrupted attempt is resumed. */
  commits?: { sha: string; subject: string }[];
  /** What harness has learned that applies to the plan (assign_task's `knowledge`), best first. */
  knowledge?: readonly BriefKnowledge[];
  /** How to work: the executor's instructions (templates/agents/executor.md, or the repository's own). */
  instructions?: string;
  /**
   * The agent's sandbox keeps the repository's git metadata read-only (Codex's workspace-write
   * does, by design: a hook written there would run outside it), so it cannot commit: the brief
   * says harness commits its work, rather than asking for commits that fail.
   */
  gitReadOnly?: boolean;
  /** Another engine stopped at its usage limit on this attempt: what it did and where it stopped (agents.fallback). */
  handoff?: string;
}

export function buildWorkerPrompt(plan: Plan, options: PromptOptions): string {
  const { steps, checkpoints } = parsePlanTasks(plan.body, plan.bodyLine);
  const out = [
    ...introSection(plan, options),
    ...goalSection(plan),
    ...filesSection(plan),
    ...stepsSection(steps),
    ...['## The plan', '', plan.body.trim(), ''],
    ...learnedSection(options),
    ...checkedSection(plan),
    ...personSection(plan, options, checkpoints),
    ...insightSection(options),
    ...commitsSection(plan, options),
  ];
  return `${out.join('\n').trimEnd()}\n`;
}

/** The title, the worker's role, and what the caller adds: how to work, and a handoff from another engine. */
function introSection(plan: Plan, options: PromptOptions): string[] {
  const out = [`# Plan ${plan.id} of ${options.spec}: ${plan.title}`, ''];
  out.push(
    'You are a worker: you carry out this one plan in the current directory, a git checkout of the plan’s own branch. ' +
      'Other plans run at the same time in other checkouts. When you are done, the orchestrator checks your work; ' +
      'you do not merge, push or open pull requests.',
    '',
  );
  if (options.instructions?.trim()) out.push('## How to work', '', options.instructions.trim(), '');
  if (options.handoff?.trim()) out.push('## Taking over', '', options.handoff.trim(), '');
  return out;
}

/** The plan's title, its truths and the requirements it serves. */
function goalSection(plan: Plan): string[] {
  const out = ['## Goal', '', plan.title];
  if (plan.truths.length > 0) out.push('', 'When you are done, these hold:', ...plan.truths.map((t) => `- ${t}`));
  if (plan.requirements.length > 0) out.push('', `Requirements: ${plan.requirements.join(', ')}.`);
  out.push('');
  return out;
}

/** The files the plan may change, and those worth reading. */
function filesSection(plan: Plan): string[] {
  const out = ['## Files', ''];
  if (plan.filesModified.length > 0) {
    out.push('You may change only these (globs); other plans own the rest:', ...plan.filesModified.map((f) => `- ${f}`));
  } else out.push('The plan names no files it changes: change as little as the goal needs.');
  if (plan.filesRead.length > 0) out.push('', 'You will want to read:', ...plan.filesRead.map((f) => `- ${f}`));
  out.push('');
  return out;
}

/** The steps the plan's body marks, in order (none: no section). */
function stepsSection(steps: readonly StepTask[]): string[] {
  if (steps.length === 0) return [];
  return ['## Steps', '', 'The plan breaks the work into these steps; do them in order:', ...steps.map((s) => `${s.index}. ${s.title}`), ''];
}

/** What harness has learned that applies to the plan (none: no section). */
function learnedSection(options: PromptOptions): string[] {
  const learned = knowledgeBrief(options.knowledge ?? []);
  return learned.length > 0 ? [...learned, ''] : [];
}

/** The checks the orchestrator runs on the branch afterwards. */
function checkedSection(plan: Plan): string[] {
  const out = ['## How your work is checked', ''];
  if (plan.mustPass.length > 0) {
    out.push('After you finish, the orchestrator runs these checks on your branch; every one must pass:', ...plan.mustPass.map((c) => `- ${describeCheck(c)}`));
    out.push('', 'Run the machine checks yourself before you finish, and fix what fails.');
  } else out.push('The plan lists no checks: make the goal observably true.');
  out.push('');
  return out;
}

/** How to ask a person, the checkpoints the plan foresees, and those already answered. */
function personSection(plan: Plan, options: PromptOptions, checkpoints: readonly CheckpointTask[]): string[] {
  const out = ['## When you need a person', '', ...askingInstructions(plan, options)];
  const planned = checkpoints.map((c) => `- ${c.id} (${c.type}): ${c.prompt.split('\n')[0]}`);
  if (planned.length > 0) out.push('', 'The plan itself foresees these checkpoints:', ...planned);
  const answers = Object.entries(options.answers ?? {});
  if (answers.length > 0) {
    // Each answer as quoted data, bounded: a person's words, never instructions to the agent.
    out.push('', 'Already answered (do not ask again):', ...answers.map(([id, answer]) => `- ${id}:\n${quotedAnswer(answer)}`));
  }
  out.push('');
  return out;
}

/** How this agent asks a person, by its way of checkpointing (or that it does not ask). */
function askingInstructions(plan: Plan, options: PromptOptions): string[] {
  if (plan.autonomous || options.checkpoints === 'none') {
    return [
      `${plan.autonomous ? 'This plan is autonomous' : 'You cannot reach a person during this run'}: do not stop to ask. ` +
        `Make the reasonable choice, and say what you chose and why in ${options.gitReadOnly ? 'your final message' : 'the commit message'}.`,
    ];
  }
  if (options.checkpoints === 'mcp') {
    return [
      ...mcpInstructions(),
      '',
      'If the harness tools are not available to you, end your turn instead with one last line, exactly:',
      '',
      `    ${CHECKPOINT_MARKER} {"kind":"decision","id":"storage","prompt":"Which store should notes use?","options":["memory","file"]}`,
    ];
  }
  if (options.checkpoints === 'line') {
    return [
      'When you need a decision, a verification or an action from a person, stop working and end your turn with one last line, exactly:',
      '',
      `    ${CHECKPOINT_MARKER} {"kind":"decision","id":"storage","prompt":"Which store should notes use?","options":["memory","file"]}`,
      '',
      '`kind` is decision, verification or action; `id` is a short stable name for the question; `options` is optional. ' +
        'Leave your work in place (uncommitted is fine): the session is resumed with the person’s answer.',
    ];
  }
  return [
    'When you need a decision, a verification or an action from a person, write one line of JSON on stdout:',
    '',
    '    {"type":"decision_needed","session":"…","at":"…","plan":"…","checkpoint":{"id":"storage","kind":"decision","prompt":"Which store?","options":["memory","file"]}}',
    '',
    '(or verification_needed, action_needed) and read the answer as one line of JSON on stdin ' +
      '(decision_made, verification_result, action_completed or abort_task).',
  ];
}

/** How to report insights (none: no section). */
function insightSection(options: PromptOptions): string[] {
  // An agent that cannot speak the protocol can still print a line.
  const insights = insightInstructions(options.checkpoints === 'protocol' ? 'protocol' : 'line');
  return insights.length > 0 ? [...insights, ''] : [];
}

/** How to commit (or that harness commits), and the commits an earlier attempt or engine left on the branch. */
function commitsSection(plan: Plan, options: PromptOptions): string[] {
  const out = ['## Commits', ''];
  if (options.gitReadOnly) {
    out.push(
      'Do not run git commit (or anything else that writes to git): your sandbox keeps the repository’s git metadata read-only, so it would fail. ' +
        `When you finish, everything you changed is committed for you as "${plan.id}: ${plan.title}" with the plan’s trailers, so do not leave scratch files behind.`,
    );
  } else {
    out.push(
      'Commit each coherent piece of work as you go, one commit per piece. The subject is ' +
        `"${plan.id}: <what it does>"; the message ends with a blank line and these trailers:`,
      '',
      `    Plan: ${plan.id}`,
      `    Spec: ${options.spec}`,
      '',
      'Never amend, rebase or reset commits that are already on the branch. ' +
        'Whatever is left uncommitted when you finish is committed for you, so do not leave scratch files behind.',
    );
  }
  if (options.commits && options.commits.length > 0) {
    out.push(
      '',
      options.handoff !== undefined
        ? 'These commits are already on the branch, made before you took the plan over; build on them and do not redo their work:'
        : 'An earlier attempt at this plan was interrupted. These commits are already on the branch; build on them and do not redo their work:',
      ...options.commits.map((c) => `- ${c.sha.slice(0, 7)} ${c.subject}`),
    );
  }
  return out;
}

/** One line saying what a check demands, in the words a worker needs to satisfy it. */
export function describeCheck(check: Check): string {
  const id = `${check.id}: `;
  switch (check.type) {
    case 'file_exists':
      return `${id}the file ${check.path} exists`;
    case 'file_contains':
      return `${id}${check.path} contains ${check.contains !== undefined ? JSON.stringify(check.contains) : `a match for /${check.pattern}/`}`;
    case 'command_output': {
      const expect: string[] = [];
      if (check.expect.exit_code !== undefined) expect.push(`exits ${check.expect.exit_code}`);
      if (check.expect.contains !== undefined) expect.push(`prints ${JSON.stringify(check.expect.contains)}`);
      if (check.expect.matches !== undefined) expect.push(`prints a match for /${check.expect.matches}/`);
      return `${id}\`${check.command}\` ${expect.join(' and ')}`;
    }
    case 'build_succeeds':
      return `${id}the build \`${check.command}\` succeeds`;
    case 'tests_pass':
      return `${id}the tests \`${check.command}\` pass`;
    case 'api_response':
      return `${id}${check.request} answers ${JSON.stringify(check.expect)}`;
    case 'ui_element_exists':
      return `${id}the page ${check.url} shows ${check.selector}${check.text ? ` with text ${JSON.stringify(check.text)}` : ''}`;
    case 'ui_navigation':
      return `${id}navigating from ${check.url} (${check.steps.length} step${check.steps.length === 1 ? '' : 's'}) ends at ${JSON.stringify(check.expect)}`;
    case 'human':
      return `${id}a person judges (${check.kind}): ${check.prompt}`;
    case 'artifact':
      return `${id}${check.path} exists${check.min_lines ? ` with at least ${check.min_lines} lines` : ''}${check.exports ? `, exporting ${check.exports.join(', ')}` : ''}${check.contains ? `, containing ${JSON.stringify(check.contains)}` : ''}`;
    case 'key_link':
      return `${id}${check.from} is wired to ${check.to}${check.via ? ` via ${check.via}` : ''}${check.pattern ? ` (matching /${check.pattern}/)` : ''}`;
  }
}

/** How an agent with the harness MCP server reports and asks (app/agents/mcp). */
export function mcpInstructions(): string[] {
  return [
    'You have two harness tools (MCP server "harness"); they are how the orchestrator, and the people behind it, follow your work:',
    '- `harness_worker_report` with `type`: `session_ready` once at the start; `task_started` (task, total, title) when you begin each part of the plan; ' +
      '`progress_update` (message) after each meaningful step, not after every command; `task_completed` (message: what you did) or `task_failed` (message: why) at the very end.',
    '- When you need a person (a decision, a verification, an action only they can do): report `decision_needed`, `verification_needed` or `action_needed` ' +
      'with a short `checkpoint` id, the question as `message` and, for a decision, up to three `options`; then call `harness_worker_await` with the same id ' +
      'and continue with the answer it returns. If it tells you to stop, end your turn at once and leave your work in place: the session is resumed with the answer later.',
  ];
}
