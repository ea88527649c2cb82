import { describe, expect, it } from 'vitest';
import { parseAnyDocument } from '../../../../app/engine/knowledge/documents/any-document.js';
import type { Reflector } from '../../../../app/engine/knowledge/lessons/reflector.js';
import { skillCandidates } from '../../../../app/engine/knowledge/skills/skill-candidate.js';
import { extractSkills } from '../../../../app/engine/knowledge/skills/skill-extraction.js';
import { knownEntries } from '../../../../app/engine/knowledge/skills/skill-known.js';
import { extractionEvents } from '../../../../app/engine/knowledge/skills/skill-trajectory.js';
import { appendTrajectory } from '../../../../app/engine/knowledge/documents/trajectory.js';
import { formatProblem } from '../../../../app/engine/core/spec/problem.js';
import { FIX, NOW, read, recurring, repairSet, SKILL_TEMPLATE } from './recorded.js';

const DAY = '2026-03-10';

async function extract(files: { path: string; text: string }[], known: { path: string; text: string }[] = [], judge?: Reflector) {
  const candidates = skillCandidates({ signals: read(files), lessons: [] });
  return extractSkills({
    candidates,
    known: knownEntries(known),
    template: SKILL_TEMPLATE,
    day: DAY,
    ...(judge ? { judge: { agent: judge, instructions: 'Judge the candidate.', source: 'test' } } : {}),
  });
}

function verdicts(x: { verdicts: { gate: string; pass: boolean }[] }): string[] {
  return x.verdicts.map((v) => `${v.gate}:${v.pass ? 'PASS' : 'FAIL'}`);
}

describe('skill extraction through the four gates', () => {
  it('extracts a repair that recurred in two plans, with an exact error, as a valid Agent Skill, each gate logged with its reason', async () => {
    const [x, ...rest] = await extract(recurring({ insight: FIX }));
    expect(rest).toEqual([]);
    expect(x!.decision).toBe('extracted');
    expect(verdicts(x!)).toEqual(['discovery-depth:PASS', 'reusability:PASS', 'trigger-clarity:PASS', 'verification:PASS']);
    expect(x!.verdicts.map((v) => v.reason)).toEqual([
      'found by trial and error: 2 failed attempts before the one that passed',
      'recurred in 2 plans: notes-service SPC-001/01-02; notes-service SPC-001/01-05',
      'exact error text recorded: "SQLITE_BUSY: database is locked"',
      'tested in the run: "Plan 01-02 (Storage) of SPC-001 passed on attempt 2, after 1 failed attempt."',
    ]);
    expect(x!.path).toBe('skills/sqlite-busy-database-locked-one-file/SKILL.md');
    const parsed = parseAnyDocument('skill', x!.path!, x!.text!);
    expect(parsed.problems.map((p) => formatProblem(p))).toEqual([]);
    // "When <error> → <fix>", the fix whole: what a brief and a person read first.
    expect(parsed.data!.description).toBe(
      'When "SQLITE_BUSY: database is locked" appears → One SQLite file per test file stops SQLITE_BUSY in parallel vitest runs. Use when working with sqlite, tests.',
    );
    expect(parsed.data!.metadata).toEqual({
      version: '1.0.0',
      'extracted-from': 'SPC-001/01-02',
      'extracted-on': DAY,
      source: 'repair',
      'judged-by': 'harness',
      tags: 'sqlite tests',
      signatures: 'SQLITE_BUSY: database is locked',
    });
    expect(x!.text).toContain('each test file now opens its own database in a temporary directory');
  });

  it('does not make a skill of a repair seen in one plan, however general its error reads', async () => {
    const [x] = await extract(repairSet({ insight: FIX }));
    expect(x!.decision).toBe('skipped');
    expect(verdicts(x!)).toEqual(['discovery-depth:PASS', 'reusability:FAIL', 'trigger-clarity:PASS', 'verification:PASS']);
    expect(x!.reason).toBe(
      'reusability: seen only in notes-service SPC-001/01-02: a skill needs a repair that recurred in 2 distinct plans; its trigger "SQLITE_BUSY: database is locked" may well recur, and a skill is drafted once it does',
    );
  });

  it('blocks a fix with no investigation, a documentation lookup, with the discovery-depth reason', async () => {
    const [x] = await extract(
      repairSet({
        failed: 0,
        insight: {
          summary: 'Set busy_timeout as the docs say for "SQLITE_BUSY: database is locked"',
          detail: 'According to the documentation, busy_timeout waits for the lock.',
        },
      }),
    );
    expect(x!.decision).toBe('skipped');
    expect(x!.reason).toMatch(
      /^discovery-depth: a documentation lookup \("the docs"\), with no failed attempt or investigation recorded; reusability: seen only in /,
    );
    expect(x!.text).toBeUndefined();
  });

  it('blocks a fix with no exact error message, with the trigger-clarity reason', async () => {
    const [x] = await extract(
      recurring({
        said: 'the storage layer behaves oddly sometimes',
        insight: { summary: 'Storage now works', detail: 'Traced it to shared state between tests.' },
      }),
    );
    expect(x!.decision).toBe('skipped');
    expect(verdicts(x!)).toEqual(['discovery-depth:PASS', 'reusability:PASS', 'trigger-clarity:FAIL', 'verification:PASS']);
    expect(x!.reason).toBe('trigger-clarity: no exact error message or symptom recorded (an error code such as ENOENT, or a quoted error line)');
  });

  it('blocks a fix never shown to work, with the verification reason', async () => {
    // No plan passed: each plan's insight is its own candidate, and neither was shown to work.
    const [x] = await extract(recurring({ verified: false, insight: FIX }));
    expect(x!.decision).toBe('skipped');
    expect(x!.verdicts.find((v) => v.gate === 'verification')).toEqual({
      gate: 'verification',
      pass: false,
      reason: 'the fix was not shown to work in the run: no attempt passed with it',
    });
  });

  it('links a duplicate of an active skill, and of an archived one, instead of extracting it again', async () => {
    const [first] = await extract(recurring({ insight: FIX }));
    const active = [{ path: first!.path!, text: first!.text! }];
    const [again] = await extract(recurring({ insight: FIX }, ['02-01', '02-02']), active);
    expect(again!.decision).toBe('linked');
    expect(again!.duplicate?.path).toBe('skills/sqlite-busy-database-locked-one-file/SKILL.md');
    expect(again!.reason).toMatch(/^a duplicate of skill skills\/sqlite-busy-database-locked-one-file\/SKILL\.md: /);
    const archived = [{ path: 'skills-archived/sqlite-busy-database-locked-one-file/SKILL.md', text: first!.text! }];
    const [rejected] = await extract(recurring({ insight: FIX }, ['03-01', '03-02']), archived);
    expect(rejected!.decision).toBe('linked');
    expect(rejected!.duplicate?.kind).toBe('archived-skill');
  });

  it("takes the reflector agent's verdicts when they read strictly, and falls back to harness's rules when they do not", async () => {
    const agent = (answer: string): Reflector => ({ name: 'claude', write: async () => answer });
    const strict =
      "Here are my verdicts.\ndiscovery-depth: PASS — traced the lock\nreusability: FAIL — only this repository's database layout\ntrigger-clarity: PASS — exact SQLITE_BUSY text\nverification: PASS — attempt 2 passed";
    const [judged] = await extract(recurring({ insight: FIX }), [], agent(strict));
    expect(judged!.judgedBy).toBe('claude');
    expect(judged!.reason).toBe("reusability: only this repository's database layout");
    const [loose] = await extract(recurring({ insight: FIX }), [], agent('discovery-depth: PASS — yes\nreusability: PASS — yes\ntrigger-clarity: PASS'));
    expect(loose!.judgedBy).toBe('harness');
    expect(loose!.judgeProblem).toBe("the claude judge's answer could not be read: its trigger-clarity verdict gives no reason");
    expect(loose!.decision).toBe('extracted');
  });

  it('logs one trajectory line per candidate, with the gates, and none twice', async () => {
    const xs = await extract([...recurring({ insight: FIX }), ...repairSet({ plan: '02-01', verified: false, insight: FIX })]);
    const events = extractionEvents(xs, { at: NOW, project: 'notes-service', origin: 'local' });
    const text = appendTrajectory(undefined, events)!;
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.type, l.decision, l.gates.map((g: { pass: boolean }) => g.pass)])).toEqual([
      ['extraction', 'extracted', [true, true, true, true]],
      ['extraction', 'skipped', [true, false, true, false]],
    ]);
    expect(appendTrajectory(text, events)).toBeUndefined();
  });
});
