import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildWorkerPrompt } from '../../app/engine/core/agents/prompt.js';
import { executorInstructions } from '../../app/agents/executor-instructions.js';
import { CommandAgent } from '../../app/agents/command.js';
import { ClaudeAgent } from '../../app/agents/claude.js';
import { agentFor } from '../../app/agents/registry.js';
import { ScriptAgent } from '../../app/agents/script.js';
import { commitsSince, ENVELOPE, makeRepo, planFrom, SPEC, testWorker } from '../helpers/agent-context.js';
import { FIXTURES } from '../helpers/paths.js';

const PROTOCOL_COMMAND = `"${process.execPath}" "${join(FIXTURES, 'agents/protocol-command.mjs')}"`;

const PLAN = (autonomous = true) =>
  [
    '---',
    'plan_id: "01-02"',
    'title: Paint the walls',
    'files_modified: ["*.txt"]',
    `autonomous: ${autonomous}`,
    'must_pass:',
    '  - { id: painted, type: file_exists, path: color.txt }',
    '---',
    '# Paint the walls',
    '',
    'Paint them.',
  ].join('\n');

const progress = (message: string) => ({ ...ENVELOPE, type: 'progress_update', plan: '01-02', message });

describe('command agent', () => {
  it('gives the command the brief on stdin, reports its output and commits what it left', async () => {
    const { repo, logDir, base } = await makeRepo();
    const stdinCopy = join(logDir, '..', 'stdin.txt');
    const command = [
      'cat > "$STDIN_COPY"',
      'echo "working on $HARNESS_PLAN"',
      `echo '{"type":"progress_update","session":"theirs","at":"2024-01-01T00:00:00.000Z","plan":"99-99","message":"halfway","task":1,"total":2}'`,
      'echo "a warning" >&2',
      'echo red > color.txt',
    ].join('\n');
    const plan = planFrom(PLAN());
    const worker = testWorker({ repo, logDir, plan, env: { STDIN_COPY: stdinCopy } });
    await new CommandAgent({ command }).run(worker.context);

    const commits = await commitsSince(repo, base);
    expect(commits.map((c) => c.message)).toEqual([`01-02: Paint the walls\n\n- added color.txt\n\nPlan: 01-02\nTask: 1/1\nSpec: ${SPEC}\n`]);
    expect(worker.messages).toEqual([
      { ...ENVELOPE, type: 'session_ready', agent: 'command' },
      progress('working on 01-02'),
      // A protocol line is forwarded in the worker's own session and plan.
      { session: ENVELOPE.session, at: '2024-01-01T00:00:00.000Z', type: 'progress_update', plan: '01-02', message: 'halfway', task: 1, total: 2 },
      { ...progress(`committed the file the agent left uncommitted as ${commits[0]!.sha.slice(0, 7)}`), task: 1, total: 1 },
      { ...ENVELOPE, type: 'task_completed', plan: '01-02', commits: [commits[0]!.sha], summary: `\`${command}\` finished` },
    ]);
    expect(await readFile(stdinCopy, 'utf8')).toBe(
      buildWorkerPrompt(plan, {
        spec: SPEC,
        checkpoints: 'none',
        answers: {},
        commits: [],
        instructions: await executorInstructions(worker.context.task.worktree),
      }),
    );
    expect(await readFile(join(logDir, 'command.log'), 'utf8')).toContain('a warning\n');
  });

  it('fails the task when the command exits non-zero, with the end of its output', async () => {
    const { repo, logDir, base } = await makeRepo();
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN()) });
    await new CommandAgent({ command: 'echo building; echo red > color.txt; echo "no paint left" >&2; exit 3' }).run(worker.context);
    expect(worker.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_failed',
      plan: '01-02',
      retryable: false,
      error: 'the command exited with code 3\nbuilding\nno paint left',
    });
    expect(await commitsSince(repo, base)).toEqual([]);
  });

  it('asks the checkpoints of a command that speaks the protocol and writes the answer to its stdin', async () => {
    const { repo, logDir, base } = await makeRepo();
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN(false)) });
    const running = new CommandAgent({ command: PROTOCOL_COMMAND, protocol: true }).run(worker.context);
    const asked = await worker.waitFor('decision_needed');
    expect(asked).toEqual({
      ...ENVELOPE,
      type: 'decision_needed',
      plan: '01-02',
      checkpoint: { id: 'color', kind: 'decision', prompt: 'Which color?', options: ['red', 'blue'] },
    });
    worker.respond({ ...ENVELOPE, type: 'decision_made', checkpoint: 'color', answer: 'blue' });
    await running;

    const commits = await commitsSince(repo, base);
    expect(worker.messages).toEqual([
      { ...ENVELOPE, type: 'session_ready', agent: 'command' },
      { session: ENVELOPE.session, at: '2024-01-01T00:00:00.000Z', type: 'task_started', plan: '01-02', task: 1, total: 1, title: 'Paint' },
      progress('looking at the walls'),
      asked,
      progress('checkpoint color answered: blue'),
      { ...progress(`committed the file the agent left uncommitted as ${commits[0]!.sha.slice(0, 7)}`), task: 1, total: 1 },
      { ...ENVELOPE, type: 'task_completed', plan: '01-02', commits: [commits[0]!.sha], summary: 'painted blue' },
    ]);
    expect(await readFile(join(repo, 'color.txt'), 'utf8')).toBe('blue\n');
  });

  it('replays a recorded answer to a restarted command instead of asking again', async () => {
    const { repo, logDir } = await makeRepo();
    const failOnce = join(logDir, '..', 'failed-once');
    const first = testWorker({
      repo,
      logDir,
      plan: planFrom(PLAN(false)),
      env: { FAIL_ONCE: failOnce },
      answer: (cp) => ({ ...ENVELOPE, type: 'decision_made', checkpoint: cp.id, answer: 'red' }),
    });
    await new CommandAgent({ command: PROTOCOL_COMMAND, protocol: true }).run(first.context);
    expect(first.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_failed',
      plan: '01-02',
      retryable: true,
      error: 'the command exited with code 1: the paint ran out\nlooking at the walls',
    });

    const second = testWorker({ repo, logDir, plan: planFrom(PLAN(false)), env: { FAIL_ONCE: failOnce }, resume: true });
    await new CommandAgent({ command: PROTOCOL_COMMAND, protocol: true }).run(second.context);
    expect(second.asked).toEqual([]);
    expect(second.messages).toContainEqual(progress('checkpoint color already answered: red'));
    expect(second.messages.at(-1)).toMatchObject({ type: 'task_completed', summary: 'painted red' });
    expect(await readFile(join(repo, 'color.txt'), 'utf8')).toBe('red\n');
  });

  it('fails a command that asks for a person without speaking the protocol', async () => {
    const { repo, logDir } = await makeRepo();
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN(false)) });
    const ask = `echo '{"type":"decision_needed","session":"x","at":"2024-01-01T00:00:00.000Z","plan":"01-02","checkpoint":{"id":"c","kind":"decision","prompt":"?"}}'; sleep 30`;
    await new CommandAgent({ command: ask }).run(worker.context);
    expect(worker.asked).toEqual([]);
    expect(worker.messages.at(-1)).toEqual({
      ...ENVELOPE,
      type: 'task_failed',
      plan: '01-02',
      retryable: false,
      error: 'the command asked for a person (decision_needed) but does not speak the protocol, so it cannot hear the answer: set protocol: true',
    });
  });
});

describe('agentFor', () => {
  it('returns the agent a plan names, configured', () => {
    expect(agentFor('script')).toBeInstanceOf(ScriptAgent);
    expect(agentFor('claude', { claude: { maxTurns: 5 } })).toBeInstanceOf(ClaudeAgent);
    expect(agentFor('command', { command: { command: 'make agent' } })).toBeInstanceOf(CommandAgent);
    expect(agentFor('command', { command: { command: 'make agent' } }).name).toBe('command');
  });

  it('names the known agents when asked for another, and asks for the command of the command agent', () => {
    expect(() => agentFor('aider')).toThrow('unknown agent "aider"; known agents: script, claude, command, codex, copilot, gemini');
    expect(() => agentFor('command')).toThrow('the command agent needs a command to run: configure command: { command: "…" }');
  });
});
