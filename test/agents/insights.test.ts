import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClaudeAgent } from '../../app/agents/claude.js';
import { CommandAgent } from '../../app/agents/command.js';
import { ENVELOPE, makeRepo, planFrom, testWorker } from '../helpers/agent-context.js';

/**
 * How an agent reports what it learned (the `insight` message of the worker protocol): a
 * command that speaks the protocol writes the message, any other command prints a
 * HARNESS_INSIGHT line; both reach the orchestrator as the same message, and its facts ride on
 * task_completed.
 */

const PLAN = planFrom(
  [
    '---',
    'plan_id: "01-02"',
    'title: Paint',
    'files_modified: ["*.txt"]',
    'must_pass:',
    '  - { id: painted, type: file_exists, path: color.txt }',
    '---',
    '# Paint',
    '',
  ].join('\n'),
);

describe('insights from a command agent', () => {
  it('forwards an insight message of a command that speaks the protocol, and the facts of its task_completed', async () => {
    const { repo, logDir } = await makeRepo();
    const command = [
      'read task',
      `echo '{"type":"insight","session":"x","at":"2024-01-01T00:00:00.000Z","plan":"99-99","insight":{"kind":"innovation","summary":"Mix the paint in the can","tags":["paint"]}}'`,
      'echo red > color.txt',
      `echo '{"type":"task_completed","session":"x","at":"2024-01-01T00:00:00.000Z","plan":"01-02","commits":[],"summary":"painted","facts":{"toolCalls":4,"toolErrors":1,"retries":0,"model":"gpt-5"}}'`,
    ].join('\n');
    const worker = testWorker({ repo, logDir, plan: PLAN });

    await new CommandAgent({ command, protocol: true }).run(worker.context);

    expect(worker.messages).toContainEqual({
      session: ENVELOPE.session,
      at: '2024-01-01T00:00:00.000Z',
      type: 'insight',
      plan: '01-02',
      insight: { kind: 'innovation', summary: 'Mix the paint in the can', tags: ['paint'] },
    });
    expect(worker.messages.at(-1)).toMatchObject({
      type: 'task_completed',
      summary: 'painted',
      facts: { toolCalls: 4, toolErrors: 1, retries: 0, model: 'gpt-5' },
    });
  });

  it('reads a HARNESS_INSIGHT line from a command that does not speak the protocol', async () => {
    const { repo, logDir } = await makeRepo();
    const command = ['cat > /dev/null', 'echo \'HARNESS_INSIGHT {"kind":"pattern","summary":"Two coats cover better than one"}\'', 'echo red > color.txt'].join(
      '\n',
    );
    const worker = testWorker({ repo, logDir, plan: PLAN });

    await new CommandAgent({ command }).run(worker.context);

    expect(worker.messages.filter((m) => m.type === 'insight')).toEqual([
      { ...ENVELOPE, type: 'insight', plan: '01-02', insight: { kind: 'pattern', summary: 'Two coats cover better than one' } },
    ]);
    // The line is the insight, not progress.
    expect(worker.messages.some((m) => m.type === 'progress_update' && m.message.includes('HARNESS_INSIGHT'))).toBe(false);
    expect(worker.messages.at(-1)?.type).toBe('task_completed');
  });
});

describe('insights from Claude Code', () => {
  it('reads HARNESS_INSIGHT lines out of its final text: insight messages, and a summary without them', async () => {
    const { repo, logDir } = await makeRepo();
    const bin = await mkdtemp(join(tmpdir(), 'insight-claude-'));
    const result = ['Painted the walls red.', 'HARNESS_INSIGHT {"kind":"pattern","summary":"The primer must dry first","tags":["paint","primer"]}'].join('\n');
    const stream = [
      { type: 'system', subtype: 'init', session_id: 'ins-1', model: 'claude-opus-4-1' },
      { type: 'result', subtype: 'success', is_error: false, result, session_id: 'ins-1', num_turns: 2, total_cost_usd: 0.01 },
    ];
    await writeFile(join(bin, 'stream.jsonl'), `${stream.map((e) => JSON.stringify(e)).join('\n')}\n`);
    await writeFile(join(bin, 'claude'), `#!/bin/sh\necho red > color.txt\ncat "${join(bin, 'stream.jsonl')}"\n`);
    await chmod(join(bin, 'claude'), 0o755);
    const worker = testWorker({ repo, logDir, plan: PLAN });

    await new ClaudeAgent({ executable: join(bin, 'claude') }).run(worker.context);

    expect(worker.messages.filter((m) => m.type === 'insight')).toEqual([
      { ...ENVELOPE, type: 'insight', plan: '01-02', insight: { kind: 'pattern', summary: 'The primer must dry first', tags: ['paint', 'primer'] } },
    ]);
    expect(worker.messages.at(-1)).toMatchObject({
      type: 'task_completed',
      summary: 'Painted the walls red.\n\n(claude: 2 turns, $0.01)',
      facts: { toolCalls: 0, toolErrors: 0, retries: 0, model: 'claude-opus-4-1' },
    });
  });
});
