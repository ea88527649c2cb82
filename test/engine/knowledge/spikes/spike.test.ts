import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../../../app/engine/core/spec/problem.js';
import { setFrontmatter } from '../../../../app/engine/knowledge/documents/set-frontmatter.js';
import { checkSpikeDecision, checkSpikeDesign, readSpikeIdentity, type SpikeIdentity } from '../../../../app/engine/knowledge/spikes/spike-checks.js';
import { inSpikeFolder } from '../../../../app/engine/knowledge/spikes/spike-files.js';
import { parseSpikeInstructions, renderSpikeStage, RUN_PLACEHOLDERS, SPIKE_PLACEHOLDERS } from '../../../../app/engine/knowledge/spikes/spike-instructions.js';
import { spikeAgentName, spikeAgentRefusal } from '../../../../app/engine/lifecycle/spike-agent.js';
import { ROOT } from '../../../helpers/paths.js';

const FOLDER = '.harness/knowledge/spikes/notes/does-wal-help';
const IDENTITY: SpikeIdentity = { slug: 'does-wal-help', project: 'notes', question: 'Does WAL help?', created: '2026-03-02T11:00:00Z' };
const shipped = readFileSync(join(ROOT, 'templates', 'agents', 'spike.md'), 'utf8');

const values = Object.fromEntries(SPIKE_PLACEHOLDERS.map((p) => [p, `<${p}>`])) as Record<(typeof SPIKE_PLACEHOLDERS)[number], string>;

describe("the spike agent's instructions (templates/agents/spike.md)", () => {
  it('as shipped, have both stages and use only placeholders harness fills', () => {
    const parsed = parseSpikeInstructions('templates/agents/spike.md', shipped);
    expect(parsed.ok ? [] : parsed.problems.map((p) => formatProblem(p))).toEqual([]);
  });

  it('give each stage the common part, then its own section, filled in; comments stay out', () => {
    const parsed = parseSpikeInstructions(
      'x.md',
      '<!-- for people: {{nonsense}} -->\nCommon {{question}}.\n\n## Design\n\nDesign in {{folder}}.\n\n## Run\n\nRun {{time_box}} min:\n{{criteria}}\n',
    );
    if (!parsed.ok) throw new Error(parsed.problems.map((p) => formatProblem(p)).join('\n'));
    expect(renderSpikeStage(parsed.instructions, 'design', values)).toBe('Common <question>.\n\n## Design\n\nDesign in <folder>.\n');
    expect(renderSpikeStage(parsed.instructions, 'run', { ...values, time_box: '30', criteria: '- a' })).toBe(
      'Common <question>.\n\n## Run\n\nRun 30 min:\n- a\n',
    );
    // A value that looks like a placeholder is text.
    expect(renderSpikeStage(parsed.instructions, 'design', { ...values, folder: '{{question}}' })).toContain('Design in {{question}}.');
  });

  it('name the file and line of what cannot be used', () => {
    const parsed = parseSpikeInstructions(
      '.github/harness/agents/spike.md',
      '## Run\n\n{{criteria}}\n\n## Design\n\nBy {{criteria}} and {{when}}.\n```\n## Run\n```\n\n## run\n\nagain\n',
    );
    expect(parsed.ok ? [] : parsed.problems.map((p) => formatProblem(p))).toEqual([
      '.github/harness/agents/spike.md:7: {{criteria}} is known only when the experiment has been designed: use it under "## Run"',
      `.github/harness/agents/spike.md:7: {{when}} is not a placeholder harness fills; the known ones are ${[...SPIKE_PLACEHOLDERS, ...RUN_PLACEHOLDERS].map((p) => `{{${p}}}`).join(', ')}`,
      '.github/harness/agents/spike.md:12: "## Run" appears a second time (first on line 1); keep one section per stage',
    ]);
    const empty = parseSpikeInstructions('x.md', '## Design\n\n## Run\n\nrun it\n');
    expect(empty.ok ? [] : empty.problems.map((p) => formatProblem(p))).toEqual([
      'x.md:1: the section "## Design" is empty; say what the agent does in this stage',
    ]);
  });
});

describe('setting the keys harness owns in a record someone else wrote', () => {
  it('changes those keys only, keeping the comments, the order and the body', () => {
    const text = '---\n# why\nspike: wrong # the folder\ntags: [a, b]\nstatus: open\n---\n\n## Body\n';
    const edited = setFrontmatter('f.md', text, { spike: 'does-wal-help', status: 'concluded', finished: '2026-03-02T12:00:00Z', tags: undefined });
    expect(edited).toEqual({
      ok: true,
      text: '---\n# why\nspike: does-wal-help # the folder\nstatus: concluded\nfinished: 2026-03-02T12:00:00Z\n---\n\n## Body\n',
    });
  });

  it('says where frontmatter it cannot read is', () => {
    expect(setFrontmatter('f.md', 'no frontmatter', {})).toMatchObject({ ok: false, problem: { line: 1, code: 'frontmatter-missing' } });
    expect(setFrontmatter('f.md', '---\na: 1\n', {})).toMatchObject({ ok: false, problem: { line: 1, code: 'frontmatter-unclosed' } });
    // Where the YAML parser finds the flow never closed: the end of the frontmatter.
    expect(setFrontmatter('f.md', '---\na: 1\nb: [\n---\n', {})).toMatchObject({ ok: false, problem: { line: 4, code: 'yaml' } });
    expect(setFrontmatter('f.md', '---\n- a\n---\n', {})).toMatchObject({ ok: false, problem: { line: 2, code: 'field-type' } });
  });
});

const HYPOTHESIS = [
  '---',
  'spike: x',
  'project: y',
  'question: q',
  'created: 2020-01-01T00:00:00Z',
  'tags: [sqlite]',
  '---',
  '',
  '## Hypothesis',
  '',
  'WAL halves the lock waits.',
  '',
  '## Success criteria',
  '',
  'Waits under 5 ms.',
  '',
].join('\n');
const EXPERIMENT = (timeBox = 30, results = 'Not run yet.') =>
  [
    '---',
    'spike: x',
    'project: y',
    'method: benchmark',
    `time_box_minutes: ${timeBox}`,
    'criteria:',
    '  - { id: wait, measure: "p95 lock wait", target: "under 5 ms" }',
    'started: 2020-01-01T00:00:00Z',
    '---',
    '',
    '## Setup',
    '',
    'A script.',
    '',
    '## Procedure',
    '',
    'Run it.',
    '',
    '## Results',
    '',
    results,
    '',
  ].join('\n');
const DECISION = [
  '---',
  'spike: x',
  'project: y',
  'decision: Use WAL.',
  'outcome: confirmed',
  'confidence: high',
  'decided: 2020-01-01T00:00:00Z',
  '---',
  '',
  '## Decision',
  '',
  'Use WAL.',
  '',
  '## Evidence',
  '',
  'wait: 2 ms.',
  '',
  '## Consequences',
  '',
  'None.',
  '',
].join('\n');

describe("a spike's records at the end of each stage", () => {
  it('reads who the spike is from the question it was opened with', () => {
    const asked = [
      '---',
      'spike: does-wal-help',
      'project: notes',
      'spec: SPC-001',
      'question: Does WAL help?',
      'status: open',
      'created: 2026-03-02T11:00:00Z',
      '---',
      '',
      '## Hypothesis',
      '',
      'To come.',
      '',
      '## Success criteria',
      '',
      'To come.',
      '',
    ].join('\n');
    expect(readSpikeIdentity(FOLDER, asked)).toEqual({ ok: true, status: 'open', identity: { ...IDENTITY, spec: 'SPC-001' } });
    const missing = readSpikeIdentity(FOLDER, undefined);
    expect(missing.ok ? [] : missing.problems.map((p) => formatProblem(p))).toEqual([
      `${FOLDER}/HYPOTHESIS.md:1: ${FOLDER}/HYPOTHESIS.md is missing: a spike starts from its question, recorded there when it is opened (harness spike "<question>", or /harness spike)`,
    ]);
  });

  it("design: harness sets the identity, the status and the start; the agent's slips in them are not problems", () => {
    const checked = checkSpikeDesign({
      folder: FOLDER,
      identity: IDENTITY,
      hypothesis: HYPOTHESIS,
      experiment: EXPERIMENT(),
      now: '2026-03-02T11:05:00Z',
      maxMinutes: 120,
    });
    expect(checked.problems).toEqual([]);
    expect(checked.hypothesis.data).toMatchObject({
      spike: 'does-wal-help',
      project: 'notes',
      question: 'Does WAL help?',
      status: 'running',
      created: '2026-03-02T11:00:00Z',
      tags: ['sqlite'],
    });
    expect(checked.experiment.data).toMatchObject({ spike: 'does-wal-help', started: '2026-03-02T11:05:00Z', time_box_minutes: 30 });
  });

  // Lines are those of the record as harness writes it back, its keys set (`status` is added here).
  it('design: a time box past the limit, a missing record or a placeholder left in is a problem, with its line', () => {
    const checked = checkSpikeDesign({
      folder: FOLDER,
      identity: IDENTITY,
      hypothesis: HYPOTHESIS.replace('Waits under 5 ms.', '{{criteria}}'),
      experiment: EXPERIMENT(600),
      now: '2026-03-02T11:05:00Z',
      maxMinutes: 120,
    });
    expect(checked.problems.map((p) => formatProblem(p))).toEqual([
      `${FOLDER}/HYPOTHESIS.md:16: the template placeholder {{criteria}} is still there; replace it with what belongs in that section`,
      `${FOLDER}/EXPERIMENT.md:5: time_box_minutes is 600, more than a spike may run (120); plan a smaller experiment that fits`,
    ]);
    const none = checkSpikeDesign({
      folder: FOLDER,
      identity: IDENTITY,
      hypothesis: HYPOTHESIS,
      experiment: undefined,
      now: '2026-03-02T11:05:00Z',
      maxMinutes: 120,
    });
    expect(none.problems.map((p) => formatProblem(p))).toEqual([
      `${FOLDER}/EXPERIMENT.md:1: ${FOLDER}/EXPERIMENT.md is missing; write it (see templates/spike/EXPERIMENT.md)`,
    ]);
  });

  it('run: every criterion reported, raw output in results/, a valid decision; then the hypothesis is concluded', () => {
    const input = {
      folder: FOLDER,
      identity: IDENTITY,
      hypothesis: HYPOTHESIS,
      decision: DECISION,
      started: '2026-03-02T11:10:00Z',
      now: '2026-03-02T11:40:00Z',
    };
    const done = checkSpikeDecision({ ...input, experiment: EXPERIMENT(30, '| wait | under 5 ms | 2 ms | yes |'), results: [`${FOLDER}/results/bench.txt`] });
    expect(done.problems).toEqual([]);
    expect(done.hypothesis.data?.status).toBe('concluded');
    expect(done.experiment.data).toMatchObject({ started: '2026-03-02T11:10:00Z', finished: '2026-03-02T11:40:00Z' });
    expect(done.decision.data).toMatchObject({ spike: 'does-wal-help', decided: '2026-03-02T11:40:00Z', outcome: 'confirmed' });

    const short = checkSpikeDecision({ ...input, experiment: EXPERIMENT(30, 'It waited a bit (waiting is bad).'), results: [] });
    expect(short.problems.map((p) => formatProblem(p))).toEqual([
      `${FOLDER}/EXPERIMENT.md:20: "## Results" does not report the criterion "wait" (p95 lock wait): give what was measured against its target, under 5 ms`,
      `${FOLDER}/results:1: ${FOLDER}/results/ holds no file: save the experiment's raw output there (logs, measurements), which the evidence cites`,
    ]);
  });
});

describe('the spike folder and the spike agent', () => {
  it('holds what is under it, and not a sibling that shares its prefix', () => {
    expect(inSpikeFolder(`${FOLDER}/results/a.txt`, FOLDER)).toBe(true);
    expect(inSpikeFolder(FOLDER, `${FOLDER}/`)).toBe(true);
    expect(inSpikeFolder(`${FOLDER}-2/HYPOTHESIS.md`, FOLDER)).toBe(false);
    expect(inSpikeFolder('README.md', FOLDER)).toBe(false);
  });

  it("is the person's choice, else the spike setting, else the worker's, else the repository's, else claude; never the script agent", () => {
    expect(spikeAgentName({ override: 'command', spike: 'claude', worker: 'script', configured: 'script' })).toBe('command');
    expect(spikeAgentName({ spike: 'claude', worker: 'script', configured: 'script' })).toBe('claude');
    expect(spikeAgentName({ worker: 'command', configured: 'claude' })).toBe('command');
    expect(spikeAgentName({ configured: 'script' })).toBe('script');
    expect(spikeAgentName({})).toBe('claude');
    expect(spikeAgentRefusal('script')).toMatch(/^the script agent cannot run a spike/);
    expect(spikeAgentRefusal('claude')).toBeUndefined();
  });
});
