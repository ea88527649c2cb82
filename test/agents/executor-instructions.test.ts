import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildWorkerPrompt } from '../../app/engine/core/agents/prompt.js';
import { executorInstructions } from '../../app/agents/executor-instructions.js';
import { tempDir, writeTree } from '../helpers/cli.js';
import { planFrom } from '../helpers/agent-context.js';

describe("the executor's instructions in a plan's brief", () => {
  it('are the shipped ones, without the notes for people, under "## How to work"', async () => {
    const root = await tempDir('harness-executor-');
    const text = await executorInstructions(root);
    expect(text).toMatch(/^Work the plan backward from its goal/);
    expect(text).not.toContain('<!--');
    const brief = buildWorkerPrompt(
      planFrom('---\nplan_id: "01-01"\ntitle: T\nfiles_modified: [a.txt]\nmust_pass:\n  - { id: a, type: file_exists, path: a.txt }\n---\n\nDo it.\n'),
      { spec: 'SPC-001', checkpoints: 'none', instructions: text },
    );
    expect(brief.indexOf('## How to work\n\nWork the plan backward')).toBeGreaterThan(0);
    expect(brief.indexOf('## How to work')).toBeLessThan(brief.indexOf('## Goal'));
  });

  it("are the repository's own when it has .github/harness/agents/executor.md, unless that says nothing", async () => {
    const root = await tempDir('harness-executor-');
    await writeTree(root, { '.github/harness/agents/executor.md': '<!-- ours -->\nAlways run `make lint` first.\n' });
    expect(await executorInstructions(root)).toBe('Always run `make lint` first.');
    await writeTree(root, { '.github/harness/agents/executor.md': '<!-- only a note -->\n' });
    expect(await executorInstructions(join(root))).toMatch(/^Work the plan backward/);
  });
});
