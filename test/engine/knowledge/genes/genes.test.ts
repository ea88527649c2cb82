import { describe, expect, it } from 'vitest';
import type { Plan } from '../../../../app/engine/core/spec/model.js';
import { capsuleFor } from '../../../../app/engine/knowledge/genes/capsule-record.js';
import { decay, type CapsuleRecord, type GeneRecord } from '../../../../app/engine/knowledge/genes/decay.js';
import { gdi } from '../../../../app/engine/knowledge/genes/gdi.js';
import { geneMetrics } from '../../../../app/engine/knowledge/genes/gene-metrics.js';
import { DEFAULT_GENE_SETTINGS, type GeneSettings } from '../../../../app/engine/knowledge/genes/gene-settings.js';
import { parseKnowledge } from '../../../../app/engine/knowledge/documents/parse.js';
import { tierVerdict } from '../../../../app/engine/knowledge/genes/tiers.js';
import { appendTrajectory, trajectoryEvents } from '../../../../app/engine/knowledge/documents/trajectory.js';
import { TrajectoryStats } from '../../../../app/engine/knowledge/documents/trajectory-stats.js';
import { applications, CAPSULE_TEMPLATE, CREATED, DAY, geneRecord, statsOf } from './gene-helpers.js';

const ID = 'gene-20260301-0a1b2c3d';
const PATH = `genes/${ID}.gene.md`;
const S = DEFAULT_GENE_SETTINGS;

function decide(genes: GeneRecord[], trajectory: string, now: Date, capsules: CapsuleRecord[] = [], settings: GeneSettings = S) {
  return decay({ genes, capsules, stats: statsOf(trajectory), settings, now, project: 'notes-service' });
}

function capsule(genes: string[], impact: number, commands: string[] = []): CapsuleRecord {
  return {
    path: 'capsules/cap-20260301-00000001.capsule.md',
    capsule: {
      id: 'cap-20260301-00000001',
      name: 'c',
      description: 'd',
      genes,
      steps: [{ action: 'a', outcome: 'success' }, ...commands.map((command) => ({ action: 'check', command, outcome: 'success' as const }))],
      validation: { confidence: 1, impact_scope: impact, consecutive_successes: 1, test_pass_rate: 1 },
      scope: 'project',
      project: 'notes-service',
      publishable: false,
      audit_log: [],
      tags: [],
    },
  };
}

describe('the trajectory aggregator', () => {
  it('counts a matched attempt with a use as a success and one without as a failure, in time order, with the run at the end', () => {
    const text = applications(PATH, [true, false, true, true], CREATED);
    const s = statsOf(text).get(PATH)!;
    expect(s).toMatchObject({
      matches: 4,
      uses: 3,
      successes: 3,
      failures: 1,
      successRate: 0.75,
      consecutiveSuccesses: 2,
      consecutiveFailures: 0,
      firstSeen: '2026-03-01T00:00:00.000Z',
      lastMatch: '2026-03-04T00:00:00.000Z',
      lastUse: '2026-03-04T00:00:00.000Z',
      places: 3,
    });
  });

  it('reads the day files in any order, and skips what is not an event without guessing', () => {
    const [a, b] = [applications(PATH, [false, false], CREATED), applications(PATH, [true], new Date(CREATED.getTime() + 5 * DAY), ['02-01'])];
    const stats = new TrajectoryStats();
    stats.addText(b!);
    stats.addText('a note someone wrote\n{"broken":\n');
    stats.addText(a!);
    expect(stats.skipped).toBe(2);
    expect(stats.result().get(PATH)).toMatchObject({ successes: 1, failures: 2, consecutiveSuccesses: 1, consecutiveFailures: 0 });
  });

  it("reads a line written by hand (spaces, other key order, escapes) as harness's own", () => {
    const written = applications(PATH, [true, false], CREATED);
    const byHand = written
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .map((e, i) =>
        i % 2 === 0
          ? JSON.stringify({ ...e, why: 'a "quoted" why' }, null, 1).replace(/\n/g, ' ')
          : JSON.stringify(Object.fromEntries(Object.entries(e).reverse())),
      )
      .join('\n');
    const a = statsOf(written).get(PATH)!;
    const b = statsOf(byHand).get(PATH)!;
    expect(b).toEqual(a);
  });

  it('has one line per event: the same attempt logged again adds nothing', () => {
    const events = trajectoryEvents({
      entries: [{ path: PATH, kind: 'gene', title: 'g', text: 't', score: 1, why: 'w' }],
      project: 'p',
      spec: 'SPC-001',
      plan: '01-01',
      attempt: 1,
      verified: true,
      at: CREATED,
      origin: 'o',
    });
    const once = appendTrajectory(undefined, events)!;
    expect(once.trim().split('\n')).toHaveLength(2);
    expect(appendTrajectory(once, events)).toBeUndefined();
  });
});

describe('gene metrics', () => {
  it("come from the trajectory; the gene's own figures stand only when the trajectory never saw it applied", () => {
    const g = geneRecord({ id: ID, success_rate: 0.9, usage_count: 12, consecutive_successes: 5 });
    expect(geneMetrics(g.gene, undefined)).toMatchObject({ successRate: 0.9, usageCount: 12, consecutiveSuccesses: 5, from: 'gene' });
    expect(geneMetrics(g.gene, statsOf(applications(PATH, [true, false], CREATED)).get(PATH))).toMatchObject({
      successRate: 0.5,
      usageCount: 2,
      consecutiveFailures: 1,
      from: 'trajectory',
      lastUsed: '2026-03-02T00:00:00.000Z',
    });
  });

  it('never count a plan that ran without being verified as a success', () => {
    const s = statsOf(applications(PATH, [false, false, false], CREATED)).get(PATH)!;
    expect(s.successes).toBe(0);
    expect(geneMetrics(geneRecord({ id: ID }).gene, s).successRate).toBe(0);
  });
});

describe('tiers', () => {
  const now = new Date(CREATED.getTime() + 10 * DAY);

  it('tier 1 promotes at a 0.7 success rate over 2 or more applications, and not below either', () => {
    const g = [geneRecord({ id: ID })];
    // 7 of 10 verified: exactly 0.7.
    const at = decide(g, applications(PATH, [true, true, true, false, true, false, true, false, true, true], CREATED), now);
    expect(at.changes.map((c) => [c.action, c.to, c.verdict?.tier])).toEqual([['promote', 'active', 1]]);
    expect(parseKnowledge('gene', PATH, at.changes[0]!.text!).data).toMatchObject({
      status: 'active',
      success_rate: 0.7,
      usage_count: 10,
      consecutive_successes: 2,
      last_used: '2026-03-10T00:00:00.000Z',
      updated: now.toISOString(),
    });

    const below = decide(g, applications(PATH, [true, true, false], new Date(now.getTime() - 3 * DAY)), now);
    expect(below.changes).toEqual([]);
    expect(below.kept[0]!.why).toBe('tier 1 not met: success rate 66.7% (needs ≥ 70%)');
    const once = decide(g, applications(PATH, [true], new Date(now.getTime() - DAY)), now);
    expect(once.changes).toEqual([]);
    expect(once.kept[0]!.why).toBe('tier 1 not met: applications 1 (needs ≥ 2)');
  });

  it('tier 2 also needs the GDI score and an impact scope of at most 5 files', () => {
    const g = geneRecord({ id: ID, type: 'prompt' });
    const trajectory = applications(PATH, [true, true], new Date(now.getTime() - DAY), ['01-01', '02-01']);
    const metrics = geneMetrics(g.gene, statsOf(trajectory).get(PATH));
    const score = gdi(metrics, now).score;
    // 2 of 2 in two plans, last today: 0.4 + 0.25·ln3/ln11 + 0.2 + 0.15·2/5.
    expect(score).toBeCloseTo(0.775, 3);
    expect(decide([g], trajectory, now, [capsule([ID], 5)]).changes.map((c) => c.action)).toEqual(['promote']);
    expect(decide([g], trajectory, now, [capsule([ID], 6)]).kept[0]!.why).toBe('tier 2 not met: impact scope 6 files (needs ≤ 5)');
    expect(decide([g], trajectory, now).kept[0]!.why).toMatch(/^tier 2 not met: impact scope unknown/);
    expect(decide([g], trajectory, now, [capsule([ID], 5)], { ...S, minGdi: score }).changes).toHaveLength(1);
    expect(decide([g], trajectory, now, [capsule([ID], 5)], { ...S, minGdi: score + 0.001 }).kept[0]!.why).toBe(
      `tier 2 not met: GDI score ${score.toFixed(3)} (needs ≥ ${score + 0.001})`,
    );
  });

  it('tier 3 also needs its validation commands seen passing in a worker, and says a person reviews it', () => {
    const g = geneRecord({ id: ID, type: 'workflow', validation: ['npm test -- notes'] });
    const trajectory = applications(PATH, [true, true], new Date(now.getTime() - DAY), ['01-01', '02-01']);
    const missing = decide([g], trajectory, now, [capsule([ID], 2)]);
    expect(missing.kept[0]!.why).toBe('tier 3 not met: validation in a worker not yet seen passing: `npm test -- notes`');
    const passed = decide([g], trajectory, now, [capsule([ID], 2, ['npm test -- notes'])]);
    expect(passed.changes[0]!.verdict!.criteria.map((c) => [c.name, c.met])).toEqual([
      ['success rate', true],
      ['applications', true],
      ['GDI score', true],
      ['impact scope', true],
      ['validation in a worker', true],
      ["a person's review", true],
    ]);
    // metadata.tier raises a pattern to tier 3; it never lowers a workflow.
    expect(tierVerdict(geneRecord({ id: ID, metadata: { tier: 3 } }).gene, geneMetrics(g.gene, undefined), { passedCommands: new Set() }, S, now).tier).toBe(3);
    expect(
      tierVerdict(geneRecord({ id: ID, type: 'workflow', metadata: { tier: 1 } }).gene, geneMetrics(g.gene, undefined), { passedCommands: new Set() }, S, now)
        .tier,
    ).toBe(3);
  });
});

describe('decay', () => {
  it('deprecates a gene not applied for 7 days, and not a moment before', () => {
    const g = [geneRecord({ id: ID, status: 'active', success_rate: 0.9, usage_count: 4 })];
    const lastApplied = new Date('2026-03-03T00:00:00Z');
    const t = applications(PATH, [true, true], new Date(lastApplied.getTime() - DAY));
    expect(decide(g, t, new Date(lastApplied.getTime() + 7 * DAY - 1)).changes).toEqual([]);
    const at = decide(g, t, new Date(lastApplied.getTime() + 7 * DAY));
    expect(at.changes.map((c) => [c.action, c.from, c.to, c.reason])).toEqual([
      ['deprecate', 'active', 'deprecated', 'not applied for 7 days since its last application (deprecated after 7)'],
    ]);
    expect(at.changes[0]!.text).toContain('- 2026-03-10: active → deprecated: not applied for 7 days');
  });

  it('removes a deprecated gene not applied for 14 days, and not a moment before', () => {
    const g = [geneRecord({ id: ID, status: 'deprecated', last_used: '2026-03-02T00:00:00Z' })];
    const last = Date.parse('2026-03-02T00:00:00Z');
    expect(decide(g, '', new Date(last + 14 * DAY - 1)).kept[0]!.why).toBe('deprecated; removed after 14 days without an application (13 days so far)');
    const at = decide(g, '', new Date(last + 14 * DAY));
    expect(at.changes.map((c) => [c.action, c.from, c.to, c.text])).toEqual([['remove', 'deprecated', undefined, undefined]]);
  });

  it('demotes an active gene whose success rate fell below 0.5, once it has been applied at least twice', () => {
    const now = new Date(CREATED.getTime() + 4 * DAY);
    const g = [geneRecord({ id: ID, status: 'active' })];
    expect(decide(g, applications(PATH, [true, false, false], CREATED), now).changes.map((c) => [c.action, c.to, c.reason])).toEqual([
      ['demote', 'candidate', 'its success rate fell to 33% over 3 applications (below 50%)'],
    ]);
    expect(decide(g, applications(PATH, [true, false], CREATED), now).changes).toEqual([]);
    expect(decide(g, applications(PATH, [false], CREATED), now).changes).toEqual([]);
  });

  it('logs one trajectory line per change, the same line when the same change is proposed again', () => {
    const g = [geneRecord({ id: ID, status: 'deprecated', last_used: '2026-03-02T00:00:00Z' })];
    const first = decide(g, '', new Date('2026-03-20T00:00:00Z')).changes[0]!.event;
    const again = decide(g, '', new Date('2026-03-20T06:00:00Z')).changes[0]!.event;
    expect(first).toMatchObject({ type: 'remove', entry: PATH, kind: 'gene', from: 'deprecated' });
    const text = appendTrajectory(undefined, [first])!;
    expect(appendTrajectory(text, [again])).toBeUndefined();
  });
});

describe('capsules', () => {
  const plan = {
    id: '02-01',
    title: 'The tags store',
    steps: [{ title: 'Add the store', lang: 'sh', script: 'true', line: 10 }],
    mustPass: [
      { id: 'unit', type: 'command', command: 'npm test -- tags' },
      { id: 'types', type: 'command', command: 'npx tsc --noEmit' },
    ],
  } as unknown as Plan;
  const base = {
    spec: 'SPC-002',
    plan,
    results: [
      { id: 'unit', type: 'command', status: 'pass', plan: '02-01' },
      { id: 'types', type: 'command', status: 'pass', plan: '02-01' },
    ] as never,
    changedFiles: ['src/tags.ts', 'test/tags.test.ts', 'src/tags.ts'],
    project: 'notes-service',
    origin: 'local:SPC-002:2026-03-06T10:00:00Z',
    at: new Date('2026-03-06T14:02:00Z'),
    template: CAPSULE_TEMPLATE,
  };

  it('records the genes applied, the path, the outcome, the confidence and the blast radius of a plan verified with genes', () => {
    const made = capsuleFor({
      ...base,
      attempt: 2,
      entries: [
        { path: PATH, kind: 'gene', title: 'g', text: 't', score: 2, why: 'tags sqlite' },
        { path: 'lessons/testing/x.lesson.md', kind: 'lesson', title: 'l', text: 't', score: 1, why: 'w' },
      ],
    })!;
    expect(made.path).toMatch(/^capsules\/cap-20260306-[0-9a-f]{8}\.capsule\.md$/);
    const parsed = parseKnowledge('capsule', made.path, made.text);
    expect(parsed.problems).toEqual([]);
    expect(parsed.data).toMatchObject({
      genes: [ID],
      steps: [
        { action: 'Add the store', outcome: 'success' },
        { action: 'Check unit (command)', command: 'npm test -- tags', outcome: 'success' },
        { action: 'Check types (command)', command: 'npx tsc --noEmit', outcome: 'success' },
      ],
      validation: { confidence: 0.8, impact_scope: 2, consecutive_successes: 1, test_pass_rate: 1 },
      scope: 'project',
      project: 'notes-service',
    });
    expect(made.event).toMatchObject({ type: 'capsule', entry: made.path, kind: 'capsule', genes: [ID] });
    // The same attempt makes the same capsule.
    expect(capsuleFor({ ...base, attempt: 2, entries: [{ path: PATH, kind: 'gene', title: 'g', text: 't', score: 2, why: 'w' }] })!.path).toBe(made.path);
  });

  it('is not recorded when no gene was in the brief', () => {
    expect(
      capsuleFor({ ...base, attempt: 1, entries: [{ path: 'lessons/testing/x.lesson.md', kind: 'lesson', title: 'l', text: 't', score: 1, why: 'w' }] }),
    ).toBeUndefined();
  });
});
