import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../app/cli/io.js';
import { main } from '../../app/cli/main.js';
import type { RetrospectiveJson } from '../../app/cli/commands/retrospective.js';
import { parseAnyDocument } from '../../app/engine/knowledge/documents/any-document.js';
import { formatProblem } from '../../app/engine/core/spec/problem.js';
import { git, makeRepo } from '../helpers/repo.js';
import { FIX, recurring, repairSet } from '../engine/knowledge/skills/recorded.js';

async function harness(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd, env: { PATH: process.env.PATH }, isTTY: false };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/** A repository whose store holds recorded signals: a repair that recurred in two plans with the agent's fix, and a plan never verified. */
async function repo(): Promise<string> {
  const files = Object.fromEntries(
    [
      ...recurring({ insight: FIX }),
      ...repairSet({
        plan: '02-01',
        verified: false,
        said: 'ECONNREFUSED 127.0.0.1:5432',
        tags: ['postgres'],
        insight: {
          summary: 'Start Postgres before the tests to avoid ECONNREFUSED',
          detail: 'Traced "ECONNREFUSED 127.0.0.1:5432" to the database not running yet.',
        },
      }),
    ].map((f) => [`.harness/knowledge/${f.path}`, f.text]),
  );
  return makeRepo(files);
}

describe('harness retrospective', () => {
  it("presents every candidate with each gate's verdict, writes the extracted skill (valid) and one trajectory line per candidate", async () => {
    const root = await repo();
    const run = await harness(['retrospective', 'SPC-001', '--json'], root);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as RetrospectiveJson;
    expect(report.candidates.map((c) => [c.plan, c.decision, c.gates.map((g) => `${g.gate}:${g.pass ? 'PASS' : 'FAIL'}`)])).toEqual([
      ['01-02', 'extracted', ['discovery-depth:PASS', 'reusability:PASS', 'trigger-clarity:PASS', 'verification:PASS']],
      ['02-01', 'skipped', ['discovery-depth:PASS', 'reusability:FAIL', 'trigger-clarity:PASS', 'verification:FAIL']],
    ]);
    const path = report.candidates[0]!.path!;
    const text = await readFile(join(root, '.harness/knowledge', path), 'utf8');
    expect(parseAnyDocument('skill', path, text).problems.map((p) => formatProblem(p))).toEqual([]);
    const days = await readdir(join(root, '.harness/knowledge/trajectory'));
    const lines = (await readFile(join(root, '.harness/knowledge/trajectory', days[0]!), 'utf8')).trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(['extraction', 'extraction']);

    // Asked again, the skill is there: linked, not extracted twice, and no line logged twice.
    const again = JSON.parse((await harness(['retrospective', 'SPC-001', '--json'], root)).stdout) as RetrospectiveJson;
    expect(again.candidates[0]!.decision).toBe('linked');
    expect((await readFile(join(root, '.harness/knowledge/trajectory', days[0]!), 'utf8')).trimEnd().split('\n')).toHaveLength(2);
  });

  it('says what it would do on a dry run, and writes nothing', async () => {
    const root = await repo();
    const run = await harness(['retrospective', '--dry-run'], root);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('2 candidate skills in the store: 1 would be extracted, 0 linked, 1 skipped.');
    expect(run.stdout).toContain('FAIL verification: the fix was not shown to work in the run: no attempt passed with it');
    expect(run.stdout).toContain('FAIL reusability: seen only in notes-service SPC-001/02-01: a skill needs a repair that recurred in 2 distinct plans');
    expect(git(root, 'status', '--porcelain')).toBe('');
    expect((await harness(['retrospective', 'nope'], root)).code).toBe(2);
  });
});

describe('harness skills', () => {
  it('lists pending skills, their stats from the trajectory, and prunes into skills-archived/', async () => {
    const root = await repo();
    await harness(['retrospective'], root);
    const pending = await harness(['skills', '--pending'], root);
    expect(pending.stdout).toBe('1 skill pending review:\n  sqlite-busy-database-locked-one-file  new, not committed\n');
    // Pending is not active: nobody reviewed it yet.
    expect((await harness(['skills'], root)).stdout).toBe('No active skills in .harness/knowledge.\n');
    // The person reviews it and commits it: now it is.
    git(root, 'add', '-A');
    git(root, 'commit', '--quiet', '-m', 'Accept the skill');
    expect((await harness(['skills'], root)).stdout).toBe('1 active skill in .harness/knowledge:\n  sqlite-busy-database-locked-one-file\n');
    const stats = await harness(['skills', '--stats', '--json'], root);
    expect(JSON.parse(stats.stdout).stats).toEqual([
      {
        name: 'sqlite-busy-database-locked-one-file',
        path: 'skills/sqlite-busy-database-locked-one-file/SKILL.md',
        matches: 0,
        uses: 0,
        failures: 0,
        ageDays: 0,
      },
    ]);
    // Young: nothing to prune.
    expect((await harness(['skills', '--prune'], root)).stdout).toBe('Nothing to prune among 1 active skill.\n');
    expect((await harness(['skills', '--pending', '--stats'], root)).code).toBe(2);
  });
});

describe('harness retrospective --plan', () => {
  it("makes a skill of one plan's repair when a person asks for it, and says so in the gate", async () => {
    const root = await makeRepo(Object.fromEntries(repairSet({ insight: FIX }).map((f) => [`.harness/knowledge/${f.path}`, f.text])));
    const unasked = JSON.parse((await harness(['retrospective', 'SPC-001', '--dry-run', '--json'], root)).stdout) as RetrospectiveJson;
    expect(unasked.candidates.map((c) => c.decision)).toEqual(['skipped']);
    const asked = await harness(['retrospective', 'SPC-001', '--plan', '01-02', '--json'], root);
    expect(asked.code).toBe(0);
    const [c] = (JSON.parse(asked.stdout) as RetrospectiveJson).candidates;
    expect(c!.decision).toBe('extracted');
    expect(c!.gates.find((g) => g.gate === 'reusability')).toEqual({
      gate: 'reusability',
      pass: true,
      reason: 'a person asked for it (harness retrospective --plan 01-02), though it was seen in one plan',
    });
    expect((await harness(['retrospective', '--plan', '01-02'], root)).code).toBe(2);
    expect((await harness(['retrospective', 'SPC-001', '--plan', 'x'], root)).code).toBe(2);
  });
});
