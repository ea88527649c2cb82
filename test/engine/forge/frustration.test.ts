import { describe, expect, it } from 'vitest';
import { frustrationSignal, type ThreadComment } from '../../../app/engine/forge/frustration.js';
import { parseCommand } from '../../../app/engine/forge/parse-command.js';
import type { Command } from '../../../app/engine/forge/command.js';

/** Frustration read off a thread (engine/forge/frustration.ts): what counts, and what does not. */

let id = 0;
function said(body: string, author = 'ana', authorType = 'User', at = `2024-05-01T10:${String(10 + id).padStart(2, '0')}:00Z`): ThreadComment {
  return { id: ++id, body, author, authorType, createdAt: at };
}

function command(line: string): Command {
  const parsed = parseCommand(line);
  if (parsed === undefined || parsed instanceof Error) throw new Error(`not a command: ${line}`);
  return parsed;
}

function check(line: string, thread: ThreadComment[]) {
  return frustrationSignal({ command: command(line), comment: { id: 999, author: 'ana' }, thread, spec: 'SPC-007', place: 'plan issue #14' });
}

describe('frustration', () => {
  it('the same command again: low the second time, higher after', () => {
    const thread = [said('/harness execute 01-02'), said('Queued 01-02.', 'harness[bot]', 'Bot')];
    const s = check('/harness execute 01-02', thread);
    expect(s).toMatchObject({
      type: 'frustration',
      severity: 'low',
      spec: 'SPC-007',
      phase: '01',
      plan: '01-02',
      metadata: { reason: 'repeated-command', times: 2 },
    });
    expect(s!.happened).toBe('@ana wrote `/harness execute 01-02` on plan issue #14 for the second time.');
    expect(check('/harness execute 01-02', [...thread, said('/harness execute 01-02', 'bo')])).toMatchObject({ severity: 'medium', metadata: { times: 3 } });
  });

  it('a retry of a retry', () => {
    const s = check('/harness retry 01-02', [said('/harness retry 01-02'), said('Retrying…', 'harness[bot]', 'Bot')]);
    expect(s).toMatchObject({ severity: 'medium', metadata: { reason: 'repeated-retry', times: 2 } });
    expect(s!.tags).toEqual(['frustration', 'retry']);
    expect(s!.happened).toContain('a retry of a retry');
  });

  it('an answer contradicting the one given before to the same question', () => {
    const thread = [said('<!-- harness:checkpoint 01-02 storage -->\nWhich store?', 'harness[bot]', 'Bot'), said('/harness respond 01-02 memory')];
    const s = check('/harness respond 01-02 file', thread);
    expect(s).toMatchObject({ severity: 'medium', metadata: { reason: 'contradicting-answer' } });
    expect(s!.happened).toBe('@ana answered plan 01-02 "file" on plan issue #14, where @ana had answered "memory" to the same question.');
  });

  it('is none of it: a first request, a different target, an answer to a new question, a bot, or a command that only reads', () => {
    expect(check('/harness execute 01-02', [said('Looks good')])).toBeUndefined();
    expect(check('/harness execute 01-03', [said('/harness execute 01-02')])).toBeUndefined();
    const asked = [said('/harness respond 01-02 memory'), said('<!-- harness:checkpoint 01-02 format -->\nWhich format?', 'harness[bot]', 'Bot')];
    expect(check('/harness respond 01-02 json', asked)).toBeUndefined();
    expect(check('/harness execute 01-02', [said('/harness execute 01-02', 'renovate[bot]', 'Bot')])).toBeUndefined();
    expect(check('/harness status', [said('/harness status')])).toBeUndefined();
    // The comment itself, listed in the thread, is not an earlier one.
    expect(
      frustrationSignal({
        command: command('/harness execute 01-02'),
        comment: { id: 5, author: 'ana' },
        thread: [{ id: 5, body: '/harness execute 01-02', author: 'ana', authorType: 'User', createdAt: '' }],
        place: 'x',
      }),
    ).toBeUndefined();
  });
});
