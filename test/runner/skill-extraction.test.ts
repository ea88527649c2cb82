import { writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type HarnessConfig } from '../../app/engine/core/config/schema.js';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { RecordingReporter } from '../../app/runner/progress.js';
import { runSpec } from '../../app/runner/runner.js';
import { git, makeRepo, SPEC_DIR, specTree, type StepPlan } from '../helpers/repo.js';

/**
 * Skill extraction when a phase is verified in `harness run` (knowledge.skills.extract): the
 * phase's plans' candidates through the four gates, the extracted skills and one extraction
 * line per candidate committed on the integration branch with the run's records.
 */

const BRANCH = 'harness/SPC-007/integration';
const STORE = '.harness/knowledge';

async function run(root: string, config: HarnessConfig, extra: Partial<Parameters<typeof runSpec>[0]> = {}) {
  const reporter = new RecordingReporter();
  const outcome = await runSpec({
    specDir: join(root, SPEC_DIR),
    specArg: SPEC_DIR,
    slots: 1,
    agent: 'script',
    reporter,
    pollMs: 25,
    reflection: { config },
    ...extra,
  });
  return { outcome, reporter };
}

const lines = (root: string) =>
  git(root, 'ls-tree', '-r', '--name-only', BRANCH, `${STORE}/trajectory/`)
    .split('\n')
    .filter(Boolean)
    .flatMap((p) => git(root, 'show', `${BRANCH}:${p}`).trim().split('\n'))
    .map((l) => JSON.parse(l) as { type: string; entry: string; decision?: string; gates?: { gate: string; pass: boolean }[]; plan: string });

describe('skills extracted when a phase is verified', () => {
  async function repaired(config: HarnessConfig) {
    const fixed = join(await mkdtemp(join(tmpdir(), 'harness-fixed-')), 'fixed');
    // The same failure in two plans: a skill is made of a repair that recurred, never of a one-off.
    const plans: StepPlan[] = ['01-01', '01-02'].map((id) => ({
      id,
      files: [`out/${id}.txt`],
      steps: [
        `if [ -f "$FIXED" ]; then mkdir -p out && echo ok > out/${id}.txt; else echo "Error: SQLITE_BUSY: database is locked (while the tests ran in parallel)" >&2; exit 1; fi`,
      ],
    }));
    const root = await makeRepo(specTree(plans));
    const env = { FIXED: fixed };
    await run(root, config, { env });
    await writeFile(fixed, '');
    const second = await run(root, config, { env, retry: true });
    return { root, second };
  }

  it('judges the repairs of the two plans, one candidate, through the four gates and commits one extraction line with the verdicts', async () => {
    const { root, second } = await repaired(DEFAULT_CONFIG);
    expect(second.outcome.complete).toBe(true);

    const extraction = lines(root).filter((l) => l.type === 'extraction');
    expect(extraction).toHaveLength(1);
    // The two plans run side by side, alike: the one candidate is named after whichever repair was filed first.
    expect(['01-01', '01-02']).toContain(extraction[0]!.plan);
    expect(extraction[0]!.gates!.map((g) => [g.gate, g.pass])).toEqual([
      ['discovery-depth', true],
      ['reusability', true],
      ['trigger-clarity', true],
      ['verification', true],
    ]);
    // The error the failed attempt printed, unquoted, is the skill's trigger.
    expect(extraction[0]!.decision).toBe('extracted');
    const skills = git(root, 'ls-tree', '-r', '--name-only', BRANCH, `${STORE}/skills/`).split('\n').filter(Boolean);
    expect(skills).toEqual([`${STORE}/${extraction[0]!.entry}`]);
    expect(git(root, 'show', `${BRANCH}:${skills[0]}`)).toContain('SQLITE_BUSY: database is locked');
    const said = second.reporter.events.filter((e) => e.kind === 'info').map((e) => (e.kind === 'info' ? e.text : ''));
    expect(said.some((t) => t.startsWith('skills (phase 01 verified):'))).toBe(true);
    // Any skill it extracted is committed with it, and is a valid Agent Skill.
    for (const path of git(root, 'ls-tree', '-r', '--name-only', BRANCH, `${STORE}/skills/`).split('\n').filter(Boolean)) {
      expect(
        parseKnowledge('skill', path.slice(STORE.length + 1), git(root, 'show', `${BRANCH}:${path}`)).problems.filter((p) => p.severity === 'error'),
      ).toEqual([]);
    }
  });

  it('runs no extraction with knowledge.skills.extract.verification false', async () => {
    const off: HarnessConfig = {
      ...DEFAULT_CONFIG,
      knowledge: {
        ...DEFAULT_CONFIG.knowledge,
        skills: { ...DEFAULT_CONFIG.knowledge.skills, extract: { ...DEFAULT_CONFIG.knowledge.skills.extract, verification: false } },
      },
    };
    const { root } = await repaired(off);
    expect(lines(root).filter((l) => l.type === 'extraction')).toEqual([]);
  });
});
