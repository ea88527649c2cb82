import { chmod, cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../app/cli/io.js';
import { main } from '../../app/cli/main.js';
import type { ReflectJson } from '../../app/cli/commands/reflect.js';
import { REDACTED } from '../../app/machine/content-safety.js';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { FIXTURES } from '../helpers/paths.js';
import { git, makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/cli.js';

const STORE = join(FIXTURES, 'knowledge', 'reflect', 'store');
const FAKE = join(FIXTURES, 'knowledge', 'reflect', 'fake-reflector.mjs');
const NEW_LESSON = '.harness/knowledge/lessons/testing/struggle-test-sqlite-database.lesson.md';
const PORT_LESSON = '.harness/knowledge/lessons/tooling/stop-background-servers.lesson.md';
const SQLITE = [
  '.harness/knowledge/signals/notes-service/2026-03-02/2026-03-02T09-14-00Z-struggle.signal.md',
  '.harness/knowledge/signals/notes-service/2026-03-04/2026-03-04T15-40-00Z-repair.signal.md',
  '.harness/knowledge/signals/tags-service/2026-03-09/2026-03-09T11-02-00Z-struggle.signal.md',
];
const PORT_NEW = '.harness/knowledge/signals/tags-service/2026-03-10/2026-03-10T13-25-00Z-struggle.signal.md';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function harness(args: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd, env: { PATH: process.env.PATH, ...env }, isTTY: false };
  const code = await main(['reflect', ...args], io);
  return { code, stdout, stderr };
}

/** A repository with the recorded store at .harness/knowledge, committed. */
async function repoWithStore(config?: string): Promise<string> {
  const root = await makeRepo(config ? { '.github/harness.yml': config } : {});
  await cp(STORE, join(root, '.harness/knowledge'), { recursive: true });
  git(root, 'add', '-A');
  git(root, 'commit', '--quiet', '-m', 'signals');
  return root;
}

describe('harness reflect', () => {
  it('--dry-run --json answers exactly which lessons it would make and why each other signal is not one, and writes nothing', async () => {
    const root = await repoWithStore();
    const run = await harness(['--dry-run', '--json'], join(root, '.harness'));

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as ReflectJson;
    expect(Object.keys(report)).toEqual(['lessons', 'skipped']);
    expect(report.lessons).toEqual([
      { path: NEW_LESSON, title: 'Struggle: test, sqlite, database', action: 'create', links: [], evidence: SQLITE },
      {
        path: PORT_LESSON,
        title: 'A server a step starts in the background keeps its port: the next start fails with EADDRINUSE.',
        action: 'link',
        links: [PORT_LESSON],
        evidence: [PORT_NEW],
      },
    ]);
    expect(report.skipped).toHaveLength(8);
    for (const s of report.skipped) expect(Object.keys(s)).toEqual(['signal', 'reason']);
    expect(report.skipped.map((s) => s.signal)).not.toContain(SQLITE[0]);
    expect(git(root, 'status', '--porcelain')).toBe('');
  });

  it('writes the new lesson and the linked one, and a second reflection proposes neither again', async () => {
    const root = await repoWithStore();
    const first = await harness([], root);

    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      `Proposed 1 new lesson and 1 link from .harness/knowledge:\n  new   ${NEW_LESSON}\n        Struggle: test, sqlite, database (drafted by harness)`,
    );
    expect(first.stdout).toContain('Written into .harness/knowledge: review the lessons, then commit them; a lesson counts once it is merged.');
    expect(git(root, 'status', '--porcelain', '-uall').split('\n').filter(Boolean).sort()).toEqual([` M ${PORT_LESSON}`, `?? ${NEW_LESSON}`]);
    const created = await readFile(join(root, NEW_LESSON), 'utf8');
    expect(parseKnowledge('lesson', NEW_LESSON, created).problems).toEqual([]);
    const linked = parseKnowledge('lesson', PORT_LESSON, await readFile(join(root, PORT_LESSON), 'utf8'));
    expect(linked.problems).toEqual([]);
    expect(linked.data?.evidence_count).toBe(3);

    const second = await harness(['--json'], root);
    expect(second.code).toBe(0);
    const report = JSON.parse(second.stdout) as ReflectJson;
    expect(report.lessons).toEqual([]);
    expect(report.skipped.find((s) => s.signal === SQLITE[0])?.reason).toBe(`already evidence of lesson ${NEW_LESSON}`);
    expect(report.skipped.find((s) => s.signal === PORT_NEW)?.reason).toBe(`already evidence of lesson ${PORT_LESSON}`);
  });

  it('reads another store with --knowledge, and takes its thresholds from .github/harness.yml', async () => {
    const root = await repoWithStore('knowledge:\n  reflect: { min_weight: 8 }\n');
    const elsewhere = await tempDir('harness-knowledge-');
    await cp(STORE, join(elsewhere, 'store'), { recursive: true });

    const run = await harness(['--knowledge', join(elsewhere, 'store'), '--dry-run', '--json'], root);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as ReflectJson;
    // Weight 7 < 8: no new lesson; paths are the store's own (it is in no repository).
    expect(report.lessons.map((l) => [l.action, l.path])).toEqual([['link', 'lessons/tooling/stop-background-servers.lesson.md']]);
    expect(report.skipped.find((s) => s.signal === SQLITE[0].replace('.harness/knowledge/', ''))?.reason).toMatch(/of weight 7: a pattern needs 8/);
  });

  it('says there is nothing to reflect on in a repository without a store', async () => {
    const root = await makeRepo({});
    const run = await harness([], root);
    expect(run).toEqual({
      code: 0,
      stdout: 'Nothing to reflect on: there is no knowledge store at .harness/knowledge yet (signals are captured there as plans run).\n',
      stderr: '',
    });
    expect(JSON.parse((await harness(['--json'], root)).stdout)).toEqual({ lessons: [], skipped: [] });
  });

  it('exits 1 naming the file, line and fix of a knowledge file it cannot read, and still reflects on the rest', async () => {
    const root = await repoWithStore();
    const bad = '.harness/knowledge/signals/notes-service/2026-03-07/2026-03-07T10-00-00Z-stuck.signal.md';
    await mkdir(join(root, bad, '..'), { recursive: true });
    await writeFile(
      join(root, bad),
      '---\ntype: stuck\nseverity: awful\nproject: notes-service\ntimestamp: 2026-03-07T10:00:00Z\n---\n\n## What happened\n\nIt stuck.\n',
    );

    const run = await harness(['--dry-run', '--json'], root);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${bad}:3: severity is "awful"; it must be one of low, medium, high`);
    expect(run.stderr).toContain('harness reflect: 1 knowledge file could not be read (above); fix it and reflect again');
    const report = JSON.parse(run.stdout) as ReflectJson;
    expect(report.lessons.map((l) => l.path)).toEqual([NEW_LESSON, PORT_LESSON]);
    expect(report.skipped.find((s) => s.signal === bad)?.reason).toMatch(/^cannot be read: .*:3: severity/);
  });

  it('exits 1 on a config with errors, and 2 on a usage error', async () => {
    const root = await repoWithStore('knowledge:\n  reflect: { min_weight: -1 }\n');
    const broken = await harness(['--dry-run'], root);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^\.github\/harness\.yml:2: knowledge\.reflect\.min_weight is the number -1/);

    const clean = await repoWithStore();
    expect((await harness(['--knowledge', 'nowhere'], clean)).code).toBe(2);
    expect((await harness(['--knowledge', 'nowhere'], clean)).stderr).toMatch(
      /^harness reflect: --knowledge nowhere: no such directory\n\nUsage: harness reflect/,
    );
    expect((await harness(['lessons'], clean)).stderr).toMatch(/^harness reflect: unexpected argument "lessons"; the store is given with --knowledge DIR/);
    expect((await harness(['--verbose'], clean)).code).toBe(2);
    const help = await harness(['--help'], clean);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: harness reflect \[--knowledge DIR\] \[--dry-run\] \[--json\]/);
  });
});

describe('harness reflect with a reflector agent', () => {
  it('lets a command agent write the lesson, and redacts a secret in its answer before the file is written', async () => {
    const root = await repoWithStore(`knowledge:\n  reflect: { agent: command, command: 'node "${FAKE}"' }\n`);
    const promptFile = join(root, '..', `${root.split('/').pop()}-prompt.txt`);
    const token = `ghp_${'x7Q'.repeat(12)}`;
    const run = await harness(['--json'], root, { FAKE_REFLECTOR_PROMPT: promptFile, FAKE_REFLECTOR_LEAK: token });

    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `harness reflect: ${NEW_LESSON}: a secret (@secretlint/secretlint-rule-github) from line 18 of the lesson was redacted before it was written\n`,
    );
    const report = JSON.parse(run.stdout) as ReflectJson;
    expect(report.lessons[0]).toMatchObject({ path: NEW_LESSON, title: 'One SQLite file per test worker', action: 'create' });
    const text = await readFile(join(root, NEW_LESSON), 'utf8');
    expect(text).not.toContain(token);
    expect(text).toContain(`fail with SQLITE_BUSY (the token was ${REDACTED}).`);
    expect(text).toContain('_Written by the reflector agent (command) from this evidence, which harness chose._');
    expect(parseKnowledge('lesson', NEW_LESSON, text).data?.category).toBe('testing');
    const prompt = await readFile(promptFile, 'utf8');
    expect(prompt).toContain('SQLITE_BUSY: database is locked');
  });

  it("redacts the process's own secrets too, whatever their shape", async () => {
    const root = await repoWithStore(`knowledge:\n  reflect: { agent: command, command: 'node "${FAKE}"' }\n`);
    const own = 'opaque-deploy-credential-0451';
    const run = await harness([], root, { FAKE_REFLECTOR_LEAK: own, DEPLOY_TOKEN: own });
    expect(run.stderr).toContain('a secret (known-secret) from line 18 of the lesson was redacted');
    expect(await readFile(join(root, NEW_LESSON), 'utf8')).toContain(`(the token was ${REDACTED})`);
  });

  it('runs Claude Code headless as the reflector and reads its answer from the stream', async () => {
    const root = await repoWithStore('knowledge:\n  reflect: { agent: claude }\nagents:\n  claude: { model: claude-test }\n');
    const bin = await tempDir('harness-bin-');
    await writeFile(join(bin, 'claude'), `#!/bin/sh\nexec "${process.execPath}" "${FAKE}" "$@"\n`);
    await chmod(join(bin, 'claude'), 0o755);

    const run = await harness(['--json'], root, { PATH: `${bin}:${process.env.PATH}` });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as ReflectJson).lessons[0]?.title).toBe('One SQLite file per test worker');
    expect(await readFile(join(root, NEW_LESSON), 'utf8')).toContain('_Written by the reflector agent (claude) from this evidence, which harness chose._');
  });

  it('drafts the lesson itself when the agent fails, and says so', async () => {
    const root = await repoWithStore(`knowledge:\n  reflect: { agent: command, command: 'node "${FAKE}"' }\n`);
    const run = await harness([], root, { FAKE_REFLECTOR_EXIT: '3' });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `harness reflect: ${NEW_LESSON}: the reflector agent (command) failed: the reflector command \`node "${FAKE}"\` exited with code 3: the model is overloaded; harness drafted it instead\n`,
    );
    expect(await readFile(join(root, NEW_LESSON), 'utf8')).toContain('not written by an agent: the reflector agent (command) failed');
  });

  it('refuses a command reflector with no command, naming the key to set', async () => {
    const root = await repoWithStore('knowledge:\n  reflect: { agent: command }\n');
    const run = await harness([], root);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^harness reflect: \.github\/harness\.yml: knowledge\.reflect\.agent is command, but there is no command to run; set knowledge\.reflect\.command/,
    );
  });
});
