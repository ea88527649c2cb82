import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../app/engine/core/config/schema.js';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { signalEntries } from '../../app/engine/knowledge/documents/store-index.js';
import { RecordingReporter } from '../../app/runner/progress.js';
import { runSpec } from '../../app/runner/runner.js';
import { git, makeRepo, SPEC_DIR, specTree, type StepPlan, worktreeOf } from '../helpers/repo.js';
import { storeFiles } from '../helpers/surfacing.js';
import { fileAppears } from '../helpers/file-appears.js';

/**
 * Capture in a local run (app/runner/capture.ts): the run's signals are committed on the
 * integration branch in `.harness/knowledge/`, with the run's other records, through the
 * content-safety pass; a plan's attempts are counted across --retry from the store.
 */

const BRANCH = 'harness/SPC-007/integration';
const STORE = '.harness/knowledge';
/** A GitHub token as an agent might print it (secretlint's github rule knows the shape). */
const LEAKED = `ghp_${'A1b2C3d4E5'.repeat(3)}xY9z0w`;
/** A secret only the process knows: its name says it is one. */
const DEPLOY = 'corp-7f3a9c-internal-deploy';

async function run(root: string, extra: Partial<Parameters<typeof runSpec>[0]> = {}) {
  const reporter = new RecordingReporter();
  const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 2, agent: 'script', reporter, pollMs: 25, ...extra });
  return { outcome, reporter };
}

/** The store's files on the integration branch, as committed: path → text. */
function committed(root: string): Map<string, string> {
  const paths = git(root, 'ls-tree', '-r', '--name-only', BRANCH, `${STORE}/`).split('\n').filter(Boolean);
  return new Map(paths.map((p) => [p, git(root, 'show', `${BRANCH}:${p}`)]));
}

function signals(root: string) {
  return [...committed(root)]
    .filter(([p]) => p.endsWith('.signal.md'))
    .map(([path, text]) => ({ path, text, data: parseKnowledge('signal', path.slice(STORE.length + 1), text).data! }))
    .sort((a, b) => a.data.timestamp.localeCompare(b.data.timestamp) || a.path.localeCompare(b.path));
}

describe('capture in a local run', () => {
  it("commits the run's signals in .harness/knowledge/ with its records, secrets redacted and paths made relative, and counts attempts across --retry", async () => {
    const fixed = join(await mkdtemp(join(tmpdir(), 'harness-fixed-')), 'fixed');
    const plans: StepPlan[] = [
      // Writes a file its files_modified does not name: a deviation.
      { id: '01-01', files: ['out/01-01.txt'], steps: ['mkdir -p out extra && echo ok > out/01-01.txt && echo x > extra/undeclared.txt'] },
      // Fails the first time, printing a token, a secret of the environment and where it ran; passes once fixed.
      {
        id: '01-02',
        files: ['out/01-02.txt'],
        // The token is put together as the step runs: the plan itself must not hold it.
        steps: [
          `if [ -f "$FIXED" ]; then mkdir -p out && echo ok > out/01-02.txt; else echo "auth failed with ghp_$(printf 'A1b2C3d4E5%.0s' 1 2 3)xY9z0w and $DEPLOY_TOKEN in $PWD/src/db.ts" >&2; exit 1; fi`,
        ],
      },
    ];
    const root = await makeRepo(specTree(plans));
    const env = { FIXED: fixed, DEPLOY_TOKEN: DEPLOY };

    // One plan at a time, so that the order of their records is known.
    const first = await run(root, { env, slots: 1 });
    expect(first.outcome.plans).toEqual({ '01-01': 'verified', '01-02': 'failed' });
    await import('node:fs/promises').then((fs) => fs.writeFile(fixed, ''));
    const second = await run(root, { env, retry: true, slots: 1 });
    expect(second.outcome.complete).toBe(true);

    const found = signals(root);
    expect(found.map((s) => [s.data.type, s.data.plan ?? `phase ${s.data.phase}`, s.data.metadata?.attempt])).toEqual([
      ['deviation', '01-01', 1],
      ['struggle', '01-02', 1],
      ['repair', '01-02', 2],
      ['completion', 'phase 01', undefined],
    ]);
    const project = root.split('/').pop();
    for (const s of found) {
      expect(s.path).toMatch(new RegExp(`^${STORE}/signals/${project}/\\d{4}-\\d\\d-\\d\\d/\\d{8}T\\d{6}Z-[0-9a-f]{8}-${s.data.type}\\.signal\\.md$`));
      expect(parseKnowledge('signal', s.path, s.text).problems).toEqual([]);
    }
    expect(found[0]!.data).toMatchObject({ severity: 'medium', spec: 'SPC-007', phase: '01', agent: 'script', metadata: { files: ['extra/undeclared.txt'] } });
    expect(found[2]!.data.metadata).toMatchObject({ outcome: 'verified', failedBefore: 1, repaired: 'agent:step:Step 1' });

    // What the agent printed is in the struggle, made safe: no token, no secret, no path of this machine.
    const struggle = found[1]!.text;
    expect(struggle).toContain('auth failed with [REDACTED] and [REDACTED] in ${PROJECT_ROOT}/src/db.ts');
    // Nothing the run committed carries them, in any commit.
    const history = git(root, 'log', '-p', `main..${BRANCH}`);
    for (const leak of [LEAKED, DEPLOY, root]) expect(history).not.toContain(leak);
    expect(history).toContain('[REDACTED]');

    // The index lists them all, newest first, and the run's commits carry the store with the records.
    const index = committed(root).get(`${STORE}/index.md`)!;
    expect(signalEntries(index).map((e) => e.type)).toEqual(['completion', 'repair', 'struggle', 'deviation']);
    const withSummary = git(root, 'log', '--format=%s', BRANCH, '--', `${STORE}/index.md`).trim().split('\n');
    expect(withSummary).toEqual([
      'docs(SPC-007): phase 01 verified',
      'docs(SPC-007): summary of 01-02',
      'docs(SPC-007): 01-02 failed',
      'docs(SPC-007): summary of 01-01',
    ]);
  });

  it("a repair records the settings the passing attempt's diff adds since the failed one, through the content-safety pass", async () => {
    const fixed = join(await mkdtemp(join(tmpdir(), 'harness-fixed-')), 'fixed');
    // The first attempt writes package.json without its pretest script and fails; the retry adds the script (and a secret in a setting).
    const pkg = (script: string) => `printf '{\\n  "name": "svc",\\n  "scripts": {\\n${script}    "test": "vitest run"\\n  }\\n}\\n' > package.json`;
    const plans: StepPlan[] = [
      {
        id: '01-01',
        files: ['out/01-01.txt', 'package.json'],
        steps: [
          `if [ -f "$FIXED" ]; then ${pkg('    "pretest": "node scripts/seed.js --out test/fixtures",\\n    "deploy": "DEPLOY_TOKEN=\'"$DEPLOY_TOKEN"\' node deploy.js",\\n')} && mkdir -p out && echo ok > out/01-01.txt; else ${pkg('')} && git add package.json && git commit -qm 'package.json' && echo "Error: ENOENT: no such file or directory, open 'test/fixtures/seed.json'" >&2 && exit 1; fi`,
        ],
      },
    ];
    const root = await makeRepo(specTree(plans));
    const env = { FIXED: fixed, DEPLOY_TOKEN: DEPLOY };
    const first = await run(root, { env });
    expect(first.outcome.plans).toEqual({ '01-01': 'failed' });
    await import('node:fs/promises').then((fs) => fs.writeFile(fixed, ''));
    expect((await run(root, { env, retry: true })).outcome.complete).toBe(true);

    const found = signals(root);
    const struggle = found.find((s) => s.data.type === 'struggle')!;
    expect(struggle.data.metadata?.head).toMatch(/^[0-9a-f]{40}$/);
    const repair = found.find((s) => s.data.type === 'repair')!;
    // Only what the retry added: the lines package.json had after the failed attempt are not the fix.
    expect((repair.data.metadata?.fix as { added?: unknown }).added).toEqual([
      { file: 'package.json', line: '"pretest": "node scripts/seed.js --out test/fixtures"' },
      { file: 'package.json', line: '"deploy": "DEPLOY_TOKEN=[REDACTED] node deploy.js"' },
    ]);
    expect(repair.text).toContain('Its diff adds `"pretest": "node scripts/seed.js --out test/fixtures"` (in `package.json`)');
    expect(git(root, 'log', '-p', `main..${BRANCH}`, '--', STORE)).not.toContain(DEPLOY);
  });

  it('caps the signals of a phase (knowledge.capture.max_per_phase) and says so', async () => {
    const deviating = (id: string): StepPlan => ({
      id,
      files: [`out/${id}.txt`],
      steps: [`mkdir -p out stray && echo ok > out/${id}.txt && echo x > stray/${id}.txt`],
    });
    const root = await makeRepo(specTree([deviating('01-01'), deviating('01-02'), deviating('01-03')]));
    const { reporter } = await run(root, { capture: { enabled: true, max_per_phase: 2 }, slots: 1 });

    expect(signals(root).map((s) => s.data.type)).toEqual(['deviation', 'deviation']);
    const said = reporter.events.filter((e) => e.kind === 'info').map((e) => (e.kind === 'info' ? e.text : ''));
    expect(said.filter((t) => t.includes('knowledge.capture.max_per_phase'))).toEqual([
      '01-03: 1 signal not filed, the phase has 2 already (knowledge.capture.max_per_phase): deviation',
      'phase 01: 1 signal not filed, the phase has 2 already (knowledge.capture.max_per_phase): completion',
    ]);
  });

  it('captures nothing with knowledge.capture.enabled false', async () => {
    const root = await makeRepo(
      specTree([{ id: '01-01', files: ['out/01-01.txt'], steps: ['mkdir -p out x && echo ok > out/01-01.txt && echo y > x/y.txt'] }]),
    );
    const { outcome } = await run(root, { capture: { enabled: false, max_per_phase: DEFAULT_CONFIG.knowledge.capture.max_per_phase } });
    expect(outcome.complete).toBe(true);
    expect(committed(root).size).toBe(0);
  });

  it('a plan that passed with a lesson in its brief: a use signal, and match and use lines in the trajectory; none for a plan given nothing', async () => {
    const plans: StepPlan[] = [
      {
        id: '01-01',
        title: 'Note storage tests',
        files: ['out/01-01.txt', 'src/db/notes.ts'],
        steps: [],
        body: 'Store notes in the SQLite database and cover save and load with vitest tests; the test files run in parallel.',
      },
      {
        id: '01-02',
        title: 'Dark mode colors',
        files: ['out/01-02.txt', 'src/styles/theme.css'],
        steps: [],
        body: 'Define the palette as CSS custom properties for a dark theme.',
      },
    ];
    const store = Object.fromEntries(storeFiles().map((f) => [`${STORE}/${f.path}`, f.text]));
    const root = await makeRepo({ ...specTree(plans), ...store });

    const { outcome } = await run(root, {
      agent: 'command',
      agents: { command: { command: 'mkdir -p out && cat > /dev/null && echo done > "out/$HARNESS_PLAN.txt"' } },
      slots: 1,
    });

    expect(outcome.complete).toBe(true);
    const use = signals(root).filter((s) => s.data.type === 'use');
    const given = ['lessons/testing/sqlite-parallel-tests.lesson.md', 'skills/sqlite-busy-in-parallel-tests/SKILL.md'];
    expect(use.map((s) => [s.data.plan, s.data.metadata?.entries])).toEqual([['01-01', given]]);
    const day = [...committed(root).keys()].find((p) => p.startsWith(`${STORE}/trajectory/`))!;
    const lines = committed(root)
      .get(day)!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.type, l.plan, l.entry, l.kind])).toEqual([
      ['match', '01-01', given[0], 'lesson'],
      ['match', '01-01', given[1], 'skill'],
      ['use', '01-01', given[0], 'lesson'],
      ['use', '01-01', given[1], 'skill'],
    ]);
  });

  it('a run a person stopped (Ctrl-C) leaves an interrupted signal naming the plan it cut short, committed', async () => {
    const mark = join(await mkdtemp(join(tmpdir(), 'harness-mark-')), 'started');
    const root = await makeRepo(
      specTree([{ id: '01-01', title: 'Slow build', files: ['out/01-01.txt'], steps: ['touch "$MARK"; sleep 20; mkdir -p out && echo ok > out/01-01.txt'] }]),
    );
    const stop = new AbortController();
    const running = run(root, { env: { MARK: mark }, signal: stop.signal });
    await fileAppears(mark);
    stop.abort();
    const { outcome } = await running;

    expect(outcome.stopped).toBe(true);
    const [s] = signals(root);
    expect(s!.data).toMatchObject({ type: 'interrupted', severity: 'medium', spec: 'SPC-007', plan: '01-01', metadata: { plans: ['01-01'] } });
    expect(s!.text).toContain('A person (Ctrl-C) stopped plan 01-01 (Slow build) of SPC-007 while it was running.');
    expect(git(root, 'log', '-1', '--format=%s', BRANCH).trim()).toBe('docs(SPC-007): the run was stopped');
    expect(readFileSync(join(worktreeOf(root, 'SPC-007', 'integration'), STORE, 'index.md'), 'utf8')).toContain('| interrupted | medium | 01-01 |');
  });
});
