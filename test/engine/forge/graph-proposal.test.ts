import { describe, expect, it } from 'vitest';
import { graphBranch, parseGraphBranch, withDependsOn } from '../../../app/engine/forge/graph-proposal.js';
import { loadSpec } from '../../../app/engine/core/spec/load.js';
import { planMd, planPath, specOf } from '../../helpers/spec.js';

/**
 * A change to the issue graph becomes a change to one PLAN.md's `depends_on`, and nothing
 * else in the file: a proposal a person reviews is the one line (or list) that changed.
 */

const plan = (frontmatter: string) =>
  `---\nplan_id: "01-02"\ntitle: Reset endpoint\n${frontmatter}files_modified: ["src/a.ts"]\n---\n# Reset endpoint\n\nDo it.\n`;

describe('withDependsOn', () => {
  it('adds to a list on one line, in its style, and takes away from it', () => {
    expect(withDependsOn(plan('depends_on: ["01-01"]\n'), '01-03', true)).toBe(plan('depends_on: ["01-01", "01-03"]\n'));
    expect(withDependsOn(plan('depends_on: ["01-01", "01-03"]\n'), '01-01', false)).toBe(plan('depends_on: ["01-03"]\n'));
    expect(withDependsOn(plan('depends_on: ["01-01"]\n'), '01-01', false)).toBe(plan('depends_on: []\n'));
  });

  it('keeps a comment after the list', () => {
    expect(withDependsOn(plan('depends_on: [] # none yet\n'), '01-01', true)).toBe(plan('depends_on: ["01-01"] # none yet\n'));
  });

  it('adds to a block list one item a line, at its indentation, and takes away from it', () => {
    expect(withDependsOn(plan('depends_on:\n  - "01-01"\n'), '01-03', true)).toBe(plan('depends_on:\n  - "01-01"\n  - "01-03"\n'));
    expect(withDependsOn(plan('depends_on:\n    - 01-01\n    - "01-03"\n'), '01-01', false)).toBe(plan('depends_on:\n    - "01-03"\n'));
    expect(withDependsOn(plan('depends_on:\n  - "01-01"\n'), '01-01', false)).toBe(plan('depends_on: []\n'));
  });

  it('writes the key when it is empty or missing', () => {
    expect(withDependsOn(plan('depends_on:\n'), '01-01', true)).toBe(plan('depends_on: ["01-01"]\n'));
    expect(withDependsOn(plan(''), '01-01', true)).toBe(
      `---\nplan_id: "01-02"\ntitle: Reset endpoint\nfiles_modified: ["src/a.ts"]\ndepends_on: ["01-01"]\n---\n# Reset endpoint\n\nDo it.\n`,
    );
  });

  it('is undefined when the list says so already, or the file has no frontmatter to edit', () => {
    expect(withDependsOn(plan('depends_on: ["01-01"]\n'), '01-01', true)).toBeUndefined();
    expect(withDependsOn(plan('depends_on: []\n'), '01-01', false)).toBeUndefined();
    expect(withDependsOn('# A plan without frontmatter\n', '01-01', true)).toBeUndefined();
    expect(withDependsOn('---\nplan_id: [unclosed\n', '01-01', true)).toBeUndefined();
  });

  it('leaves a plan the spec loader reads with the new dependency, and nothing else changed', () => {
    const files = specOf([{ id: '01-01' }, { id: '01-02' }]);
    const path = planPath('01-02');
    const edited = files.map((f) => (f.path === path ? { path, bytes: new TextEncoder().encode(withDependsOn(planMd({ id: '01-02' }), '01-01', true)!) } : f));
    const before = loadSpec(files).spec!.planById.get('01-02')!;
    const after = loadSpec(edited).spec!.planById.get('01-02')!;
    expect(after.dependsOn).toEqual(['01-01']);
    expect({ ...after, dependsOn: [], lines: undefined }).toEqual({ ...before, lines: undefined });
  });
});

describe('the proposals branch', () => {
  it('is harness/graph/<spec>, and no other branch reads as one', () => {
    expect(graphBranch('SPC-042')).toBe('harness/graph/SPC-042');
    expect(parseGraphBranch('harness/graph/SPC-042')).toBe('SPC-042');
    expect(parseGraphBranch('harness/SPC-042/01-02')).toBeUndefined();
    expect(parseGraphBranch('harness/graph/SPC-042/x')).toBeUndefined();
    expect(parseGraphBranch(undefined)).toBeUndefined();
  });
});
