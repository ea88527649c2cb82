import { describe, expect, it } from 'vitest';
import { parseAnyDocument } from '../../../../app/engine/knowledge/documents/any-document.js';
import type { Reflector } from '../../../../app/engine/knowledge/lessons/reflector.js';
import { skillCandidates } from '../../../../app/engine/knowledge/skills/skill-candidate.js';
import { extractSkills } from '../../../../app/engine/knowledge/skills/skill-extraction.js';
import { knownEntries } from '../../../../app/engine/knowledge/skills/skill-known.js';
import { extractionEvents } from '../../../../app/engine/knowledge/skills/skill-trajectory.js';
import { appendTrajectory } from '../../../../app/engine/knowledge/documents/trajectory.js';
import { formatProblem } from '../../../../app/engine/core/spec/problem.js';
import { FIX, NOW, read, repairSet, SKILL_TEMPLATE } from './recorded.js';

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
  it('extracts a verified repair with an exact error as a valid Agent Skill, each gate logged with its reason', async () => {
    const [x] = await extract(repairSet({ insight: FIX }));
    expect(x!.decision).toBe('extracted');
    expect(verdicts(x!)).toEqual(['discovery-depth:PASS', 'reusability:PASS', 'trigger-clarity:PASS', 'verification:PASS']);
    expect(x!.verdicts.map((v) => v.reason)).toEqual([
      'found by trial and error: 1 failed attempt before the one that passed',
      'its trigger "SQLITE_BUSY: database is locked" names no file of this project, and it applies wherever sqlite, tests are used',
      'exact error text recorded: "SQLITE_BUSY: database is locked"',
      'tested in the run: "Plan 01-02 (Storage) of SPC-001 passed on attempt 2, after 1 failed attempt."',
    ]);
    expect(x!.path).toBe('skills/sqlite-busy-database-locked-one-file/SKILL.md');
    const parsed = parseAnyDocument('skill', x!.path!, x!.text!);
    expect(parsed.problems.map((p) => formatProblem(p))).toEqual([]);
    expect(parsed.data!.description).toBe(
      'One SQLite file per test file stops SQLITE_BUSY in parallel vitest runs. Use when the error "SQLITE_BUSY: database is locked" appears, working with sqlite, tests.',
    );
    expect(parsed.data!.metadata).toEqual({ version: '1.0.0', 'extracted-from': 'SPC-001/01-02', 'extracted-on': DAY, source: 'repair', 'judged-by': 'harness', tags: 'sqlite tests' });
    expect(x!.text).toContain('each test file now opens its own database in a temporary directory');
  });

  it('blocks a fix with no investigation, a documentation lookup, with the discovery-depth reason', async () => {
    const [x] = await extract(repairSet({ failed: 0, insight: { summary: 'Set busy_timeout as the docs say for "SQLITE_BUSY: database is locked"', detail: 'According to the documentation, busy_timeout waits for the lock.' } }));
    expect(x!.decision).toBe('skipped');
    expect(x!.reason).toBe('discovery-depth: a documentation lookup ("the docs"), with no failed attempt or investigation recorded');
    expect(x!.text).toBeUndefined();
  });

  it('blocks a fix tied to this project\'s files, with the reusability reason', async () => {
    const [x] = await extract(repairSet({ said: 'cannot open src/db/notes.ts', tags: [] }));
    expect(verdicts(x!)).toEqual(['discovery-depth:PASS', 'reusability:FAIL', 'trigger-clarity:PASS', 'verification:PASS']);
    expect(x!.reason).toBe('reusability: seen only in notes-service SPC-001/01-02, and what triggers it is this project\'s own files ("cannot open src/db/notes.ts")');
  });

  it('blocks a fix with no exact error message, with the trigger-clarity reason', async () => {
    const [x] = await extract(repairSet({ said: 'the storage layer behaves oddly sometimes', insight: { summary: 'Storage now works', detail: 'Traced it to shared state between tests.' } }));
    expect(x!.decision).toBe('skipped');
    // Without an error text nothing says it applies elsewhere either: both reasons are given.
    expect(verdicts(x!)).toEqual(['discovery-depth:PASS', 'reusability:FAIL', 'trigger-clarity:FAIL', 'verification:PASS']);
    expect(x!.reason).toBe(
      'reusability: seen only in notes-service SPC-001/01-02, with nothing that says it applies elsewhere; trigger-clarity: no exact error message or symptom recorded (an error code such as ENOENT, or a quoted error line)',
    );
  });

  it('blocks a fix never shown to work, with the verification reason', async () => {
    const [x] = await extract(repairSet({ verified: false, insight: FIX }));
    expect(x!.decision).toBe('skipped');
    expect(x!.reason).toBe('verification: the fix was not shown to work in the run: no attempt passed with it');
  });

  it('links a duplicate of an active skill, and of an archived one, instead of extracting it again', async () => {
    const [first] = await extract(repairSet({ insight: FIX }));
    const active = [{ path: first!.path!, text: first!.text! }];
    const [again] = await extract(repairSet({ plan: '02-01', insight: FIX }), active);
    expect(again!.decision).toBe('linked');
    expect(again!.duplicate?.path).toBe('skills/sqlite-busy-database-locked-one-file/SKILL.md');
    expect(again!.reason).toMatch(/^a duplicate of skill skills\/sqlite-busy-database-locked-one-file\/SKILL\.md: /);
    const archived = [{ path: 'skills-archived/sqlite-busy-database-locked-one-file/SKILL.md', text: first!.text! }];
    const [rejected] = await extract(repairSet({ plan: '03-01', insight: FIX }), archived);
    expect(rejected!.decision).toBe('linked');
    expect(rejected!.duplicate?.kind).toBe('archived-skill');
  });

  it('takes the reflector agent\'s verdicts when they read strictly, and falls back to harness\'s rules when they do not', async () => {
    const agent = (answer: string): Reflector => ({ name: 'claude', write: async () => answer });
    const strict = 'Here are my verdicts.\ndiscovery-depth: PASS — traced the lock\nreusability: FAIL — only this repository\'s database layout\ntrigger-clarity: PASS — exact SQLITE_BUSY text\nverification: PASS — attempt 2 passed';
    const [judged] = await extract(repairSet({ insight: FIX }), [], agent(strict));
    expect(judged!.judgedBy).toBe('claude');
    expect(judged!.reason).toBe("reusability: only this repository's database layout");
    const [loose] = await extract(repairSet({ insight: FIX }), [], agent('discovery-depth: PASS — yes\nreusability: PASS — yes\ntrigger-clarity: PASS'));
    expect(loose!.judgedBy).toBe('harness');
    expect(loose!.judgeProblem).toBe("the claude judge's answer could not be read: its trigger-clarity verdict gives no reason");
    expect(loose!.decision).toBe('extracted');
  });

  it('logs one trajectory line per candidate, with the gates, and none twice', async () => {
    const xs = await extract([...repairSet({ insight: FIX }), ...repairSet({ plan: '02-01', verified: false, insight: FIX })]);
    const events = extractionEvents(xs, { at: NOW, project: 'notes-service', origin: 'local' });
    const text = appendTrajectory(undefined, events)!;
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.type, l.decision, l.gates.map((g: { pass: boolean }) => g.pass)])).toEqual([
      ['extraction', 'extracted', [true, true, true, true]],
      ['extraction', 'skipped', [true, true, true, false]],
    ]);
    expect(appendTrajectory(text, events)).toBeUndefined();
  });
});
