import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { standInCodex } from '../helpers/codex-standin.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, SPEC_DIR, specTree, worktreeOf } from '../helpers/repo.js';
import { ganttProblems } from '../engine/core/analysis/gantt-grammar.js';

/**
 * Where the time went, locally: STATUS.md's timeline draws each ended attempt as its agent and
 * its verification (runner/documents.ts), from the times the attempt measured, in the subset
 * of Mermaid's gantt grammar harness writes.
 */

describe("STATUS.md's timeline after a local run", () => {
  it("draws each plan's agent and its verification as they took their time, the agent's bar named after the plan", async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: [], body: 'Write out/01-01.txt.' }]));
    const codex = await standInCodex([[{ message: 'Writing the file.' }, { write: ['out/01-01.txt', 'one\n'] }, { final: 'Wrote it.' }]]);

    const run = await runCli(['run', SPEC_DIR, '--agent', 'codex'], root, { env: codex.env });

    expect(run.code, run.stderr).toBe(0);
    const status = readFileSync(join(worktreeOf(root, 'SPC-007', 'integration'), SPEC_DIR, 'STATUS.md'), 'utf8');
    const chart = /## Timeline[\s\S]*?```mermaid\n([\s\S]*?)```/.exec(status)![1]!;
    const bars = chart.split('\n').filter((l) => / :.*\d{4}-\d\d-\d\dT/.test(l));
    expect(bars.map((l) => l.slice(2, l.indexOf(' :')))).toEqual([expect.stringMatching(/^01-01 /), '01-01 verification']);
    // The verification starts where the agent's bar ends.
    const [agent, verification] = bars.map((l) => l.split(', ').slice(-2));
    expect(verification![0]).toBe(agent![1]);
    expect(ganttProblems(chart)).toEqual([]);
  });
});
