import { existsSync, readFileSync } from 'node:fs';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { pathOnly, runCli, tempDir, writeTree } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/paths.js';
import { git, makeRepo } from '../helpers/repo.js';

/**
 * `harness spike` on this machine, end to end: real git, and the command agent running a
 * stand-in spike agent (test/fixtures/agents/spike-agent.mjs) that does what a careful agent
 * would, a real measurement included; each test's .github/harness.yml says how it misbehaves.
 */

const QUESTION = 'Can run state live in plain files?';
const SLUG = 'can-run-state-live-in-plain-files';
const BRANCH = `harness/knowledge/spike/${SLUG}`;
const TOKEN = `ghp_${'A1b2C3d4E5f6G7h8I9j0'.repeat(2).slice(0, 36)}`;
const KEY = 'spike-test-key-0123456789';

/** A repository whose agent is the stand-in, with `env` (NAME=value) in front of its command. */
async function repoWith(env: Record<string, string> = {}, extra: Record<string, string> = {}) {
  const vars = Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const command = `${vars} ${JSON.stringify(process.execPath)} ${JSON.stringify(join(FIXTURES, 'agents', 'spike-agent.mjs'))}`.trim();
  const root = await makeRepo({
    '.github/harness.yml': `agent: command\nagents:\n  command:\n    command: ${JSON.stringify(command)}\n`,
    'src/app.js': 'export const answer = 42;\n',
    ...extra,
  });
  return { root, folder: `.harness/knowledge/spikes/${root.split('/').at(-1)}/${SLUG}` };
}

function show(root: string, path: string, ref = BRANCH): string {
  return git(root, 'show', `${ref}:${path}`).trimEnd();
}

/** The branch's commits after main, oldest first: subject, then the trailers. */
function commits(root: string): { subject: string; body: string }[] {
  return git(root, 'log', '--reverse', '--format=%s%x1f%b%x1e', `main..${BRANCH}`)
    .split('\x1e')
    .map((r) => r.trim())
    .filter(Boolean)
    .map((r) => {
      const [subject, body] = r.split('\x1f');
      return { subject: subject!, body: body ?? '' };
    });
}

describe('harness spike', () => {
  it('drafts, runs and decides a spike on its own branch, leaving the checkout as it was', async () => {
    const { root, folder } = await repoWith({ SPIKE_AGENT_LOG: join(await tempDir(), 'calls.jsonl') });
    const head = git(root, 'rev-parse', 'HEAD').trim();

    const result = await runCli(['spike', QUESTION], root);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`spike ${SLUG}: confirmed (medium confidence)`);
    expect(result.stdout).toContain('  decision:  Keep run state in plain files.');
    expect(result.stdout).toContain(`  branch:    ${BRANCH} (2 commits added)`);
    // The person's checkout: the same commit, the same branch, nothing changed.
    expect(git(root, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(git(root, 'symbolic-ref', '--short', 'HEAD').trim()).toBe('main');
    expect(git(root, 'status', '--porcelain').trim()).toBe('');
    // The question's record, then one commit per stage; nothing on the branch outside the folder.
    expect(commits(root).map((c) => c.subject)).toEqual([
      `spike: ${QUESTION}`,
      `spike ${SLUG}: hypothesis and experiment`,
      `spike ${SLUG}: decision (confirmed)`,
    ]);
    expect(git(root, 'diff', '--name-only', `main..${BRANCH}`).trim().split('\n')).toEqual([
      `${folder}/DECISION.md`,
      `${folder}/EXPERIMENT.md`,
      `${folder}/HYPOTHESIS.md`,
      `${folder}/results/roundtrip.txt`,
    ]);

    const hypothesis = parseKnowledge('hypothesis', `${folder}/HYPOTHESIS.md`, show(root, `${folder}/HYPOTHESIS.md`));
    expect(hypothesis.problems).toEqual([]);
    // What identifies the spike is harness's to say, whatever the agent wrote there.
    expect(hypothesis.data).toMatchObject({
      spike: SLUG,
      project: folder.split('/')[3],
      question: QUESTION,
      status: 'concluded',
      tags: ['filesystem', 'performance'],
    });
    const experiment = parseKnowledge('experiment', `${folder}/EXPERIMENT.md`, show(root, `${folder}/EXPERIMENT.md`));
    expect(experiment.problems).toEqual([]);
    expect(experiment.data).toMatchObject({ spike: SLUG, method: 'benchmark', time_box_minutes: 5, criteria: [{ id: 'roundtrip' }, { id: 'intact' }] });
    expect(experiment.data!.finished).toBeDefined();
    expect(Date.parse(experiment.data!.finished!)).toBeGreaterThanOrEqual(Date.parse(experiment.data!.started));
    expect(experiment.body).toMatch(/\| intact \| 200 \| 200 \| yes \| results\/roundtrip\.txt \|/);
    const decision = parseKnowledge('decision', `${folder}/DECISION.md`, show(root, `${folder}/DECISION.md`));
    expect(decision.problems).toEqual([]);
    expect(decision.data).toMatchObject({ spike: SLUG, decision: 'Keep run state in plain files.', outcome: 'confirmed', confidence: 'medium' });
    expect(show(root, `${folder}/results/roundtrip.txt`)).toMatch(/^roundtrip_ms=\d+\.\d\nintact=200$/);
    // Decided: its worktree is gone, the branch keeps everything.
    expect(result.stdout).not.toContain('worktree:');
    expect(git(root, 'worktree', 'list', '--porcelain')).not.toContain(SLUG);
  });

  it('gives the agent its instructions stage by stage: the question, the folder, the templates, then the criteria and the time box', async () => {
    const calls = join(await tempDir(), 'calls.jsonl');
    const { root, folder } = await repoWith({ SPIKE_AGENT_LOG: calls });

    expect((await runCli(['spike', QUESTION], root)).code).toBe(0);

    const seen = readFileSync(calls, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stage: string; plan: string; brief: string });
    expect(seen.map((c) => [c.stage, c.plan])).toEqual([
      ['design', 'design'],
      ['run', 'run'],
    ]);
    const [design, run] = seen.map((c) => c.brief);
    expect(design).toContain(`# Plan design of spike/${SLUG}: Hypothesis and experiment for “${QUESTION}”`);
    expect(design).toContain(`> ${QUESTION}`);
    expect(design).toContain(`You may change only these (globs); other plans own the rest:\n- ${folder}/**`);
    expect(design).toContain('## Design');
    expect(design).not.toContain('## Run');
    // The record templates, as shipped, are the form the agent writes in.
    expect(design).toContain('question: Can the local runner keep its run state in plain files and still resume after a crash?');
    // Comments in the instructions are for the people who edit them.
    expect(design).not.toContain('Comments like this one are for people');
    expect(run).toContain('## Run');
    expect(run).toContain('within its time box of\n5 minutes');
    expect(run).toContain('- `roundtrip`: ms to write and read back 200 files; target: under 2000');
    expect(run).toContain('- `intact`: files read back unchanged, out of 200; target: 200');
    for (const name of ['question', 'folder', 'criteria', 'time_box', 'decision_template']) expect(run).not.toContain(`{{${name}}}`);
  });

  it('puts back what the agent wrote outside the spike folder, and reports it', async () => {
    const { root, folder } = await repoWith({ SPIKE_AGENT_OUTSIDE: '1' });

    const result = await runCli(['spike', QUESTION], root);

    expect(result.code).toBe(0);
    // hidden.txt shows only once the agent's .gitignore is put back: it is put back too.
    expect(result.stdout).toContain("  put back, written outside the spike's folder: .gitignore, README.md, notes/outside.txt, hidden.txt");
    expect(show(root, 'README.md')).toBe('# test');
    for (const path of ['notes/outside.txt', '.gitignore', 'hidden.txt']) expect(() => show(root, path)).toThrow();
    expect(
      git(root, 'diff', '--name-only', `main..${BRANCH}`)
        .trim()
        .split('\n')
        .every((p) => p.startsWith(`${folder}/`)),
    ).toBe(true);
    // No commit on the branch ever held them: the agent's own commits are folded into harness's.
    expect(git(root, 'log', '--format=%H', '--all', '--', 'notes/outside.txt').trim()).toBe('');
    expect(commits(root)[1]!.body).toContain(
      "Put back as they were (written outside the spike's folder): .gitignore, README.md, notes/outside.txt, hidden.txt.",
    );
  });

  it('commits no secret and no path of this machine that the agent wrote into its results', async () => {
    // The agent's environment holds a secret (as ANTHROPIC_API_KEY would be): its value is known to be one.
    Object.assign(process.env, { SPIKE_TEST_API_KEY: KEY, SPIKE_AGENT_KEY: KEY });
    try {
      const { root, folder } = await repoWith({ SPIKE_AGENT_SECRET: '1' });

      const result = await runCli(['spike', QUESTION], root);

      expect(result.code).toBe(0);
      const raw = show(root, `${folder}/results/roundtrip.txt`);
      expect(raw).toContain('token=[REDACTED]\nkey=[REDACTED]\ncwd=${PROJECT_ROOT}');
      const everything = git(root, 'log', '-p', '--all', '--format=%B');
      expect(everything).not.toContain(TOKEN);
      expect(everything).not.toContain(KEY);
      expect(everything).not.toContain(root);
      expect(result.stdout).toContain(`  redacted:  2 secrets (${folder}/results/roundtrip.txt:3, ${folder}/results/roundtrip.txt:4)`);
    } finally {
      delete process.env.SPIKE_TEST_API_KEY;
      delete process.env.SPIKE_AGENT_KEY;
    }
  });

  it('gives records with problems back to the agent once, and says so', async () => {
    const { root, folder } = await repoWith({ SPIKE_AGENT_SLIP: 'design' });

    const result = await runCli(['spike', QUESTION], root);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      `  retried:   design: the records had 1 problem (${folder}/EXPERIMENT.md:12: missing the section "## Results"; add it to the body (see templates/spike/EXPERIMENT.md)); the agent was given them to fix`,
    );
    // The stage is still one commit.
    expect(commits(root).map((c) => c.subject)).toEqual([
      `spike: ${QUESTION}`,
      `spike ${SLUG}: hypothesis and experiment`,
      `spike ${SLUG}: decision (confirmed)`,
    ]);
  });

  it('fails with why when a stage fails, keeps what the stages before committed, and continues when asked again', async () => {
    const { root, folder } = await repoWith({ SPIKE_AGENT_FAIL: 'run' });

    const failed = await runCli(['spike', QUESTION], root);

    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(`spike ${SLUG}: FAILED in the run stage`);
    expect(failed.stderr).toMatch(
      /^harness spike: the command agent failed: the command exited with code 1\nthe experiment crashed; the run stage was undone\n$/,
    );
    expect(commits(root).map((c) => c.subject)).toEqual([`spike: ${QUESTION}`, `spike ${SLUG}: hypothesis and experiment`]);
    const worktree = /worktree: {2}(.+)/.exec(failed.stdout)![1]!;
    expect(existsSync(join(worktree, folder, 'results', 'partial.txt'))).toBe(false);
    expect(git(worktree, 'status', '--porcelain').trim()).toBe('');

    // The agent is fixed; asking again runs only what is left.
    await writeTree(root, { '.github/harness.yml': readFileSync(join(root, '.github/harness.yml'), 'utf8').replace('SPIKE_AGENT_FAIL=run ', '') });
    const again = await runCli(['spike', QUESTION], root);

    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain(': design, by command');
    expect(again.stdout).toContain(`${folder}/EXPERIMENT.md is designed already: running it`);
    expect(commits(root).map((c) => c.subject)).toEqual([
      `spike: ${QUESTION}`,
      `spike ${SLUG}: hypothesis and experiment`,
      `spike ${SLUG}: decision (confirmed)`,
    ]);

    const decided = await runCli(['spike', QUESTION], root);
    expect(decided.code).toBe(0);
    expect(decided.stdout).toContain(`spike ${SLUG}: confirmed (medium confidence), decided in an earlier run`);
    expect(commits(root)).toHaveLength(3);
  });

  it('throws away what a stage cut off by a crash left, before going on', async () => {
    const { root, folder } = await repoWith({ SPIKE_AGENT_FAIL: 'run' });
    const failed = await runCli(['spike', QUESTION], root);
    expect(failed.code).toBe(1);
    const worktree = /worktree: {2}(.+)/.exec(failed.stdout)![1]!;
    // As a killed run leaves it: the stage begun, an agent's commit and an uncommitted file.
    const since = git(worktree, 'rev-parse', 'HEAD').trim();
    const logs = join(worktree, '..', 'logs');
    await writeTree(logs, { 'stage.json': JSON.stringify({ stage: 'run', since }) });
    await writeTree(worktree, { [`${folder}/results/half.txt`]: 'half\n', 'src/app.js': 'broken\n' });
    git(worktree, 'add', '-A');
    git(worktree, 'commit', '-q', '-m', 'run: half of it');
    await writeTree(worktree, { [`${folder}/scratch.txt`]: 'scratch\n' });
    await writeTree(root, { '.github/harness.yml': readFileSync(join(root, '.github/harness.yml'), 'utf8').replace('SPIKE_AGENT_FAIL=run ', '') });

    const again = await runCli(['spike', QUESTION], root);

    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`  thrown away, left by an interrupted run: ${folder}/results/half.txt, ${folder}/scratch.txt, src/app.js`);
    expect(git(root, 'log', '--format=%s', BRANCH)).not.toContain('run: half of it');
    expect(show(root, 'src/app.js')).toBe('export const answer = 42;');
  });

  it("uses the repository's own instructions, and refuses ones it cannot use with the file and line", async () => {
    const own = [
      'Our house rules for {{slug}}: keep it small.',
      '',
      '## Design',
      '',
      'Write the records for {{question}} in {{folder}}.',
      '',
      '## Run',
      '',
      'Run it within {{time_box}} minutes.',
      '',
    ].join('\n');
    const calls = join(await tempDir(), 'calls.jsonl');
    const { root } = await repoWith({ SPIKE_AGENT_LOG: calls }, { '.github/harness/agents/spike.md': own });

    expect((await runCli(['spike', QUESTION], root)).code).toBe(0);
    const briefs = readFileSync(calls, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { brief: string }).brief);
    expect(briefs[0]).toContain(`Our house rules for ${SLUG}: keep it small.\n\n## Design\n\nWrite the records for ${QUESTION} in .harness/knowledge/spikes/`);
    expect(briefs[1]).toContain('Run it within 5 minutes.');

    const broken = await repoWith({}, { '.github/harness/agents/spike.md': 'Rules.\n\n## Design\n\nDo it by {{deadline}}.\n' });
    const refused = await runCli(['spike', QUESTION], broken.root);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      [
        "harness spike: the spike agent's instructions in .github/harness/agents/spike.md cannot be used; fix them, or delete the file to use the shipped ones",
        '  .github/harness/agents/spike.md:1: no "## Run" section: it holds what the agent does in the run stage of a spike (see templates/agents/spike.md)',
        '  .github/harness/agents/spike.md:5: {{deadline}} is not a placeholder harness fills; the known ones are {{question}}, {{slug}}, {{project}}, {{spec}}, {{folder}}, {{now}}, {{max_minutes}}, {{hypothesis_template}}, {{experiment_template}}, {{decision_template}}, {{criteria}}, {{time_box}}',
        '',
      ].join('\n'),
    );
  });

  it("is Claude's by default: a stand-in claude on PATH gets each stage's brief, headless", async () => {
    const bin = await tempDir('fake-claude-');
    await writeFile(join(bin, 'claude'), `#!/bin/sh\nexec "${process.execPath}" "${join(FIXTURES, 'claude', 'fake-claude.mjs')}" "$@"\n`);
    await chmod(join(bin, 'claude'), 0o755);
    const saved = { PATH: process.env.PATH, FAKE_CLAUDE_SCRIPT: process.env.FAKE_CLAUDE_SCRIPT, FAKE_CLAUDE_STATE: process.env.FAKE_CLAUDE_STATE };
    Object.assign(process.env, { PATH: `${bin}:${process.env.PATH}`, FAKE_CLAUDE_SCRIPT: 'spike-design.jsonl,spike-run.jsonl', FAKE_CLAUDE_STATE: bin });
    try {
      const root = await makeRepo({});
      const slug = 'does-sqlite-wal-mode-help-concurrent-writers';
      const folder = `.harness/knowledge/spikes/notes/${slug}`;

      const result = await runCli(['spike', 'Does SQLite WAL mode help concurrent writers?', '--project', 'notes'], root);

      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`spike ${slug}: design, by claude`);
      expect(result.stdout).toContain('  decision:  Run the notes store in WAL mode with a 5 s busy timeout.');
      const calls = readFileSync(join(bin, 'calls.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { args: string[]; env: Record<string, string> });
      expect(calls.map((c) => [c.env.HARNESS_PLAN, c.env.HARNESS_SPIKE_STAGE, c.env.HARNESS_SPIKE_FOLDER])).toEqual([
        ['design', 'design', folder],
        ['run', 'run', folder],
      ]);
      // Then the reporting channel's --mcp-config (issue 8), and the permission mode.
      for (const c of calls) expect(c.args.slice(2, 6)).toEqual(['--output-format', 'stream-json', '--verbose', '--mcp-config']);
      for (const c of calls) expect(c.args).toContain('--permission-mode');
      expect(calls[0]!.args[1]).toContain('## Design');
      expect(calls[1]!.args[1]).toContain('- `busy`: writes failing with SQLITE_BUSY, out of 400; target: 0');
      const decision = parseKnowledge('decision', `${folder}/DECISION.md`, git(root, 'show', `harness/knowledge/spike/${slug}:${folder}/DECISION.md`));
      expect(decision.problems).toEqual([]);
      expect(decision.data).toMatchObject({ outcome: 'confirmed', confidence: 'high' });
    } finally {
      Object.assign(process.env, saved);
      if (saved.FAKE_CLAUDE_SCRIPT === undefined) delete process.env.FAKE_CLAUDE_SCRIPT;
      if (saved.FAKE_CLAUDE_STATE === undefined) delete process.env.FAKE_CLAUDE_STATE;
    }
  });

  it('files the spike under --project, and says why the script agent cannot run one', async () => {
    const { root } = await repoWith();
    const result = await runCli(['spike', QUESTION, '--project', 'notes-service'], root);
    expect(result.code).toBe(0);
    expect(show(root, `.harness/knowledge/spikes/notes-service/${SLUG}/DECISION.md`)).toContain('outcome: confirmed');

    const scripted = await makeRepo({ '.github/harness.yml': 'agent: script\n' });
    const refused = await runCli(['spike', QUESTION], scripted);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'harness spike: the script agent cannot run a spike: it runs the shell steps a plan spells out, and a spike has none until an agent drafts its hypothesis and experiment. Use claude or command: harness spike --agent claude, or knowledge: { spike: { agent: claude } } in .github/harness.yml\n',
    );
    expect(git(scripted, 'branch', '--list', 'harness/*').trim()).toBe('');
  });

  it.each([
    [[], 'missing the question, in quotes: harness spike "Can SQLite take concurrent writers?"'],
    [['Can', 'it?'], 'one question, in quotes: "Can it?" is 2 arguments'],
    [['  '], 'the question is empty'],
    [['x'.repeat(301)], 'the question is 301 characters; keep it to 300'],
    [[QUESTION, '--project', '../up'], '--project "../up" cannot name a folder: use letters, digits, ".", "_" or "-", starting with a letter or digit'],
    [[QUESTION, '--agent', 'aider'], '--agent must be one of script, claude, command, codex, copilot, gemini, not "aider"'],
    [[QUESTION, '--agent', 'script'], '--agent script: the script agent cannot run a spike'],
  ])('exits 2 for %j', async (args, message) => {
    const root = await makeRepo({});
    const result = await runCli(['spike', ...args], root);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`harness spike: ${message}`);
    expect(result.stderr).toContain('Usage: harness spike "<question>"');
  });

  it('exits 2 outside a git repository, and shows its help with --help', async () => {
    const outside = await runCli(['spike', QUESTION], await tempDir());
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('is not inside a git repository; harness spike works on a git checkout');
    const help = await runCli(['spike', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: harness spike "<question>" \[--project NAME\] \[--agent NAME\]/);
    expect(help.stdout).toContain('Exit: 0 a valid DECISION.md is written, 1 the spike failed');
  });
});

describe('harness spike with an agent this machine does not have', () => {
  it('says what to install before it makes a branch, a worktree or a commit', async () => {
    const root = await makeRepo({ '.github/harness.yml': 'agent: codex\n' });
    const head = git(root, 'rev-parse', 'HEAD').trim();
    // git and sh, and no codex: found after the spike's branch and worktree were made, the agent failed with "spawn codex ENOENT".
    const PATH = await pathOnly('git', 'sh');

    const result = await runCli(['spike', QUESTION], root, { env: { PATH } });

    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'harness spike: the codex agent (agent in .github/harness.yml) cannot start: "codex" is not on PATH; install the Codex CLI (npm install -g @openai/codex), set agents.codex.executable in .github/harness.yml, or choose another agent with --agent (claude, command, copilot, gemini)\n',
    });
    expect(git(root, 'rev-parse', 'HEAD').trim()).toBe(head);
    expect(git(root, 'branch', '--list', 'harness/*').trim()).toBe('');
    expect(
      git(root, 'worktree', 'list', '--porcelain')
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('worktree ')),
    ).toHaveLength(1);
    expect((await runCli(['spike', QUESTION, '--agent', 'claude'], root, { env: { PATH } })).stderr).toBe(
      'harness spike: --agent claude cannot start: "claude" is not on PATH; install Claude Code (npm install -g @anthropic-ai/claude-code), set agents.claude.executable in .github/harness.yml, or choose another agent with --agent (command, codex, copilot, gemini)\n',
    );
  });
});
