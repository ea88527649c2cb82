import { readFileSync, renameSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OrchestrationStore } from '../../app/runner/store.js';
import { runCli } from '../helpers/cli.js';
import { lessonText, PLANS } from '../helpers/surfacing.js';
import { planMd, planPath } from '../helpers/spec.js';
import { git, makeRepo, SPEC_DIR, specTree } from '../helpers/repo.js';
import { FIXTURES } from '../helpers/paths.js';

/**
 * Issue 24, 7: text an author wrote (a files_modified glob, a knowledge file's name, a
 * checkpoint's options, an answer) stays on its line in every command's human output: a
 * newline in it is shown as \u000a, an ESC as \u001b, and never prints a line harness did not.
 */
const FORGED = 'SPC-007: 9 plans in 1 phase: valid';
const ESC = '\u001b[2J\u001b]0;owned\u0007';

/** Every line of the output, and none of them is the forged one or carries a raw ESC. */
function expectNoForgedLine(stdout: string): void {
  const lines = stdout.split('\n');
  expect(lines).not.toContain(FORGED);
  expect(lines.some((l) => l.startsWith(FORGED))).toBe(false);
  expect(stdout).not.toContain('\u001b');
  expect(stdout).not.toContain('\u0007');
}

const twoPlansWriting = (glob: string) => ({
  [`${SPEC_DIR}/SPEC.md`]: '---\nid: SPC-007\ntitle: Runner test\n---\n# Runner test\n',
  [`${SPEC_DIR}/${planPath('01-01')}`]: planMd({ id: '01-01', filesModified: [glob] }),
  [`${SPEC_DIR}/${planPath('01-02')}`]: planMd({ id: '01-02', filesModified: [glob] }),
});

describe('author text stays on its line in every command (issue 24, 7)', () => {
  const glob = `src/a\\n${FORGED}\\u001b[31m`;

  it('harness graph: a files_modified glob with a newline and an ESC in the write conflicts', async () => {
    const root = await makeRepo(twoPlansWriting(glob));
    const r = await runCli(['graph', SPEC_DIR], root);
    expect(r.code).toBe(0);
    expectNoForgedLine(r.stdout);
    expect(r.stdout).toContain(`  01-01 × 01-02  src/a\\u000a${FORGED}\\u001b[31m ∩ src/a\\u000a${FORGED}\\u001b[31m\n`);
  });

  it('harness simulate: the same glob, named as the file two plans write', async () => {
    const root = await makeRepo(twoPlansWriting(glob));
    const r = await runCli(['simulate', SPEC_DIR], root);
    expect(r.code).toBe(0);
    expectNoForgedLine(r.stdout);
    expect(r.stdout).toContain(`(2 plans write src/a\\u000a${FORGED}\\u001b[31m: 2 one after another)`);
  });

  it('harness surface: a lesson whose file name holds a newline, and whose text an ESC', async () => {
    const name = `lessons/testing/x\n${FORGED}.lesson.md`;
    const lesson = lessonText({
      tags: ['sqlite', 'tests', 'parallel'],
      lesson: `Test files that share one SQLite database file fail ${ESC}under parallel runs.`,
      when: 'Tests use SQLite.',
      recommendation: `Give each test file its own database ${ESC}file.`,
    });
    const root = await makeRepo({ [`.harness/knowledge/${name}`]: lesson, 'p/01-02-PLAN.md': readFileSync(join(PLANS, '01-02-PLAN.md'), 'utf8') });
    const r = await runCli(['surface', 'p/01-02-PLAN.md'], root);
    expect(r.code).toBe(0);
    expectNoForgedLine(r.stdout);
    expect(r.stdout).toContain(`1. lesson lessons/testing/x\\u000a${FORGED}.lesson.md (score`);
    expect(r.stdout).toContain(
      '   When Test files that share one SQLite database file fail \\u001b[2J\\u001b]0;owned\\u0007under parallel runs → Give each test file its own database \\u001b[2J\\u001b]0;owned\\u0007file.\n',
    );
  });

  it('harness status and harness respond: a checkpoint whose options and answer hold a newline', async () => {
    const root = await makeRepo(specTree([{ id: '01-01', steps: ['true'] }]));
    const store = new OrchestrationStore(join(root, '.orchestration/SPC-007'));
    await store.writeCheckpoint({
      plan: '01-01',
      id: 'storage',
      kind: 'decision',
      prompt: `Which store?`,
      options: [`memory\n${FORGED}`, 'file'],
      origin: 'verification',
      askedAt: '2026-11-27T10:00:00.000Z',
    });
    const status = await runCli(['status', SPEC_DIR], root);
    expect(status.code).toBe(0);
    expectNoForgedLine(status.stdout);
    expect(status.stdout).toContain(`(memory\\u000a${FORGED} | file)`);
    const respond = await runCli(['respond', SPEC_DIR, '01-01', `file\n${FORGED}`], root);
    expect(respond.code).toBe(0);
    expectNoForgedLine(respond.stdout);
    expect(respond.stdout).toBe(
      `01-01: answered "Which store?" with "file\\u000a${FORGED}"; a running harness run continues now, a stopped one when started again\n`,
    );
  });

  it('harness reflect: a signal whose file name holds a newline, listed among those not made into a lesson', async () => {
    const root = await makeRepo({});
    await cp(join(FIXTURES, 'knowledge', 'reflect', 'store'), join(root, '.harness/knowledge'), { recursive: true });
    const day = join(root, '.harness/knowledge/signals/notes-service/2026-03-03');
    renameSync(join(day, '2026-03-03T10-05-00Z-deviation.signal.md'), join(day, `x\n${FORGED}-deviation.signal.md`));
    git(root, 'add', '-A');
    git(root, 'commit', '--quiet', '-m', 'store');
    const r = await runCli(['reflect', '--dry-run'], root);
    expect(r.code).toBe(0);
    expectNoForgedLine(r.stdout);
    expect(r.stdout).toContain(`  .harness/knowledge/signals/notes-service/2026-03-03/x\\u000a${FORGED}-deviation.signal.md: a one-off:`);
  });
});
