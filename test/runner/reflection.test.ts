import { cp } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HarnessConfigSchema } from '../../app/engine/core/config/schema.js';
import { parseKnowledge } from '../../app/engine/knowledge/documents/parse.js';
import { RecordingReporter } from '../../app/runner/progress.js';
import { runSpec } from '../../app/runner/runner.js';
import { FIXTURES } from '../helpers/paths.js';
import { git, makeRepo, SPEC_DIR, specTree, type StepPlan, worktreeOf } from '../helpers/repo.js';

const NEW_LESSON = '.harness/knowledge/lessons/testing/struggle-test-sqlite-database.lesson.md';
const PORT_LESSON = '.harness/knowledge/lessons/tooling/stop-background-servers.lesson.md';
const PLANS: StepPlan[] = [
  { id: '01-01', steps: ['mkdir -p out && echo a > out/01-01.txt'] },
  { id: '02-01', dependsOn: ['01-01'], steps: ['mkdir -p out && echo b > out/02-01.txt'] },
];
const integration = (root: string) => worktreeOf(root, 'SPC-007', 'integration');

/** A repository with a spec and, committed beside it, the recorded knowledge store. */
async function repo(): Promise<string> {
  const root = await makeRepo(specTree(PLANS));
  await cp(join(FIXTURES, 'knowledge', 'reflect', 'store'), join(root, '.harness/knowledge'), { recursive: true });
  git(root, 'add', '-A');
  git(root, 'commit', '--quiet', '-m', 'knowledge');
  return root;
}

async function run(root: string, reflect: Record<string, unknown>) {
  const reporter = new RecordingReporter();
  const config = HarnessConfigSchema.parse({ knowledge: { reflect } });
  const outcome = await runSpec({ specDir: join(root, SPEC_DIR), specArg: SPEC_DIR, slots: 2, agent: 'script', reporter, pollMs: 25, reflection: { config } });
  return { outcome, reporter };
}

describe('harness run reflects when a phase and the spec are verified (knowledge.reflect)', () => {
  it('on_phase: the lessons of the first verified phase are committed on the integration branch, for review with it', async () => {
    const root = await repo();
    const { outcome, reporter } = await run(root, { on_phase: true, on_spec: true });

    expect(outcome.complete).toBe(true);
    const subjects = git(root, 'log', '--format=%s', 'harness/SPC-007/integration').split('\n');
    expect(subjects.filter((s) => s.startsWith('knowledge('))).toEqual(['knowledge(SPC-007): 1 new lesson, 1 linked, reflected when phase 01 verified']);
    const info = reporter.events.filter((e) => e.kind === 'info').map((e) => (e.kind === 'info' ? e.text : ''));
    expect(info).toEqual([
      `reflection (phase 01 verified): 1 new lesson, 1 linked, committed on harness/SPC-007/integration for review: ${NEW_LESSON}, ${PORT_LESSON}`,
    ]);
    const lesson = readFileSync(join(integration(root), NEW_LESSON), 'utf8');
    expect(parseKnowledge('lesson', NEW_LESSON, lesson).problems).toEqual([]);
    // Proposals, not accepted knowledge: the person's branch has none of it until they merge.
    expect(existsSync(join(root, NEW_LESSON))).toBe(false);
    expect(git(integration(root), 'status', '--porcelain')).toBe('');
  });

  it('on_spec only: once, when every phase is verified; and not at all when both are off', async () => {
    const root = await repo();
    await run(root, { on_phase: false, on_spec: true });
    const subjects = git(root, 'log', '--format=%s', 'harness/SPC-007/integration').split('\n');
    expect(subjects.filter((s) => s.startsWith('knowledge('))).toEqual(['knowledge(SPC-007): 1 new lesson, 1 linked, reflected when SPC-007 verified']);
    // The commit with the spec's last records comes first: the lessons follow it.
    expect(subjects[0]).toBe('knowledge(SPC-007): 1 new lesson, 1 linked, reflected when SPC-007 verified');

    const quiet = await repo();
    await run(quiet, { on_phase: false, on_spec: false });
    expect(git(quiet, 'log', '--format=%s', 'harness/SPC-007/integration')).not.toContain('knowledge(');
  });
});
