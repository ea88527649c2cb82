import { describe, expect, it } from 'vitest';
import { parsePlan } from '../../../../app/engine/core/spec/plan.js';

const FILE = 'docs/specs/SPC-001/planning/plans/01-core/01-01-PLAN.md';
const plan = (front: string) =>
  `---\nplan_id: "01-01"\ntitle: Greeting\nfiles_modified: ["out/a.txt"]\nmust_pass:\n  - { id: a, type: file_exists, path: out/a.txt }\n${front}---\n# Greeting\n\nWrite it.\n`;

describe("a plan's fallback list", () => {
  it('is accepted with other engines than its own agent', () => {
    const { plan: p, problems } = parsePlan(FILE, plan('agent: claude\nfallback: [codex, gemini]\n'), '01-core');
    expect(problems.filter((x) => x.severity !== 'warning')).toEqual([]);
    expect(p!.fallback).toEqual(['codex', 'gemini']);
  });

  it("refuses the plan's own agent, naming the file, the line and the fix", () => {
    const { problems } = parsePlan(FILE, plan('agent: codex\nfallback:\n  - gemini\n  - codex\n'), '01-core');
    const p = problems.find((x) => x.message.includes('own agent'));
    expect(p).toMatchObject({ file: FILE, line: 10 });
    expect(p!.message).toContain('remove it from fallback');
  });

  it('refuses an engine listed twice, and an unknown engine', () => {
    expect(parsePlan(FILE, plan('fallback: [codex, codex]\n'), '01-core').problems.some((x) => x.message.includes('"codex" twice'))).toBe(true);
    const unknown = parsePlan(FILE, plan('fallback: [codx]\n'), '01-core').problems;
    expect(unknown.some((x) => x.file === FILE && x.line === 7)).toBe(true);
  });
});
