import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { RecordingReporter } from '../../app/runner/progress.js';
import { runSpec } from '../../app/runner/runner.js';
import { git, makeRepo, SPEC_DIR, specTree, type StepPlan } from '../helpers/repo.js';
import { geneText } from '../engine/knowledge/genes/gene-helpers.js';

/**
 * Capsules in a local run (capsule-record.ts): a plan verified with a gene in its brief files
 * the path it took beside its signals, on the integration branch, with one trajectory line.
 */

const BRANCH = 'harness/SPC-007/integration';
const STORE = '.harness/knowledge';
const GENE = 'gene-20260301-0a1b2c3d';

function committed(root: string): Map<string, string> {
  const paths = git(root, 'ls-tree', '-r', '--name-only', BRANCH, `${STORE}/`).split('\n').filter(Boolean);
  return new Map(paths.map((p) => [p, git(root, 'show', `${BRANCH}:${p}`)]));
}

describe('capsules in a local run', () => {
  it('a plan verified with a gene in its brief records a capsule; a plan without one records none', async () => {
    const plans: StepPlan[] = [
      {
        id: '01-01',
        title: 'Note storage tests',
        files: ['out/01-01.txt', 'src/db/notes.ts'],
        steps: [],
        body: 'Store notes in the SQLite database and cover save and load with vitest tests.',
      },
      {
        id: '01-02',
        title: 'Dark mode colors',
        files: ['out/01-02.txt', 'src/styles/theme.css'],
        steps: [],
        body: 'Define the palette as CSS custom properties for a dark theme.',
      },
    ];
    const gene = geneText({
      id: GENE,
      status: 'active',
      success_rate: 0.9,
      usage_count: 4,
      tags: ['sqlite', 'vitest'],
      metadata: { files: ['src/db/notes.ts'] },
    });
    const root = await makeRepo({ ...specTree(plans), [`${STORE}/genes/${GENE}.gene.md`]: gene });

    const reporter = new RecordingReporter();
    const outcome = await runSpec({
      specDir: join(root, SPEC_DIR),
      specArg: SPEC_DIR,
      slots: 1,
      reporter,
      pollMs: 25,
      agent: 'command',
      agents: { command: { command: 'mkdir -p out && cat > /dev/null && echo done > "out/$HARNESS_PLAN.txt"' } },
    });
    expect(outcome.complete).toBe(true);

    const files = committed(root);
    const capsules = [...files].filter(([p]) => p.startsWith(`${STORE}/capsules/`));
    expect(capsules).toHaveLength(1);
    const [path, text] = capsules[0]!;
    const parsed = parseKnowledge('capsule', path.slice(STORE.length + 1), text);
    expect(parsed.problems).toEqual([]);
    expect(parsed.data).toMatchObject({ genes: [GENE], validation: { impact_scope: 2, test_pass_rate: 1, confidence: 1 }, scope: 'project' });
    expect(parsed.body).toContain('Spec SPC-007, plan 01-01 (Note storage tests), attempt 1: verified.');
    expect(files.get(`${STORE}/index.md`)).toContain(`[${path.slice(path.lastIndexOf('/') + 1)}](${path.slice(STORE.length + 1)})`);

    const day = [...files.keys()].find((p) => p.startsWith(`${STORE}/trajectory/`))!;
    const lines = files
      .get(day)!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.type, l.entry])).toEqual([
      ['match', `genes/${GENE}.gene.md`],
      ['use', `genes/${GENE}.gene.md`],
      ['capsule', path.slice(STORE.length + 1)],
    ]);
  });
});
