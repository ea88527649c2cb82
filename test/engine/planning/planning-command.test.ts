import { describe, expect, it } from 'vitest';
import { helpText } from '../../../app/engine/forge/help.js';
import type { ParseError } from '../../../app/engine/forge/parse-command.js';
import { parseCommand } from '../../../app/engine/forge/parse-command.js';
import { parseAgentPrompt, renderStage } from '../../../app/engine/planning/agent-prompt.js';
import { planningStages } from '../../../app/engine/planning/planning-steps.js';
import { loadTemplate } from '../../../app/machine/templates.js';

describe('the planning commands in the /harness grammar', () => {
  it('reads each with its arguments, a spec named first when wanted', () => {
    expect(parseCommand('/harness plan-spec')).toEqual({ name: 'plan-spec' });
    expect(parseCommand('/harness plan-spec SPC-002')).toEqual({ name: 'plan-spec', spec: 'SPC-002' });
    expect(parseCommand('/harness plan-phase 3')).toEqual({ name: 'plan-phase', phase: '03' });
    expect(parseCommand('/harness plan-phase SPC-002/03')).toEqual({ name: 'plan-phase', phase: '03', spec: 'SPC-002' });
    expect(parseCommand('/harness discuss-phase 12')).toEqual({ name: 'discuss-phase', phase: '12' });
    expect(parseCommand('/harness add-phase “Notes can be exported as CSV”')).toEqual({ name: 'add-phase', goal: 'Notes can be exported as CSV' });
    expect(parseCommand('/harness add-phase SPC-002 "Export"')).toEqual({ name: 'add-phase', goal: 'Export', spec: 'SPC-002' });
    expect(parseCommand('/harness map-codebase')).toEqual({ name: 'map-codebase' });
  });

  it('answers a slip with the form of the command', () => {
    const slip = (line: string) => (parseCommand(line) as ParseError).message;
    expect(slip('/harness plan-phase')).toBe('plan-phase needs the phase number; the form is `plan-phase <PP>`');
    expect(slip('/harness plan-phase three')).toBe('`three` is not a phase number (phases look like 03); the form is `plan-phase <PP>`');
    expect(slip('/harness add-phase Export')).toBe('put the goal in double quotes, and nothing after it; the form is `add-phase "<goal>"`');
    expect(slip('/harness plan-spec now')).toBe('plan-spec takes nothing after it, not "now"; the form is `plan-spec`');
    expect(slip('/harness plan-phsae 03')).toContain('did you mean');
  });

  it('lists them in /harness help, with no line a command could be read from', () => {
    const help = helpText();
    for (const name of [
      'plan-spec',
      'research-spec',
      'define-requirements',
      'create-roadmap',
      'discuss-phase 03',
      'research-phase 03',
      'plan-phase 03',
      'add-phase "<goal>"',
      'map-codebase',
    ]) {
      expect(help).toContain(`\`/harness ${name}\``);
    }
    expect(help.split('\n').some((l) => l.trimStart().startsWith('/harness'))).toBe(false);
  });
});

describe("the planner's, researcher's and verifier's instructions", () => {
  it('have a section for every stage of every command, and fill the placeholders', async () => {
    for (const agent of ['planner', 'researcher', 'verifier'] as const) {
      const text = await loadTemplate(`agents/${agent}.md`);
      const sections = [
        ...planningStages({ name: 'plan-spec' }),
        ...planningStages({ name: 'research-spec' }),
        ...planningStages({ name: 'define-requirements' }),
        ...planningStages({ name: 'create-roadmap' }),
        ...planningStages({ name: 'add-phase', goal: 'g' }),
        ...planningStages({ name: 'discuss-phase', phase: '01' }),
        ...planningStages({ name: 'discuss-phase', phase: '01' }, { questions: true, answers: true }),
        ...planningStages({ name: 'research-phase', phase: '01' }),
        ...planningStages({ name: 'plan-phase', phase: '01' }),
        ...planningStages({ name: 'map-codebase' }),
      ]
        .filter((s) => s.agent === agent)
        .map((s) => s.section);
      const parsed = parseAgentPrompt(`templates/agents/${agent}.md`, text, sections);
      expect(parsed.ok, agent).toBe(true);
      if (!parsed.ok) continue;
      expect(parsed.prompt.preamble).not.toContain('<!--');
      const stage = renderStage(parsed.prompt, sections[0]!, {
        spec: 'SPC-009',
        spec_dir: 'docs/specs/x',
        command: 'c',
        spec_title: 'T',
        phase: '01',
        phase_title: 'P',
        phase_goal: 'G',
        phase_checks: '- c',
        goal: 'g',
        files: '- f',
        now: 'n',
      });
      expect(stage).toContain('SPC-009');
      expect(stage).not.toMatch(/\{\{/);
    }
  });

  it("refuse a repository's version that dropped a stage, naming it", () => {
    const parsed = parseAgentPrompt('.github/harness/agents/planner.md', 'Plan well.\n\n## Project\n\nWrite it.\n', ['Project', 'Plans']);
    expect(parsed).toEqual({
      ok: false,
      problems: [
        expect.objectContaining({
          file: '.github/harness/agents/planner.md',
          line: 1,
          message: 'no "## Plans" section: harness gives that section to the agent at one of its stages; add it back',
        }),
      ],
    });
  });
});
