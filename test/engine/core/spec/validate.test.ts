import { describe, expect, it } from 'vitest';
import { MAX_PLAN_BYTES } from '../../../../app/engine/core/spec/limits.js';
import { loadSpec } from '../../../../app/engine/core/spec/load.js';
import { formatProblem } from '../../../../app/engine/core/spec/problem.js';
import { planMd, planPath, SPEC_MD, specFiles, specOf } from '../../../helpers/spec.js';

/** Every problem of a spec as `file:line: message`, the way the CLI prints them. */
function problemsOf(files: ReturnType<typeof specFiles>): string[] {
  return loadSpec(files).problems.map((p) => formatProblem(p));
}

const PLAN = planPath('01-01');

function withPlan(text: string | Uint8Array, extra: Record<string, string | Uint8Array> = {}) {
  return specFiles({ 'SPEC.md': SPEC_MD, [PLAN]: text, ...extra });
}

describe('harness validate: a clean spec', () => {
  it('has no problems and yields plans ordered by phase and number', () => {
    const loaded = loadSpec(specOf([{ id: '02-01', dependsOn: ['01-02'] }, { id: '01-02', dependsOn: ['01-01'] }, { id: '01-01' }]));
    expect(loaded.problems).toEqual([]);
    expect(loaded.valid).toBe(true);
    expect(loaded.spec?.plans.map((p) => p.id)).toEqual(['01-01', '01-02', '02-01']);
    expect(loaded.spec?.phases.map((p) => [p.id, p.title, p.plans])).toEqual([
      ['01', 'Phase', ['01-01', '01-02']],
      ['02', 'Phase', ['02-01']],
    ]);
  });
});

describe('harness validate: file-level problems', () => {
  it('reports malformed YAML at the line of the error', () => {
    const text = '---\nplan_id: "01-01"\ntitle: A\ndepends_on: [01-00\n---\n';
    expect(problemsOf(withPlan(text))).toEqual([`${PLAN}:4: malformed YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`]);
  });

  it('reports a duplicated key at its second occurrence', () => {
    const text = planMd({ id: '01-01', extra: 'title: Again' });
    expect(problemsOf(withPlan(text))).toEqual([`${PLAN}:8: malformed YAML: Map keys must be unique`]);
  });

  it('reports a plan without frontmatter', () => {
    expect(problemsOf(withPlan('# Just a heading\n'))).toEqual([
      `${PLAN}:1: no YAML frontmatter: start the file with a line "---", the keys, and a closing "---" (see templates/)`,
    ]);
  });

  it('reports frontmatter that is never closed', () => {
    expect(problemsOf(withPlan('---\nplan_id: "01-01"\ntitle: A\n'))).toEqual([
      `${PLAN}:1: frontmatter opened on line 1 is never closed: add a line "---" after the last key`,
    ]);
  });

  it('reports frontmatter that is not a mapping', () => {
    expect(problemsOf(withPlan('---\n- a\n- b\n---\n'))).toEqual([`${PLAN}:2: frontmatter must be a mapping of keys to values, like "title: Login endpoint"`]);
  });

  it('reports an empty file', () => {
    expect(problemsOf(withPlan('  \n\n'))).toEqual([`${PLAN}:1: file is empty; fill it in from the template in templates/`]);
  });

  it('reports an oversized plan and states the limit', () => {
    const text = planMd({ id: '01-01' }) + 'x'.repeat(MAX_PLAN_BYTES);
    expect(problemsOf(withPlan(text))).toEqual([
      `${PLAN}:1: file is ${text.length.toLocaleString('en-US')} bytes, over the 60,000 bytes limit; split it into smaller files`,
    ]);
  });

  it('reports the size an adapter saw even when it read only part of the file', () => {
    const files = withPlan('x');
    files[1] = { path: PLAN, bytes: new Uint8Array(MAX_PLAN_BYTES + 1), size: 5 * 1_048_576 };
    expect(problemsOf(files)).toEqual([`${PLAN}:1: file is 5 MiB, over the 60,000 bytes limit; split it into smaller files`]);
  });

  it('reports text that is not UTF-8 at the line of the first bad byte', () => {
    const good = new TextEncoder().encode('---\nplan_id: "01-01"\ntitle: Caf');
    const bytes = new Uint8Array([...good, 0xe9, 0x0a, ...new TextEncoder().encode('---\n')]);
    expect(problemsOf(withPlan(bytes))).toEqual([`${PLAN}:3: not valid UTF-8 text (byte 31 is 0xe9); save the file as UTF-8`]);
  });

  it('accepts a UTF-8 byte order mark and Windows line endings', () => {
    const text = `\uFEFF${planMd({ id: '01-01' }).replace(/\n/g, '\r\n')}`;
    expect(problemsOf(withPlan(text))).toEqual([]);
  });
});

describe('harness validate: fields', () => {
  it('reports a missing required key on the opening line', () => {
    const text = '---\nplan_id: "01-01"\nmust_pass:\n  - { id: t, type: tests_pass, command: "npm test" }\n---\n';
    expect(problemsOf(withPlan(text))).toEqual([`${PLAN}:1: missing required key "title": a short line of text`]);
  });

  it('reports a mistyped key with what was found and what to write', () => {
    const text = planMd({ id: '01-01', extra: 'autonomous: "yes"\ntimeout_minutes: 900' });
    expect(problemsOf(withPlan(text))).toEqual([
      `${PLAN}:8: autonomous is "yes"; it must be true or false`,
      `${PLAN}:9: timeout_minutes is the number 900; it must be whole minutes from 1 to 360 (GitHub-hosted jobs stop after six hours)`,
    ]);
  });

  it('reports an unquoted plan id that YAML read as a number', () => {
    const text = planMd({ id: '01-01' }).replace('plan_id: "01-01"', 'plan_id: 101');
    expect(problemsOf(withPlan(text))).toEqual([`${PLAN}:2: plan_id is the number 101; it must be a plan id PP-NN such as "03-02" (PP is the phase), quoted`]);
  });

  it('reports a malformed plan id in depends_on at its own line', () => {
    const text = planMd({ id: '01-01' }).replace('depends_on: []', 'depends_on:\n  - "01-00"\n  - "1.2"');
    expect(problemsOf(withPlan(text))).toEqual([
      `${PLAN}:5: depends_on "01-00" is not a plan in this spec`,
      `${PLAN}:6: depends_on[1] is "1.2"; it must be a plan id PP-NN such as "03-01", quoted`,
    ]);
  });

  it('suggests the key that was meant for an unknown key', () => {
    const text = planMd({ id: '01-01', extra: 'depend_on: ["01-00"]' });
    expect(problemsOf(withPlan(text))).toEqual([`${PLAN}:8: unknown key "depend_on"; did you mean "depends_on"?`]);
  });

  it("points keys of the author's own to metadata", () => {
    const text = planMd({ id: '01-01', extra: 'owner: ana' });
    expect(problemsOf(withPlan(text))).toEqual([`${PLAN}:8: unknown key "owner"; put keys of your own under metadata:`]);
    expect(problemsOf(withPlan(planMd({ id: '01-01', extra: 'metadata: { owner: ana }' })))).toEqual([]);
  });

  it('reports an unknown checkpoint kind with the allowed ones', () => {
    const text = planMd({ id: '01-01', extra: 'checkpoints: [decisoin]' });
    expect(problemsOf(withPlan(text))).toEqual([
      `${PLAN}:8: checkpoints[0] is "decisoin"; it must be one of decision, verification, action; did you mean "decision"?`,
    ]);
  });

  it('warns that wave is ignored', () => {
    const text = planMd({ id: '01-01', extra: 'wave: 2' });
    expect(problemsOf(withPlan(text))).toEqual([`${PLAN}:8: warning: wave is ignored: harness orders plans by depends_on`]);
    expect(loadSpec(withPlan(text)).valid).toBe(true);
  });
});

describe('harness validate: must_pass checks', () => {
  const withChecks = (checks: string, extra?: string) => withPlan(planMd({ id: '01-01', mustPass: `must_pass:\n${checks}`, ...(extra ? { extra } : {}) }));

  it('reports an unknown verification type and suggests the nearest', () => {
    expect(problemsOf(withChecks('  - { id: t, type: test_pass, command: "npm test" }'))).toEqual([
      `${PLAN}:7: must_pass[0].type "test_pass" is not a verification type; did you mean "tests_pass"?; use one of file_exists, file_contains, command_output, build_succeeds, tests_pass, api_response, ui_element_exists, ui_navigation, human, visual_quality, ux_flow, artifact, key_link`,
    ]);
  });

  it('reports a check without a type', () => {
    expect(problemsOf(withChecks('  - { id: t, command: "npm test" }'))).toEqual([
      `${PLAN}:7: must_pass[0] has no "type"; it must be one of file_exists, file_contains, command_output, build_succeeds, tests_pass, api_response, ui_element_exists, ui_navigation, human, visual_quality, ux_flow, artifact, key_link`,
    ]);
  });

  it('reports a missing field of a check and an unknown one', () => {
    const checks = '  - id: exists\n    type: file_exists\n  - id: t\n    type: tests_pass\n    command: npm test\n    comand: x';
    expect(problemsOf(withChecks(checks))).toEqual([
      `${PLAN}:7: missing required key "path" in must_pass[0]: a path relative to the repository root`,
      `${PLAN}:12: unknown key "comand" in must_pass[1]; did you mean "command"?`,
    ]);
  });

  it('reports two checks with the same id', () => {
    const checks = '  - { id: t, type: tests_pass, command: "npm test" }\n  - { id: t, type: file_exists, path: src/a.ts }';
    expect(problemsOf(withChecks(checks))).toEqual([`${PLAN}:8: must_pass[1]: check id "t" is already used by must_pass[0]; give each check its own id`]);
  });

  it('reports a regular expression that does not compile', () => {
    expect(problemsOf(withChecks('  - { id: c, type: file_contains, path: src/a.ts, pattern: "export (" }'))).toEqual([
      `${PLAN}:7: must_pass[0].pattern is not a valid regular expression: /export (/: Unterminated group`,
    ]);
  });

  it('reports an api check that nothing serves', () => {
    const checks = '  - id: login\n    type: api_response\n    request: POST /api/login\n    expect: { status: 200 }';
    expect(problemsOf(withChecks(checks))).toEqual([
      `${PLAN}:9: must_pass[0] (api_response) calls "/api/login" but nothing serves it; add serve: { command: "npm start", url: "http://127.0.0.1:3000" } or use an absolute URL`,
    ]);
    expect(problemsOf(withChecks(checks, 'serve: { command: "node server.js", url: "http://127.0.0.1:{port}" }'))).toEqual([]);
  });

  it('warns about a command that cannot fail', () => {
    const checks = '  - { id: t, type: tests_pass, command: "npm test" }\n  - { id: noop, type: build_succeeds, command: "true" }';
    expect(problemsOf(withChecks(checks))).toEqual([
      `${PLAN}:8: warning: must_pass[1].command "true" succeeds whatever the work did; run something that can fail`,
    ]);
  });
});

describe('harness validate: vacuous plans', () => {
  it('rejects a plan without must_pass', () => {
    const text = '---\nplan_id: "01-01"\ntitle: A\n---\n';
    expect(problemsOf(withPlan(text))).toEqual([
      `${PLAN}:2: plan 01-01 has no must_pass checks, so it could pass without the work being done; add a machine-checkable check such as { id: tests, type: tests_pass, command: "npm test" }`,
    ]);
  });

  it('rejects an autonomous plan whose only checks need a person', () => {
    const text = planMd({ id: '01-01', mustPass: 'must_pass:\n  - { id: look, type: visual_quality, prompt: "Does the page look right?" }' });
    expect(problemsOf(withPlan(text))).toEqual([
      `${PLAN}:6: plan 01-01 has only human checks but is autonomous: true, so it could pass without the work being done; add a machine-checkable check such as { id: tests, type: tests_pass, command: "npm test" }`,
    ]);
  });

  it('accepts human checks on a plan a person supervises', () => {
    const text = planMd({
      id: '01-01',
      mustPass: 'must_pass:\n  - { id: look, type: human, kind: ux_flow, prompt: "Walk through sign-up" }',
      extra: 'autonomous: false',
    });
    expect(problemsOf(withPlan(text))).toEqual([]);
    expect(loadSpec(withPlan(text)).spec?.plans[0]?.mustPass).toEqual([{ id: 'look', type: 'human', kind: 'ux_flow', prompt: 'Walk through sign-up' }]);
  });

  it('rejects a plan whose checks all succeed whatever happens', () => {
    const text = planMd({ id: '01-01', mustPass: 'must_pass:\n  - { id: t, type: tests_pass, command: "echo ok" }' });
    expect(problemsOf(withPlan(text))).toEqual([
      `${PLAN}:6: plan 01-01 has only checks that cannot fail, so it could pass without the work being done; add a machine-checkable check such as { id: tests, type: tests_pass, command: "npm test" }`,
      `${PLAN}:7: warning: must_pass[0].command "echo ok" succeeds whatever the work did; run something that can fail`,
    ]);
  });
});

describe('harness validate: paths stay inside the repository', () => {
  it('rejects globs with ".." or an absolute path, and negated globs', () => {
    const text = planMd({ id: '01-01', filesModified: ['src/ok.ts', '../secrets/**', '/etc/passwd', '!src/**'] });
    expect(problemsOf(withPlan(text))).toEqual([
      `${PLAN}:5: files_modified[1] "../secrets/**" points outside the repository with ".."; write it relative to the repository root`,
      `${PLAN}:5: files_modified[2] "/etc/passwd" is absolute; write it relative to the repository root`,
      `${PLAN}:5: files_modified[3] "!src/**" is a negated glob; list what the plan touches instead`,
    ]);
  });

  it('rejects check paths outside the repository', () => {
    const text = planMd({
      id: '01-01',
      mustPass: 'must_pass:\n  - { id: t, type: tests_pass, command: "npm test", cwd: "../other" }\n  - { id: f, type: file_exists, path: "C:\\\\x" }',
    });
    expect(problemsOf(withPlan(text))).toEqual([
      `${PLAN}:7: must_pass[0].cwd "../other" points outside the repository with ".."; write it relative to the repository root`,
      `${PLAN}:8: must_pass[1].path "C:\\x" is absolute; write it relative to the repository root`,
    ]);
  });

  it('still reports paths when other keys are wrong too', () => {
    const text = planMd({ id: '01-01', filesModified: ['../x'], extra: 'autonomous: 3' });
    expect(problemsOf(withPlan(text))).toEqual([
      `${PLAN}:5: files_modified[0] "../x" points outside the repository with ".."; write it relative to the repository root`,
      `${PLAN}:8: autonomous is the number 3; it must be true or false`,
    ]);
  });
});

describe('harness validate: plans together', () => {
  it('reports duplicate plan ids, pointing at the first', () => {
    const files = specFiles({
      'SPEC.md': SPEC_MD,
      'planning/plans/01-a/01-01-PLAN.md': planMd({ id: '01-01' }),
      'planning/plans/01-a/01-02-PLAN.md': planMd({ id: '01-01' }),
    });
    expect(problemsOf(files)).toEqual([
      'planning/plans/01-a/01-02-PLAN.md:2: plan id "01-01" is already used by planning/plans/01-a/01-01-PLAN.md:2; give each plan its own id',
      'planning/plans/01-a/01-02-PLAN.md:2: plan_id "01-01" does not match the file name 01-02-PLAN.md; name the file 01-01-PLAN.md or fix the id',
    ]);
  });

  it('reports an unknown dependency and suggests a near id', () => {
    const files = specOf([{ id: '01-01' }, { id: '01-02', dependsOn: ['01-10'] }]);
    expect(problemsOf(files)).toEqual([`${planPath('01-02')}:4: depends_on "01-10" is not a plan in this spec; did you mean "01-01"?`]);
  });

  it('does not report a dependency on a plan that exists but is itself broken', () => {
    const files = specOf([
      { id: '01-01', extra: 'autonomous: maybe' },
      { id: '01-02', dependsOn: ['01-01'] },
    ]);
    expect(problemsOf(files)).toEqual([`${planPath('01-01')}:8: autonomous is "maybe"; it must be true or false`]);
  });

  it('reports a plan that depends on itself', () => {
    expect(problemsOf(specOf([{ id: '01-01', dependsOn: ['01-01'] }]))).toEqual([`${PLAN}:4: plan 01-01 depends on itself; remove "01-01" from depends_on`]);
  });

  it('reports a cycle and prints it', () => {
    const files = specOf([
      { id: '01-01', dependsOn: ['01-03'] },
      { id: '01-02', dependsOn: ['01-01'] },
      { id: '01-03', dependsOn: ['01-02'] },
      { id: '01-04', dependsOn: ['01-03'] },
    ]);
    expect(problemsOf(files)).toEqual([
      `${PLAN}:4: dependency cycle: 01-01 → 01-03 → 01-02 → 01-01 (each depends on the next); remove one of these depends_on entries`,
    ]);
  });

  it('reports a plan that depends on a later phase', () => {
    const files = specOf([{ id: '01-01', dependsOn: ['02-01'] }, { id: '02-01' }]);
    expect(problemsOf(files)).toEqual([
      `${PLAN}:4: plan 01-01 (phase 01) depends on 02-01 from the later phase 02; a plan may depend only on plans of its own or an earlier phase (a plan starts once its dependencies are verified, but phases are verified in order), so move one of the plans or drop the dependency`,
    ]);
  });

  it('accepts a dependency on an earlier phase', () => {
    expect(problemsOf(specOf([{ id: '01-01' }, { id: '02-01', dependsOn: ['01-01'] }]))).toEqual([]);
  });
});

describe('harness validate: where plans live', () => {
  it('reports a plan whose id does not match its phase directory', () => {
    const files = specFiles({ 'SPEC.md': SPEC_MD, 'planning/plans/02-api/01-01-PLAN.md': planMd({ id: '01-01' }) });
    expect(problemsOf(files)).toEqual([
      'planning/plans/02-api/01-01-PLAN.md:2: plan_id "01-01" belongs to phase 01 but the file is in 02-api; fix the id or move the file',
    ]);
  });

  it('reports a plan outside a phase directory', () => {
    const files = specFiles({ 'SPEC.md': SPEC_MD, 'planning/plans/01-01-PLAN.md': planMd({ id: '01-01' }) });
    expect(problemsOf(files)).toEqual([
      'planning/plans/01-01-PLAN.md:1: plans live at planning/plans/<NN-phase>/<NN-MM>-PLAN.md; move this file into a phase directory such as planning/plans/01-foundation/',
    ]);
  });

  it('reports two directories claiming one phase', () => {
    const files = specFiles({
      'SPEC.md': SPEC_MD,
      'planning/plans/01-a/01-01-PLAN.md': planMd({ id: '01-01' }),
      'planning/plans/01-b/01-02-PLAN.md': planMd({ id: '01-02' }),
    });
    expect(problemsOf(files)).toEqual(['planning/plans/01-b/01-02-PLAN.md:1: phase directories 01-a and 01-b both claim phase 01; merge or renumber one']);
  });
});

describe('harness validate: SPEC.md and ROADMAP.md', () => {
  it('reports a missing SPEC.md', () => {
    const files = specFiles({ [PLAN]: planMd({ id: '01-01' }) });
    expect(problemsOf(files)).toEqual(['SPEC.md:1: SPEC.md is missing: create it with frontmatter "id: SPC-001" and "title: ..." (see templates/SPEC.md)']);
  });

  it('reports a malformed spec id', () => {
    const files = specFiles({ 'SPEC.md': '---\nid: spc 7\ntitle: X\n---\n', [PLAN]: planMd({ id: '01-01' }) });
    expect(problemsOf(files)).toEqual(['SPEC.md:2: id is "spc 7"; it must look like SPC-001 (capital letters, "-", digits)']);
  });

  it('warns about a spec with no plans', () => {
    expect(problemsOf(specFiles({ 'SPEC.md': SPEC_MD }))).toEqual([
      'planning/plans/:1: warning: the spec has no plans yet: add planning/plans/01-<name>/01-01-PLAN.md (see templates/PLAN.md)',
    ]);
  });

  const roadmap = (phases: string) => `---\nphases:\n${phases}\n---\n# Roadmap\n`;

  it('takes phase titles and phase checks from ROADMAP.md', () => {
    const files = specOf([{ id: '01-01' }], {
      'ROADMAP.md': roadmap('  - id: "01"\n    title: Foundation\n    must_pass:\n      - { id: all-tests, type: tests_pass, command: "npm test" }'),
    });
    const loaded = loadSpec(files);
    expect(loaded.problems).toEqual([]);
    expect(loaded.spec?.phases).toMatchObject([{ id: '01', title: 'Foundation', plans: ['01-01'], mustPass: [{ id: 'all-tests' }] }]);
  });

  it('reports a phase directory missing from ROADMAP.md and a listed phase without plans', () => {
    const files = specOf([{ id: '01-01' }, { id: '02-01' }], {
      'ROADMAP.md': roadmap('  - { id: "01", title: Foundation }\n  - { id: 3, title: Later }'),
    });
    expect(problemsOf(files)).toEqual([
      'ROADMAP.md:2: phase 02 (planning/plans/02-phase) is not in ROADMAP.md; add { id: "02", title: ... } to its phases',
      'ROADMAP.md:4: warning: phase 03 has no plans yet; add planning/plans/03-<name>/03-01-PLAN.md',
    ]);
  });

  it('reports a phase listed twice', () => {
    const files = specOf([{ id: '01-01' }], { 'ROADMAP.md': roadmap('  - { id: "01", title: A }\n  - { id: 1, title: B }') });
    expect(problemsOf(files)).toEqual(['ROADMAP.md:4: phase 01 is listed twice; give each phase its own id']);
  });

  it('reads phases from a GSD-style roadmap without frontmatter', () => {
    const files = specOf([{ id: '01-01' }], { 'ROADMAP.md': '# Roadmap\n\n### Phase 1: Foundation\n**Goal**: Lay the ground\n' });
    expect(loadSpec(files).spec?.phases).toMatchObject([{ id: '01', title: 'Foundation', goal: 'Lay the ground' }]);
  });

  it('reports every problem of every file at once', () => {
    const files = specFiles({
      'SPEC.md': '---\nid: SPC-1\n---\n',
      [planPath('01-01')]: planMd({ id: '01-01', dependsOn: ['01-09'] }),
      [planPath('01-02')]: '---\nplan_id: "01-02"\n',
    });
    expect(problemsOf(files)).toEqual([
      `${planPath('01-01')}:4: depends_on "01-09" is not a plan in this spec; did you mean "01-02"?`,
      `${planPath('01-02')}:1: frontmatter opened on line 1 is never closed: add a line "---" after the last key`,
      'SPEC.md:1: missing required key "title": a short line of text',
    ]);
  });
});
