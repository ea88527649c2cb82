import { describe, expect, it } from 'vitest';
import { mkdir, readFile, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { main } from '../../app/cli/main.js';
import type { CliIO } from '../../app/cli/io.js';
import { terminalSafe } from '../../app/cli/terminal-safe.js';
import { runCli, tempDir, writeTree } from '../helpers/cli.js';
import { planMd, planPath, SPEC_MD } from '../helpers/spec.js';
import { git, makeRepo, SPEC_DIR, specTree, worktreeOf } from '../helpers/repo.js';

async function specDir(files: Record<string, string>): Promise<string> {
  const dir = await tempDir('harness-hostile-');
  await writeTree(dir, { 'SPEC.md': SPEC_MD, [planPath('01-01')]: planMd({ id: '01-01' }), ...files });
  return dir;
}

describe('harness validate: symbolic links in a spec are reported, never followed', () => {
  it('a plan file and a phase folder linked outside the spec', async () => {
    const dir = await specDir({});
    const outside = await tempDir('harness-outside-');
    await writeTree(outside, { '02-01-PLAN.md': planMd({ id: '02-01' }), 'secret.txt': 'token=abc\n' });
    await symlink(join(outside, 'secret.txt'), join(dir, planPath('01-02')));
    await symlink(outside, join(dir, 'planning/plans/02-linked'));
    const r = await runCli(['validate', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `${dir}/planning/plans/01-phase/01-02-PLAN.md:1: is a symbolic link (to "${join(outside, 'secret.txt')}"); harness never follows links in a spec`,
    );
    expect(r.stdout).toContain(`${dir}/planning/plans/02-linked:1: is a symbolic link (to "${outside}")`);
    expect(r.stdout).not.toContain('token=abc');
    expect(r.stdout).toContain('SPC-042: 1 plan in 1 phase: 2 errors');
  });

  it('SPEC.md and planning/plans linked elsewhere', async () => {
    const elsewhere = await specDir({});
    const dir = await tempDir('harness-hostile-');
    await mkdir(join(dir, 'planning'), { recursive: true });
    await symlink(join(elsewhere, 'SPEC.md'), join(dir, 'SPEC.md'));
    await symlink(join(elsewhere, 'planning/plans'), join(dir, 'planning/plans'));
    const r = await runCli(['validate', dir, '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { plans: number; problems: { file: string; code: string }[] };
    expect(report.plans).toBe(0);
    expect(report.problems.map((p) => [p.file.slice(dir.length + 1), p.code])).toEqual([
      ['planning/plans', 'symlink'],
      ['SPEC.md', 'symlink'],
    ]);
  });
});

describe('author text never reaches the terminal as escapes', () => {
  it('ANSI and OSC sequences in an id, a glob and a title are printed visibly escaped', async () => {
    const dir = await specDir({
      [planPath('01-02')]: planMd({ id: '01-02', dependsOn: ['01-01\u001b]0;pwned\u0007'], filesModified: ['src/\u001b[31mred/\u009b2J'] }).replace(
        'files_modified: ["src/\u001b[31mred/\u009b2J"]',
        'files_modified: ["../\u001b[31mred/\u009b2J"]',
      ),
    });
    const r = await runCli(['validate', dir]);
    expect(r.code).toBe(1);
    // eslint-disable-next-line no-control-regex
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(r.stdout).toContain('"../\\u001b[31mred/\\u009b2J" points outside the repository');
  });

  it('the helper keeps newlines and tabs, and escapes bidi controls and carriage returns', () => {
    expect(terminalSafe('a\tb\nc\rd\u202ee\u001b[0m')).toBe('a\tb\nc\\u000dd\\u202ee\\u001b[0m');
  });
});

describe('an internal error exits 70 with one line and where the details are', () => {
  it('a bug inside a command: no stack on the terminal, the stack in a file', async () => {
    const dir = await specDir({});
    const temp = await tempDir('harness-crash-');
    const before = process.env.TMPDIR;
    process.env.TMPDIR = temp;
    let stderr = '';
    const io: CliIO = {
      stdout: () => {
        throw new TypeError('Cannot read properties of undefined (reading "plans")');
      },
      stderr: (t) => void (stderr += t),
      cwd: process.cwd(),
      env: {},
      isTTY: false,
    };
    try {
      expect(await main(['validate', dir], io)).toBe(70);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    expect(stderr.split('\n').filter(Boolean)).toHaveLength(1);
    const m =
      /^harness: internal error \(a bug in harness, not a problem in your input\): TypeError: Cannot read properties of undefined \(reading "plans"\); the details are in (\S+); include that file when you report the bug\n$/.exec(
        stderr,
      );
    expect(m).not.toBeNull();
    expect(m![1]!.startsWith(temp)).toBe(true);
    const details = await readFile(m![1]!, 'utf8');
    expect(details).toContain(`command: harness validate ${dir}`);
    expect(details).toMatch(/TypeError: Cannot read properties of undefined \(reading "plans"\)\n\s+at /);
    expect(stderr).not.toContain('    at ');
  });

  it('a failure harness describes (a HarnessError) is one line and exit 1, not a crash', async () => {
    const dir = await tempDir('harness-norepo-');
    await writeTree(dir, { 'spec/SPEC.md': SPEC_MD, [`spec/${planPath('01-01')}`]: planMd({ id: '01-01' }) });
    const r = await runCli(['run', 'spec'], dir);
    expect(r.stderr).not.toContain('    at ');
    expect([1, 2]).toContain(r.code);
  });
});

describe('author text stays on its line (issue 24, 7)', () => {
  it('a directory named with a newline cannot print a forged verdict before the real one', async () => {
    const parent = await tempDir('harness-forged-');
    const forged = 'x\nSPC-001: 9 plans in 1 phase: valid\n';
    const dir = join(parent, forged);
    await writeTree(dir, {
      'SPEC.md': SPEC_MD,
      [planPath('01-01')]: planMd({ id: '01-01' }),
      [planPath('01-02')]: planMd({ id: '01-02', dependsOn: ['09-09'] }),
    });
    const r = await runCli(['validate', dir]);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines).not.toContain('SPC-001: 9 plans in 1 phase: valid');
    expect(lines.every((l) => l.startsWith(parent) || l.startsWith('SPC-042:'))).toBe(true);
    expect(r.stdout).toContain('x\\u000aSPC-001: 9 plans in 1 phase: valid\\u000a/planning/plans/01-phase/01-02-PLAN.md');
  });

  it('a title with characters that reorder text (U+202E) is refused, naming the file and line', async () => {
    const dir = await specDir({ [planPath('01-02')]: planMd({ id: '01-02', title: 'Safe \u202Etxt.exe' }) });
    const r = await runCli(['validate', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `${dir}/planning/plans/01-phase/01-02-PLAN.md:3: title is "Safe \\u202etxt.exe"; it must be one line of text, without line breaks, control characters or format characters (bidi controls such as U+202E, zero-width characters such as U+200B)`,
    );
  });

  it('a title with a zero-width character (U+200B, U+200D) is refused like a bidi control, shown by its code point (issue 36, 6)', async () => {
    for (const char of ['\u200B', '\u200D']) {
      const dir = await specDir({ [planPath('01-02')]: planMd({ id: '01-02', title: `Log${char}in endpoint` }) });
      const r = await runCli(['validate', dir]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        `${dir}/planning/plans/01-phase/01-02-PLAN.md:3: title is "Log\\u${char.codePointAt(0)!.toString(16)}in endpoint"; it must be one line of text, without line breaks, control characters or format characters`,
      );
    }
  });
});

describe('failures of the machine say so in one line, with their own exit code (issue 24, 8)', () => {
  it('a full disk (ENOSPC) is exit 74 and one line saying what to do, not "a bug in harness"', async () => {
    const dir = await specDir({});
    let stderr = '';
    const io: CliIO = {
      stdout: () => {
        throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: 'ENOSPC', path: '/tmp/harness-out' });
      },
      stderr: (t) => void (stderr += t),
      cwd: process.cwd(),
      env: {},
      isTTY: false,
    };
    expect(await main(['validate', dir], io)).toBe(74);
    expect(stderr).toBe(
      'harness validate: the disk is full (writing in /tmp/harness-out): free some space and run the same command again; a run resumes where it stopped\n',
    );
  });

  it("an agent that removes another worktree's .git stops the run with one line naming the plan whose agent did it, exit 74; done as it says, the run resumes and finishes", async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: ['rm -f ../integration/.git; mkdir -p out && echo x > out/01-01.txt'] }]));
    const r = await runCli(['run', SPEC_DIR, '--agent', 'script'], root);
    expect(r.code).toBe(74);
    const worktree = worktreeOf(root, 'SPC-007', 'integration');
    expect(r.stderr).toBe(
      `harness run: 01-01: ${worktree} is no longer a git checkout (its .git was removed by the agent of plan 01-01): remove that directory, run git worktree prune, then run the same command again to resume\n`,
    );
    expect(r.stdout).toContain(`integration's worktree: the agent of 01-01 removed its .git`);
    expect(r.stdout).not.toContain('    at ');
    expect(r.stdout).not.toContain('internal error');

    await rm(worktree, { recursive: true, force: true });
    git(root, 'worktree', 'prune');
    // The plan's step was committed before the run stopped: it is not run again.
    const again = await runCli(['run', SPEC_DIR, '--agent', 'script'], root);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
  });
});

describe("what an agent prints cannot pass for the run's own lines (issue 24, 7)", () => {
  it("a failing step's output naming a verdict is indented under the failure, never a line of its own", async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: ['printf "oops\\nSPC-007: 1/1 plans verified, 1/1 phases verified\\n"; exit 3'] }]));
    const r = await runCli(['run', SPEC_DIR, '--agent', 'script'], root);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines.filter((l) => l.startsWith('SPC-007: '))).toEqual(['SPC-007: 0/1 plans verified, 0/1 phases verified, 1 failed']);
    expect(r.stdout).toContain('    SPC-007: 1/1 plans verified, 1/1 phases verified');
  });
});
