import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerEnvName, answerOf, responseFor } from '../../../../app/engine/core/agents/answers.js';
import { fileListBody, formatCommitMessage, parseTrailers, taskOf, taskTrailers } from '../../../../app/engine/core/agents/commit-message.js';
import { buildWorkerPrompt } from '../../../../app/engine/core/agents/prompt.js';
import { parsePlanTasks } from '../../../../app/engine/core/agents/tasks.js';
import { parsePlan } from '../../../../app/engine/core/spec/plan.js';
import { ENVELOPE, planFrom } from '../../../helpers/agent-context.js';
import { EXAMPLE_SPEC } from '../../../helpers/paths.js';

const FENCE = '```';

describe('parsePlanTasks', () => {
  it('finds the same steps as the plan parser, in every example plan', async () => {
    const root = join(EXAMPLE_SPEC, 'planning/plans');
    const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith('PLAN.md'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const plan = parsePlan(file, await readFile(join(root, file), 'utf8'), file.slice(0, 2)).plan!;
      const { steps, problems } = parsePlanTasks(plan.body, plan.bodyLine);
      expect(problems).toEqual([]);
      expect(steps.map(({ title, lang, script, line }) => ({ title, lang, script, line }))).toEqual(plan.steps);
    }
  });

  it('reads checkpoints between steps, with their options, default and id', () => {
    const body = [
      `${FENCE}sh step Create the store`,
      'touch store.js',
      FENCE,
      '',
      `${FENCE}checkpoint decision Storage backend`,
      'Which store should the service use?',
      'It decides what the server starts with.',
      'options: memory, file',
      'default: memory',
      FENCE,
      '',
      `~~~checkpoint verification`,
      'id: looks.right',
      '~~~',
      `${FENCE}checkpoint action Storage backend`,
      'Create the bucket.',
      FENCE,
      `${FENCE}bash step`,
      'echo "$HARNESS_ANSWER_STORAGE_BACKEND"',
      FENCE,
    ].join('\n');
    expect(parsePlanTasks(body, 20)).toEqual({
      tasks: [
        { kind: 'step', index: 1, title: 'Create the store', lang: 'sh', script: 'touch store.js', line: 20 },
        {
          kind: 'checkpoint',
          id: 'storage-backend',
          type: 'decision',
          title: 'Storage backend',
          prompt: 'Which store should the service use?\nIt decides what the server starts with.',
          options: ['memory', 'file'],
          default: 'memory',
          line: 24,
        },
        { kind: 'checkpoint', id: 'looks.right', type: 'verification', title: 'Checkpoint 2', prompt: 'Checkpoint 2', line: 31 },
        { kind: 'checkpoint', id: 'storage-backend-2', type: 'action', title: 'Storage backend', prompt: 'Create the bucket.', line: 34 },
        { kind: 'step', index: 2, title: 'Step 2', lang: 'bash', script: 'echo "$HARNESS_ANSWER_STORAGE_BACKEND"', line: 37 },
      ],
      steps: expect.any(Array),
      checkpoints: expect.any(Array),
      problems: [],
    });
  });

  it('reports what it cannot use, with the line', () => {
    const body = [
      `${FENCE}checkpoint decide Which?`,
      FENCE,
      `${FENCE}checkpoint decision Store`,
      'options: a, b',
      'default: c',
      'id: no spaces',
      FENCE,
      `${FENCE}sh step Unclosed`,
      'echo',
    ].join('\n');
    expect(parsePlanTasks(body, 1).problems).toEqual([
      { line: 1, message: 'checkpoint kind "decide" is not one of decision, verification, action: write ```checkpoint decision <title>' },
      { line: 3, message: 'checkpoint id "no spaces" may hold only letters, digits, "_", "." and "-"' },
      { line: 3, message: 'checkpoint "no spaces": default "c" is not one of its options (a, b)' },
      { line: 8, message: 'the block opened here is never closed with ```' },
    ]);
  });
});

describe('commit messages', () => {
  it('formats a task commit and reads its trailers back', () => {
    const message = formatCommitMessage({
      subject: '01-02: Write src/store/memory.js',
      body: fileListBody([
        { status: 'A', path: 'src/store/memory.js' },
        { status: 'M', path: '#notes.md' },
        { status: 'D', path: 'old.js' },
      ]),
      trailers: taskTrailers('SPC-001', '01-02', 2, 3),
    });
    expect(message).toBe(
      '01-02: Write src/store/memory.js\n\n- added src/store/memory.js\n- modified #notes.md\n- deleted old.js\n\nPlan: 01-02\nTask: 2/3\nSpec: SPC-001\n',
    );
    const trailers = parseTrailers(message);
    expect(trailers).toEqual([
      { key: 'Plan', value: '01-02' },
      { key: 'Task', value: '2/3' },
      { key: 'Spec', value: 'SPC-001' },
    ]);
    expect(taskOf(trailers, 'SPC-001', '01-02')).toEqual({ task: 2, total: 3 });
    expect(taskOf(trailers, 'SPC-001', '01-03')).toBeUndefined();
    expect(taskOf(trailers, 'SPC-002', '01-02')).toBeUndefined();
  });

  it('finds trailers only in a last paragraph made of them', () => {
    expect(parseTrailers('subject only: not a trailer')).toEqual([]);
    expect(parseTrailers('subject\n\nPlan: 01-02\nand some prose')).toEqual([]);
    expect(parseTrailers('subject\n\nPlan: 01-02\n\nbody after')).toEqual([]);
    expect(taskOf(parseTrailers('s\n\nPlan: 01-02\nTask: 4/3\nSpec: S-1'), 'S-1', '01-02')).toBeUndefined();
  });

  it('lists at most 50 files', () => {
    const files = Array.from({ length: 53 }, (_, i) => ({ status: 'A', path: `f${i}` }));
    expect(fileListBody(files).split('\n').slice(-2)).toEqual(['- added f49', '- … and 3 more']);
    expect(fileListBody([])).toBe('No files changed.');
  });
});

describe('answers', () => {
  const checkpoint = { id: 'storage-backend', kind: 'decision' as const, prompt: 'Which?' };

  it('names the environment variable after the checkpoint id', () => {
    expect(answerEnvName('storage-backend')).toBe('HARNESS_ANSWER_STORAGE_BACKEND');
    expect(answerEnvName('looks.right')).toBe('HARNESS_ANSWER_LOOKS_RIGHT');
  });

  it('accepts only the answer the checkpoint waits for', () => {
    expect(answerOf(checkpoint, { ...ENVELOPE, type: 'decision_made', checkpoint: 'storage-backend', answer: 'file' })).toEqual({ ok: true, answer: 'file' });
    expect(answerOf(checkpoint, { ...ENVELOPE, type: 'decision_made', checkpoint: 'other', answer: 'file' })).toEqual({
      ok: false,
      aborted: false,
      error: 'the answer is for checkpoint "other", but the worker waits at "storage-backend"',
    });
    expect(answerOf(checkpoint, { ...ENVELOPE, type: 'action_completed', checkpoint: 'storage-backend' })).toEqual({
      ok: false,
      aborted: false,
      error: 'checkpoint "storage-backend" (decision) needs decision_made, got action_completed',
    });
    const action = { ...checkpoint, kind: 'action' as const };
    expect(answerOf(action, { ...ENVELOPE, type: 'action_completed', checkpoint: 'storage-backend' })).toEqual({ ok: true, answer: 'done' });
    expect(responseFor(action, 'bucket made', 's', 't')).toEqual({
      session: 's',
      at: 't',
      type: 'action_completed',
      checkpoint: 'storage-backend',
      note: 'bucket made',
    });
  });
});

describe('buildWorkerPrompt', () => {
  const plan = (autonomous: boolean) =>
    planFrom(
      [
        '---',
        'plan_id: "01-02"',
        'title: In-memory note store',
        'files_modified: [src/store/memory.js]',
        'files_read: [src/note.js]',
        `autonomous: ${autonomous}`,
        'truths: ["a created note can be listed"]',
        'must_pass:',
        '  - { id: tests, type: tests_pass, command: "node --test" }',
        '  - { id: out, type: command_output, command: "node x.js", expect: { exit_code: 0, contains: "ok" } }',
        '---',
        '# Store',
        '',
        `${FENCE}sh step Write the store`,
        'touch src/store/memory.js',
        FENCE,
        `${FENCE}checkpoint decision Default store`,
        'Which store by default?',
        FENCE,
      ].join('\n'),
    );

  it('tells the agent its goal, files, steps, checks, how to ask and how to commit', () => {
    const text = buildWorkerPrompt(plan(false), {
      spec: 'SPC-001',
      checkpoints: 'line',
      answers: { 'default-store': 'memory' },
      commits: [{ sha: 'abcdef0123', subject: '01-02: Write the store' }],
    });
    for (const line of [
      '# Plan 01-02 of SPC-001: In-memory note store',
      '- a created note can be listed',
      '- src/store/memory.js',
      '- src/note.js',
      '1. Write the store',
      '- tests: the tests `node --test` pass',
      '- out: `node x.js` exits 0 and prints "ok"',
      '    HARNESS_CHECKPOINT {"kind":"decision","id":"storage","prompt":"Which store should notes use?","options":["memory","file"]}',
      '- default-store (decision): Which store by default?',
      // An earlier answer, quoted as data (issue 10): its id, then the person's words in a fence.
      '- default-store:',
      '```text',
      'memory',
      '    Plan: 01-02',
      '    Spec: SPC-001',
      '- abcdef0 01-02: Write the store',
    ]) {
      expect(text.split('\n')).toContain(line);
    }
  });

  it('tells an autonomous plan, or an agent that cannot ask, not to stop', () => {
    expect(buildWorkerPrompt(plan(true), { spec: 'SPC-001', checkpoints: 'line' })).toContain('This plan is autonomous: do not stop to ask.');
    expect(buildWorkerPrompt(plan(false), { spec: 'SPC-001', checkpoints: 'none' })).toContain(
      'You cannot reach a person during this run: do not stop to ask.',
    );
    expect(buildWorkerPrompt(plan(false), { spec: 'SPC-001', checkpoints: 'protocol' })).toContain('{"type":"decision_needed"');
  });
});
