import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { failableCommand } from '../../../../app/engine/importers/gsd/failable-command.js';
import { runCli } from '../../../helpers/cli.js';

/**
 * The `<verify>` forms GSD authors write, in their own words (test/fixtures/gsd/verify-forms),
 * each becoming a check that can fail: backticked commands in prose and in numbered lists, a
 * `cd <their checkout> &&` prefix taken as the repository root, "grep for `X` in file" as a
 * content check, a display trim and an `|| echo` that would make a command unable to fail,
 * and a document in a phase folder kept with a warning.
 */

const SOURCE = fileURLToPath(new URL('../../../fixtures/gsd/verify-forms/.planning', import.meta.url));
let out: string;
let imported: { code: number; stdout: string; stderr: string };

beforeAll(async () => {
  out = join(await mkdtemp(join(tmpdir(), 'harness-verify-forms-')), 'SPC-050-ledger');
  imported = await runCli(['import', SOURCE, out]);
});
afterAll(async () => rm(join(out, '..'), { recursive: true, force: true }));

async function checks(plan: string): Promise<unknown[]> {
  const text = await readFile(join(out, `planning/plans/01-ledger-core/${plan}-PLAN.md`), 'utf8');
  const must = (parse(text.split('\n---\n')[0]!.replace(/^---\n/, '')) as { must_pass: Record<string, unknown>[] }).must_pass;
  return must.map(({ description: _, ...c }) => c);
}

describe('GSD <verify> forms become checks that can fail', () => {
  it('imports, keeping the document in the phase folder with a warning, and the spec is valid', () => {
    expect(imported.code).toBe(0);
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toContain(
      `${SOURCE}/phases/01-ledger-core/PAPER_LEDGER_PLAN.md:1: warning: phases/01-ledger-core/PAPER_LEDGER_PLAN.md is named like a plan but is none (no frontmatter, not NN-MM-PLAN.md): kept as a document of its phase, planning/phase-documents/01-ledger-core/PAPER_LEDGER_PLAN.md, which no run executes; if it is a plan, give it GSD's frontmatter and name it 01-NN-PLAN.md\n`,
    );
    expect(imported.stdout).toContain(
      '<verify> commands: /Users/sam/Projects/ledger taken as the repository root (the directory their commands cd into first) and cut from the commands\n',
    );
    expect(imported.stdout.trimEnd().split('\n').at(-1)).toBe('SPC-050: 2 plans in 1 phase: valid');
  });

  it('backticked commands in prose and in a numbered list, each a check; "must output `X`" the output it must hold', async () => {
    expect(await checks('01-01')).toEqual([
      { id: 'verify-entry-model-and-totals', type: 'command_output', command: 'npx turbo typecheck', expect: { exit_code: 0 } },
      {
        id: 'verify-entry-model-and-totals-2',
        type: 'command_output',
        command: `python -c "from ledger_tools import totals; print('OK')"`,
        expect: { exit_code: 0 },
      },
      { id: 'verify-tests-for-the-totals', type: 'command_output', command: 'npx tsc --noEmit', expect: { exit_code: 0 } },
      { id: 'verify-tests-for-the-totals-2', type: 'command_output', command: 'npx vitest run src/ledger', expect: { exit_code: 0 } },
      {
        id: 'verify-tests-for-the-totals-3',
        type: 'command_output',
        command: 'echo "rent: 1200" | node bin/ledger.js --total',
        expect: { exit_code: 0, contains: 'total: 1200' },
      },
    ]);
  });

  it('"grep for `X` in file" as content checks on the plan\'s file; a trim and an || echo no longer hide the status', async () => {
    expect(await checks('01-02')).toEqual([
      { id: 'verify-one-breakpoint-hook', type: 'file_contains', path: 'src/ui/App.tsx', contains: 'useBreakpoint' },
      {
        id: 'verify-one-breakpoint-hook-2',
        type: 'command_output',
        command: "! grep -qF -e 'useIsMobile' -- 'src/ui/SplitLayout.tsx'",
        expect: { exit_code: 0 },
      },
      { id: 'verify-one-breakpoint-hook-3', type: 'command_output', command: 'npx tsc --noEmit', expect: { exit_code: 0 } },
      { id: 'verify-locale-aware-amounts', type: 'command_output', command: "npx tsc --noEmit && ! grep -rn 'toFixed(2)' src/ui/", expect: { exit_code: 0 } },
    ]);
  });
});

describe('ROADMAP.md: Requirements and Success Criteria where a machine can check them', () => {
  it("a criterion that quotes a command is a phase-level check; the phase's requirements go to its plans that name none", async () => {
    const roadmap = parse((await readFile(join(out, 'ROADMAP.md'), 'utf8')).split('\n---\n')[0]!.replace(/^---\n/, '')) as { phases: unknown[] };
    expect(roadmap.phases).toEqual([
      {
        id: '01',
        title: 'Ledger core',
        goal: 'Entries are recorded, totalled and shown on every screen size',
        must_pass: [
          {
            id: 'criterion-1',
            type: 'command_output',
            command: 'npx vitest run',
            description: 'GSD success criterion 1: `npx vitest run` passes',
            expect: { exit_code: 0 },
          },
        ],
      },
    ]);
    const plan = await readFile(join(out, 'planning/plans/01-ledger-core/01-02-PLAN.md'), 'utf8');
    expect(plan).toContain('\nrequirements: [LEDG-01, LEDG-02]\n');
  });
});

describe('failableCommand', () => {
  it.each([
    // A build's status, given back from the trim and the filter before it.
    ['bun run typecheck 2>&1 | grep -E "translator|error" | head -20 || echo "typecheck passed"', 'bun run typecheck'],
    ['bun run test src/a.test.ts 2>&1 | grep -E "FAIL|Cannot find|failed"', 'bun run test src/a.test.ts'],
    // A listing trimmed for the eye was only looked at; the echo after it says nothing.
    [
      'npx tsc --noEmit 2>&1 | head -20 && grep -rn \'toast.error("Failed\' src/ | grep -v node_modules | head -20 && echo "--- expect no matches above ---"',
      'npx tsc --noEmit',
    ],
    // A search that must find nothing.
    ['grep -rn \'toLocaleDateString\' src/components/ || echo "No hardcoded locale formatting found"', "! grep -rn 'toLocaleDateString' src/components/"],
    // Real checks are left as they are.
    [
      'grep -q "playwright" .github/workflows/e2e.yml && test -f e2e/auth.setup.ts',
      'grep -q "playwright" .github/workflows/e2e.yml && test -f e2e/auth.setup.ts',
    ],
    [
      'count=$(grep -c x a.ts) && [ "$count" -eq 0 ] || (echo "FAIL: $count"; exit 1)',
      'count=$(grep -c x a.ts) && [ "$count" -eq 0 ] || (echo "FAIL: $count"; exit 1)',
    ],
    ['go test ./... || true', 'go test ./...'],
    ['npm run lint; npm test', 'npm run lint && npm test'],
  ])('%s → %s', (command, expected) => {
    expect(failableCommand(command)).toBe(expected);
  });

  it('leaves nothing of a command that could only report', () => {
    expect(failableCommand('ls src/ | head -5 && echo done')).toBeUndefined();
  });
});
