import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedClaudeState, readClaudeState } from '../../app/agents/claude.js';
import { claudeTranscriptPath } from '../../app/agents/claude-session.js';
import { Checkout } from '../../app/worker-action/checkout.js';
import { restoreCheckpoint, saveCheckpoint, CHECKPOINT_FILE } from '../../app/worker-action/checkpoint-store.js';
import { WorkerError } from '../../app/worker-action/worker-run.js';
import type { Checkpoint } from '../../app/engine/core/protocol/messages.js';
import { git, makeRepo } from '../helpers/repo.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

const checkpoint: Checkpoint = { id: 'tone', kind: 'decision', prompt: 'Formal or casual?', options: ['formal', 'casual'] };
const at = new Date('2026-11-27T12:00:00Z');

async function savedOnBranch(agent: string): Promise<{ root: string; env: Record<string, string>; logDir: string }> {
  const root = await makeRepo({ 'out/draft.txt': 'hello\n' });
  made.push(root);
  const env = { CLAUDE_CONFIG_DIR: temp('harness-claude-') };
  const logDir = temp('harness-log-');
  await seedClaudeState(logDir, { sessionId: 'session-1' });
  const transcript = claudeTranscriptPath(root, 'session-1', env);
  mkdirSync(join(transcript, '..'), { recursive: true });
  writeFileSync(transcript, '{"type":"user","message":"Formal or casual?"}\n');
  await saveCheckpoint(new Checkout(root), { spec: 'demo', plan: '01-01', agent, checkpoint, logDir, env, safety: {}, at });
  return { root, env, logDir };
}

describe('a checkpoint carries the agent session to another runner', () => {
  it("commits the session's files under .harness/checkpoint/session/, named by their path in the CLI's session home", async () => {
    const { root } = await savedOnBranch('claude');

    const saved = JSON.parse(git(root, 'show', `HEAD:${CHECKPOINT_FILE}`)) as { session: { id: string; files: string[] } };
    expect(saved.session).toEqual({ id: 'session-1', files: ['session-1.jsonl'] });
    expect(git(root, 'show', 'HEAD:.harness/checkpoint/session/session-1.jsonl')).toBe('{"type":"user","message":"Formal or casual?"}\n');
  });

  it("restores the files where the CLI looks for them on the next runner's checkout, and seeds the session to resume", async () => {
    const { root } = await savedOnBranch('claude');
    const next = temp('harness-runner2-');
    git(next, 'clone', '--quiet', root, 'checkout');
    const checkout = join(next, 'checkout');
    const env = { CLAUDE_CONFIG_DIR: temp('harness-claude2-') };
    const logDir = temp('harness-log2-');

    const restored = await restoreCheckpoint(new Checkout(checkout), { spec: 'demo', plan: '01-01', logDir, env });

    expect(restored?.saved.session?.id).toBe('session-1');
    expect(readFileSync(claudeTranscriptPath(checkout, 'session-1', env), 'utf8')).toContain('Formal or casual?');
    expect(await readClaudeState(logDir)).toEqual({ sessionId: 'session-1', checkpoint });
    expect(existsSync(join(checkout, '.harness/checkpoint'))).toBe(false);
    expect(readFileSync(join(checkout, 'out/draft.txt'), 'utf8')).toBe('hello\n');
  });

  it('refuses a session file that would land outside the session folder (a branch anyone with push can write)', async () => {
    const { root } = await savedOnBranch('claude');
    const saved = JSON.parse(readFileSync(join(root, CHECKPOINT_FILE), 'utf8')) as { session: { files: string[] } };
    saved.session.files = ['../../../../.bashrc'];
    writeFileSync(join(root, CHECKPOINT_FILE), JSON.stringify(saved));
    git(root, 'commit', '--quiet', '--amend', '-a', '--no-edit');
    const env = { CLAUDE_CONFIG_DIR: temp('harness-claude2-') };

    const restoring = restoreCheckpoint(new Checkout(root), { spec: 'demo', plan: '01-01', logDir: temp('harness-log2-'), env });

    await expect(restoring).rejects.toThrow(WorkerError);
    await expect(restoring).rejects.toThrow(
      'names the session file "../../../../.bashrc", outside the agent\'s session folder: /harness retry 01-01 starts over',
    );
  });

  it('refuses a session file the branch made a symlink (it would hand the agent a file of the runner)', async () => {
    const { root } = await savedOnBranch('claude');
    const path = join(root, '.harness/checkpoint/session/session-1.jsonl');
    unlinkSync(path);
    symlinkSync('/etc/passwd', path);
    git(root, 'commit', '--quiet', '--amend', '-a', '--no-edit');
    const env = { CLAUDE_CONFIG_DIR: temp('harness-claude2-') };

    const restoring = restoreCheckpoint(new Checkout(root), { spec: 'demo', plan: '01-01', logDir: temp('harness-log2-'), env });

    await expect(restoring).rejects.toThrow(
      '.harness/checkpoint/session/session-1.jsonl on the plan branch is not a file (a symlink or a folder): /harness retry 01-01 starts over',
    );
    expect(existsSync(claudeTranscriptPath(root, 'session-1', env))).toBe(false);
  });

  it('restores a checkpoint saved before sessions were carried as files (the transcript alone)', async () => {
    const { root } = await savedOnBranch('claude');
    git(root, 'mv', '.harness/checkpoint/session/session-1.jsonl', '.harness/checkpoint/session.jsonl');
    const saved = JSON.parse(readFileSync(join(root, CHECKPOINT_FILE), 'utf8')) as { session: Record<string, unknown> };
    saved.session = { id: 'session-1', transcript: '.harness/checkpoint/session.jsonl' };
    writeFileSync(join(root, CHECKPOINT_FILE), JSON.stringify(saved));
    git(root, 'commit', '--quiet', '--amend', '-a', '--no-edit');
    const env = { CLAUDE_CONFIG_DIR: temp('harness-claude2-') };

    await restoreCheckpoint(new Checkout(root), { spec: 'demo', plan: '01-01', logDir: temp('harness-log2-'), env });

    expect(readFileSync(claudeTranscriptPath(root, 'session-1', env), 'utf8')).toContain('Formal or casual?');
  });

  it('carries no session for an agent without one (the command agent)', async () => {
    const { root } = await savedOnBranch('command');

    const saved = JSON.parse(git(root, 'show', `HEAD:${CHECKPOINT_FILE}`)) as { session?: unknown };
    expect(saved.session).toBeUndefined();
    expect(git(root, 'ls-tree', '-r', '--name-only', 'HEAD', '.harness')).toBe(`${CHECKPOINT_FILE}\n`);
  });
});
