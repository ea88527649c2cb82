import { mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CommandAgent } from '../../app/agents/command.js';
import { harnessFault } from '../../app/agents/reporter.js';
import { GitError } from '../../app/machine/git.js';
import { makeRepo, planFrom, testWorker } from '../helpers/agent-context.js';

const PLAN = [
  '---',
  'plan_id: "01-02"',
  'title: Paint the walls',
  'files_modified: ["*.txt"]',
  'must_pass:',
  '  - { id: painted, type: file_exists, path: color.txt }',
  '---',
  '# Paint the walls',
  '',
].join('\n');

/** Programs on a PATH of their own, linked to this machine's. */
async function binWith(dir: string, programs: Record<string, string>): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const [name, target] of Object.entries(programs)) await symlink(target, join(dir, name));
  return dir;
}

async function which(program: string): Promise<string> {
  const { execFileSync } = await import('node:child_process');
  return execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim();
}

/**
 * A failure of this machine under harness's own work is not the plan's: in a learning
 * benchmark, harness's commit after the agent finished could not start git (PATH had none),
 * and `spawn git ENOENT` was filed as the agent's error and became a skill.
 */
describe("a harness-side failure is this machine's, not the plan's", () => {
  it("harness's own git cannot start after the agent finished: an environment failure, not the agent's error", async () => {
    const { repo, logDir } = await makeRepo();
    const bin = await binWith(join(logDir, '..', 'bin'), { sh: await which('sh'), rm: await which('rm'), git: await which('git') });
    // The agent does its work, and takes git off the PATH harness gives its processes, as a broken toolchain would.
    const command = `echo red > color.txt && rm "${join(bin, 'git')}"`;
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN), env: { PATH: bin } });
    await new CommandAgent({ command }).run(worker.context);
    const end = worker.messages.at(-1)!;
    expect(end).toMatchObject({ type: 'task_failed', environment: true, retryable: false });
    expect(end).toMatchObject({ error: expect.stringMatching(/^this machine could not start git for harness \(spawn git ENOENT\)/) });
  });

  it('tells a spawn that could not start, a full disk and too many open files from any other error', () => {
    const spawn = Object.assign(new Error('spawn git ENOENT'), { code: 'ENOENT', syscall: 'spawn git', path: 'git' });
    expect(harnessFault(spawn)).toMatch(/^this machine could not start git for harness \(spawn git ENOENT\): git is not on the PATH/);
    expect(harnessFault(new GitError(['add', '-A'], '/w', null, 'spawn git EACCES'))).toMatch(
      /^this machine could not start git for harness \(spawn git EACCES\): git is not executable/,
    );
    expect(harnessFault(Object.assign(new Error("ENOSPC: no space left on device, write '/w/x'"), { code: 'ENOSPC', path: '/w/x' }))).toMatch(
      /^the disk is full/,
    );
    expect(harnessFault(Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' }))).toMatch(/too many open files/);
    // A file the agent removed, git refusing: the plan's business.
    expect(
      harnessFault(Object.assign(new Error("ENOENT: no such file or directory, open '/w/src/x.ts'"), { code: 'ENOENT', syscall: 'open' })),
    ).toBeUndefined();
    expect(harnessFault(new GitError(['commit'], '/w', 1, 'fatal: empty ident name not allowed'))).toBeUndefined();
  });
});

describe('an agent program this machine may not run', () => {
  it('is an environment failure, as one that is not there', async () => {
    const { repo, logDir } = await makeRepo();
    const { writeFile } = await import('node:fs/promises');
    const agent = join(logDir, '..', 'agent.sh');
    await writeFile(agent, '#!/bin/sh\necho hi\n', { mode: 0o644 });
    const worker = testWorker({ repo, logDir, plan: planFrom(PLAN) });
    await new CommandAgent({ command: `${agent} --plan` }).run(worker.context);
    expect(worker.messages.at(-1)).toMatchObject({ type: 'task_failed', environment: true, error: expect.stringContaining('Permission denied') });
  });
});
