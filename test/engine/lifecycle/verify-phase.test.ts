import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../../app/engine/core/spec/load.js';
import type { Spec } from '../../../app/engine/core/spec/model.js';
import type { GivenAnswer } from '../../../app/engine/lifecycle/answers.js';
import { phaseHumanChecks, verifyPhaseLevel } from '../../../app/engine/lifecycle/verify-phase.js';
import { manualClock, memoryVerifyPorts, memoryWorkspace, recordingProgress, tableAnswers } from '../../helpers/lifecycle.js';
import { specOf } from '../../helpers/spec.js';

const ROADMAP = (own: string[]) =>
  ['---', 'phases:', '  - id: "01"', '    title: Core', '    must_pass:', ...own.map((c) => `      - ${c}`), '---', '# Roadmap', ''].join('\n');

function specWith(own: string[]): Spec {
  const loaded = loadSpec(
    specOf(
      [
        { id: '01-01', filesModified: ['out/a.txt'], mustPass: 'must_pass:\n  - { id: a, type: file_exists, path: out/a.txt }' },
        {
          id: '01-02',
          filesModified: ['out/b.txt'],
          mustPass:
            'must_pass:\n  - { id: b, type: file_contains, path: out/b.txt, contains: bee }\n  - { id: looks, type: visual_quality, prompt: "B looks right" }',
        },
      ],
      { 'ROADMAP.md': ROADMAP(own) },
    ),
  );
  if (!loaded.spec) throw new Error(`test spec does not load: ${JSON.stringify(loaded.problems)}`);
  return loaded.spec;
}

async function verify(spec: Spec, files: Record<string, string>, given: Record<string, GivenAnswer> = {}, person?: () => string) {
  const clock = manualClock();
  const workspace = memoryWorkspace(clock, files);
  const ports = memoryVerifyPorts(workspace, clock);
  const answers = tableAnswers(given, person);
  const progress = recordingProgress();
  const outcome = await verifyPhaseLevel(spec, spec.phases[0]!, { verifyPorts: ports.open, answers, progress, clock });
  return { outcome, answers, progress, ports };
}

const MERGED = { 'out/a.txt': 'a\n', 'out/b.txt': 'bee\n' };

describe('verifyPhaseLevel', () => {
  it("names every human check of the phase: each plan's as <plan>/<check>, then the phase's own", () => {
    const spec = specWith(['{ id: together, type: file_exists, path: out/a.txt }', '{ id: whole, type: ux_flow, prompt: "It all fits" }']);
    expect(phaseHumanChecks(spec, spec.phases[0]!).map((r) => [r.key, r.plan])).toEqual([
      ['01-02/looks', '01-02'],
      ['whole', undefined],
    ]);
  });

  it("runs every plan's checks again and the phase's own; a plan's approval counts for its check here", async () => {
    const spec = specWith(['{ id: together, type: file_contains, path: out/b.txt, contains: bee }']);
    const { outcome, answers, progress } = await verify(spec, MERGED, { 'check-01-02/looks': { answer: 'approved', by: 'ada', at: '2024-05-02T09:00:00Z' } });
    expect(outcome.kind).toBe('verified');
    expect(outcome.report.results.map((r) => [r.plan, r.id, r.status])).toEqual([
      ['01-01', 'a', 'pass'],
      ['01-02', 'b', 'pass'],
      ['01-02', 'looks', 'pass'],
      [undefined, 'together', 'pass'],
    ]);
    expect(answers.asked).toEqual([]);
    expect(progress.stages).toEqual(['phase-level verification of phase 01']);
    expect(progress.events.filter((e) => e.kind === 'check')).toHaveLength(4);
  });

  it("asks a person for a plan's check at phase level where the runtime can wait, keyed by plan", async () => {
    const spec = specWith(['{ id: together, type: file_exists, path: out/a.txt }']);
    const { outcome, answers, ports } = await verify(spec, MERGED, {}, () => 'yes');
    expect(answers.asked.map((a) => [a.checkpoint.id, a.checkpoint.prompt, a.origin])).toEqual([
      ['check-01-02/looks', 'Visual quality: B looks right', 'verification'],
    ]);
    expect(outcome.kind).toBe('verified');
    expect([ports.opened(), ports.closed()]).toEqual([2, 2]);
  });

  it('fails, naming the check, when a human check waits and nobody can answer it', async () => {
    const spec = specWith(['{ id: together, type: file_exists, path: out/a.txt }', '{ id: whole, type: ux_flow, prompt: "It all fits" }']);
    const { outcome } = await verify(spec, MERGED, { 'check-01-02/looks': { answer: 'approve', by: 'ada' } });
    expect(outcome).toMatchObject({ kind: 'failed', reason: 'phase 01 did not pass verification: 1 human check not approved: whole' });
  });

  it('fails with each failed check, its plan and the first line of its evidence', async () => {
    const spec = specWith(['{ id: together, type: file_contains, path: out/b.txt, contains: "bee and more" }']);
    const { outcome } = await verify(spec, { 'out/b.txt': 'wasp\n' }, { 'check-01-02/looks': { answer: 'approve' } });
    expect(outcome).toMatchObject({
      kind: 'failed',
      reason:
        'phase 01 did not pass verification: 3 checks failed: 01-01/a (out/a.txt does not exist); 01-02/b (out/b.txt does not contain "bee"); together (out/b.txt does not contain "bee and more")',
    });
  });
});
