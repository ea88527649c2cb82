import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ImportJson } from '../../../../app/cli/commands/import.js';
import type { CliIO } from '../../../../app/cli/io.js';
import { main } from '../../../../app/cli/main.js';
import { importGsd, type GsdFile, type GsdImport, type ImportOptions } from '../../../../app/engine/importers/gsd/import.js';
import { readDependencies } from '../../../../app/engine/importers/gsd/gsd-dependencies.js';
import { summaryStatus } from '../../../../app/engine/importers/gsd/summary-status.js';
import { gsdTitle, SHORT_TITLE, shortTitle } from '../../../../app/engine/importers/gsd/plan.js';
import { verifyCommand, withoutOutputTrim } from '../../../../app/engine/importers/gsd/verify-command.js';
import { machineRoot, rewriteMachinePaths } from '../../../../app/engine/importers/gsd/machine-paths.js';
import { runCheck } from '../../../../app/engine/core/verify/checks.js';
import { localVerifyPorts } from '../../../../app/machine/verify-ports.js';
import { tempRepo } from '../../../fixtures/verify/repo.js';
import { specIdFromDir } from '../../../../app/engine/importers/gsd/spec-id.js';
import { parseFrontmatter } from '../../../../app/engine/core/spec/frontmatter.js';
import { loadSpec, type LoadedSpec } from '../../../../app/engine/core/spec/load.js';
import { readTree } from '../../../../app/machine/read-tree.js';
import { FIXTURES } from '../../../helpers/paths.js';
import { runCli } from '../../../helpers/cli.js';
import { makeRepo } from '../../../helpers/repo.js';

const PROJECT = join(FIXTURES, 'gsd/basic');
const PLANNING = join(PROJECT, '.planning');

let gsd: GsdFile[];
beforeAll(async () => {
  gsd = (await readTree(PLANNING)).files;
});

function load(result: GsdImport): LoadedSpec {
  return loadSpec(result.files.map((f) => ({ path: f.path, bytes: new TextEncoder().encode(f.text) })));
}

function written(result: GsdImport, path: string): string {
  const file = result.files.find((f) => f.path === path);
  if (!file) throw new Error(`${path} was not written`);
  return file.text;
}

function frontmatterOf(text: string): Record<string, unknown> {
  const fm = parseFrontmatter('x.md', text);
  if (!fm.ok) throw new Error(fm.problems.map((p) => p.message).join('\n'));
  return fm.frontmatter.data;
}

describe('importGsd: a GSD .planning tree becomes a harness spec directory', () => {
  it('produces a spec that harness validates with no problems at all', () => {
    const result = importGsd(gsd, { specId: 'SPC-003' });
    // A sentence about a command is reported, never guessed into a check.
    expect(result.problems).toEqual([expect.objectContaining({ code: 'unchecked-verify', severity: 'warning', file: 'phases/03-dashboard/03-01-PLAN.md' })]);
    const loaded = load(result);
    expect(loaded.problems).toEqual([]);
    expect(loaded.valid).toBe(true);
    expect(loaded.spec?.phases.map((p) => [p.id, p.title, p.plans])).toEqual([
      ['01', 'Foundation', ['01-01', '01-02']],
      ['02', 'Invoices API', ['02-01', '02-02', '02-03']],
      ['03', 'Dashboard', ['03-01', '03-02']],
    ]);
  });

  it('puts each GSD document where docs/design.md says, and says where each came from', () => {
    const result = importGsd(gsd, { specId: 'SPC-003' });
    expect(result.files.map((f) => [f.path, f.from])).toEqual([
      ['SPEC.md', null],
      ['ROADMAP.md', 'ROADMAP.md'],
      ['execution/phases/01-foundation/01-01-SUMMARY.md', 'phases/01-foundation/01-01-SUMMARY.md'],
      ['execution/phases/01-foundation/01-02-SUMMARY.md', 'phases/01-foundation/01-02-SUMMARY.md'],
      ['execution/phases/01-foundation/VERIFICATION.md', 'phases/01-foundation/01-VERIFICATION.md'],
      ['execution/phases/02-invoices-api/02-01-SUMMARY.md', 'phases/02-invoices-api/02-01-SUMMARY.md'],
      ['planning/PROJECT.md', 'PROJECT.md'],
      ['planning/REQUIREMENTS.md', 'REQUIREMENTS.md'],
      ['planning/STATE.md', 'STATE.md'],
      ['planning/plans/01-foundation/01-01-PLAN.md', 'phases/01-foundation/01-01-PLAN.md'],
      ['planning/plans/01-foundation/01-02-PLAN.md', 'phases/01-foundation/01-02-PLAN.md'],
      ['planning/plans/02-invoices-api/02-01-PLAN.md', 'phases/02-invoices-api/02-01-PLAN.md'],
      ['planning/plans/02-invoices-api/02-02-PLAN.md', 'phases/02-invoices-api/02-02-PLAN.md'],
      ['planning/plans/02-invoices-api/02-03-PLAN.md', 'phases/02-invoices-api/02-03-PLAN.md'],
      ['planning/plans/03-dashboard/03-01-PLAN.md', 'phases/03-dashboard/03-01-PLAN.md'],
      ['planning/plans/03-dashboard/03-02-PLAN.md', 'phases/03-dashboard/03-02-PLAN.md'],
      ['planning/research/phase-01-research.md', 'phases/01-foundation/01-RESEARCH.md'],
      ['planning/research/phase-02-context.md', 'phases/02-invoices-api/02-CONTEXT.md'],
      ['planning/research/project/SUMMARY.md', 'research/SUMMARY.md'],
    ]);
  });

  it('copies the documents it does not rewrite byte for byte', async () => {
    const result = importGsd(gsd, { specId: 'SPC-003' });
    for (const [target, source] of [
      ['planning/PROJECT.md', 'PROJECT.md'],
      ['planning/STATE.md', 'STATE.md'],
      ['execution/phases/01-foundation/01-02-SUMMARY.md', 'phases/01-foundation/01-02-SUMMARY.md'],
    ] as const) {
      expect(written(result, target)).toBe(await readFile(join(PLANNING, source), 'utf8'));
    }
  });

  it('lists every file it has no place for as skipped, with the reason, and writes nothing for it', () => {
    const result = importGsd([...gsd, { path: 'notes/ideas.txt', text: 'later' }, { path: 'phases/01-foundation/scratch.md', text: '# x' }], {
      specId: 'SPC-003',
    });
    expect(result.skipped).toEqual([
      { path: 'config.json', reason: expect.stringContaining('GSD workflow settings') },
      { path: 'notes/ideas.txt', reason: expect.stringContaining('not a GSD file') },
      { path: 'phases/01-foundation/scratch.md', reason: expect.stringContaining('not a GSD phase file') },
      { path: 'phases/02-invoices-api/.continue-here.md', reason: expect.stringContaining('pause marker') },
    ]);
    const sources = new Set(result.files.map((f) => f.from));
    for (const s of result.skipped) expect(sources.has(s.path)).toBe(false);
  });

  it('writes SPEC.md with the given id, the title from PROJECT.md and links to the planning documents', () => {
    const spec = written(importGsd(gsd, { specId: 'SPC-003' }), 'SPEC.md');
    expect(frontmatterOf(spec)).toEqual({ id: 'SPC-003', title: 'Ledgerline' });
    expect(spec).toContain('[planning/PROJECT.md](planning/PROJECT.md)');
    expect(spec).toContain('[planning/REQUIREMENTS.md](planning/REQUIREMENTS.md)');
    expect(spec).toContain('> A freelancer can send a correct, numbered invoice in under a minute and see when it is paid.');
  });

  it('writes ROADMAP.md phases from the "### Phase N: Name" headings and **Goal** lines, keeping the prose', async () => {
    const roadmap = written(importGsd(gsd, { specId: 'SPC-003' }), 'ROADMAP.md');
    expect(frontmatterOf(roadmap)).toEqual({
      phases: [
        { id: '01', title: 'Foundation', goal: 'Clients, invoices and line items are stored safely, with money in integer cents and gapless invoice numbers' },
        { id: '02', title: 'Invoices API', goal: 'A user can create invoices through the API, download them as PDFs and email them to clients' },
        { id: '03', title: 'Dashboard', goal: 'The user sees which invoices are paid, due and overdue, kept current by payment webhooks' },
      ],
    });
    expect(roadmap).toContain(await readFile(join(PLANNING, 'ROADMAP.md'), 'utf8'));
  });
});

describe('importGsd: plans', () => {
  it('rewrites a GSD plan in harness frontmatter and keeps its body', async () => {
    const plan = written(importGsd(gsd, { specId: 'SPC-003' }), 'planning/plans/01-foundation/01-01-PLAN.md');
    const expected = `---
plan_id: "01-01"
title: Database schema and client for clients, invoices and line items
depends_on: []
files_modified:
  - src/db/schema.ts
  - src/db/client.ts
  - drizzle/0000_init.sql
  - drizzle.config.ts
autonomous: true
requirements: [DATA-01]
completed: "2025-03-03"
truths:
  - Running the migrations on an empty database creates clients, invoices and line_items
  - Deleting a client with invoices is refused by the database
must_pass:
  - id: artifact-src-db-schema
    type: artifact
    path: src/db/schema.ts
    provides: Drizzle tables for clients, invoices and line items
    min_lines: 40
    exports: [clients, invoices, lineItems]
  - id: artifact-drizzle-0000-init
    type: artifact
    path: drizzle/0000_init.sql
    provides: Initial migration
    contains: CREATE TABLE \`invoices\`
  - id: artifact-src-db-client
    type: artifact
    path: src/db/client.ts
    provides: The database connection with foreign keys on
    exports: [db]
  - id: link-src-db-client
    type: key_link
    from: src/db/client.ts
    to: src/db/schema.ts
    via: drizzle(sqlite, { schema })
    pattern: drizzle\\(.*schema
  - id: verify-define-the-schema
    type: command_output
    command: npx tsc --noEmit
    description: "GSD <verify> of Task 1: Define the schema"
    expect:
      exit_code: 0
  - id: verify-generate-the-migration-and-the-client
    type: command_output
    command: npm test -- db
    description: "GSD <verify> of Task 2: Generate the migration and the client"
    expect:
      exit_code: 0
metadata:
  gsd:
    type: execute
    wave: 1
---
`;
    expect(plan.slice(0, expected.length)).toBe(expected);
    const original = await readFile(join(PLANNING, 'phases/01-foundation/01-01-PLAN.md'), 'utf8');
    expect(plan.slice(expected.length)).toBe(original.slice(original.indexOf('\n---\n', 4) + 5));
  });

  it('turns must_haves artifacts into artifact checks and key_links into key_link checks', () => {
    const spec = load(importGsd(gsd, { specId: 'SPC-003' })).spec!;
    expect(spec.planById.get('02-01')!.mustPass).toEqual([
      {
        id: 'artifact-src-api-invoices',
        type: 'artifact',
        path: 'src/api/invoices.ts',
        provides: 'Fastify routes for invoice CRUD',
        min_lines: 60,
        exports: ['invoiceRoutes'],
      },
      {
        id: 'artifact-src-api-schemas',
        type: 'artifact',
        path: 'src/api/schemas.ts',
        provides: 'zod schemas shared with the dashboard',
        exports: ['InvoiceInput', 'InvoiceView'],
      },
      {
        id: 'link-src-api-invoices',
        type: 'key_link',
        from: 'src/api/invoices.ts',
        to: 'src/domain/invoice-number.ts',
        via: 'nextInvoiceNumber inside db.transaction',
        pattern: 'nextInvoiceNumber\\(',
      },
      {
        id: 'link-src-api-server',
        type: 'key_link',
        from: 'src/api/server.ts',
        to: 'src/api/invoices.ts',
        via: 'app.register(invoiceRoutes)',
        pattern: 'register\\(invoiceRoutes',
      },
      // GSD's <verify> commands (issue 14: they become command checks).
      expect.objectContaining({ type: 'command_output', command: 'npx tsc --noEmit', expect: { exit_code: 0 } }),
      expect.objectContaining({ type: 'command_output', command: 'npm test -- api', expect: { exit_code: 0 } }),
    ]);
    expect(spec.planById.get('02-02')!.mustPass.find((c) => c.type === 'artifact' && c.contains)).toMatchObject({
      path: 'src/api/invoice-pdf.ts',
      contains: 'application/pdf',
    });
  });

  it('reads a bare GSD dependency "01" as plan 01 of the same phase, and keeps full ids across phases', () => {
    const spec = load(importGsd(gsd, { specId: 'SPC-003', declaredOnly: true })).spec!;
    const deps = Object.fromEntries(spec.plans.map((p) => [p.id, p.dependsOn]));
    expect(deps).toEqual({
      '01-01': [],
      '01-02': [],
      '02-01': ['01-01', '01-02'],
      '02-02': ['02-01'], // GSD wrote ["01"]
      '02-03': ['02-02'], // GSD wrote ["02"]
      '03-01': ['02-01'],
      '03-02': ['02-01', '01-02'],
    });
  });

  it('takes the title from <objective> and the checkpoints from GSD checkpoint tasks', () => {
    const plan = load(importGsd(gsd, { specId: 'SPC-003' })).spec!.planById.get('03-01')!;
    expect(plan.title).toBe('Invoice dashboard UI with visual verification');
    expect(plan.autonomous).toBe(false);
    expect(plan.checkpoints).toEqual(['verification']);
  });

  it('keeps GSD keys harness does not read (wave, type, user_setup) under metadata.gsd', () => {
    const plan = load(importGsd(gsd, { specId: 'SPC-003' })).spec!.planById.get('02-03')!;
    expect(plan.metadata).toEqual({
      gsd: {
        type: 'execute',
        wave: 3,
        user_setup: [expect.objectContaining({ service: 'postmark', env_vars: [expect.objectContaining({ name: 'POSTMARK_SERVER_TOKEN' })] })],
      },
    });
  });

  it('leaves a plan without must_haves as it is, so validation says it could pass without the work', () => {
    const bare =
      '---\nphase: 01-foundation\nplan: 03\ntype: execute\ndepends_on: ["01"]\nfiles_modified: [README.md]\n---\n\n<objective>\nWrite the README.\n</objective>\n';
    const result = importGsd([...gsd, { path: 'phases/01-foundation/01-03-PLAN.md', text: bare }], { specId: 'SPC-003' });
    const loaded = load(result);
    expect(loaded.valid).toBe(false);
    expect(loaded.problems).toEqual([expect.objectContaining({ file: 'planning/plans/01-foundation/01-03-PLAN.md', code: 'vacuous-plan' })]);
  });
});

/** A tree shaped like real GSD projects: an inserted phase, split plans, slug names, work done. */
const TIDEWATER = join(FIXTURES, 'gsd/inserted/.planning');

describe('importGsd: a real GSD tree imports as GSD meant it', () => {
  let tree: GsdFile[];
  beforeAll(async () => {
    tree = (await readTree(TIDEWATER)).files;
  });
  const imported = (options: Partial<ImportOptions> = {}) => importGsd(tree, { specId: 'SPC-007', ...options });

  it('keeps every plan: letter suffixes, slug names and an inserted phase, in GSD order, and the spec validates', () => {
    const result = imported();
    const loaded = load(result);
    expect(loaded.problems).toEqual([]);
    expect(loaded.spec?.phases.map((p) => [p.id, p.title, p.plans])).toEqual([
      ['01', 'Foundation', ['01-01', '01-02', '01-03']],
      ['02', 'Sync engine', ['02-01', '02-02', '02-03', '02-04']],
      ['03', 'Rate limits', ['03-01', '03-02']],
      ['04', 'Extension', ['04-01', '04-02', '04-03']],
      ['05', 'Release', ['05-01']],
    ]);
    const plans = tree.filter((f) => f.path.endsWith('-PLAN.md')).map((f) => f.path);
    expect(plans).toHaveLength(13);
    expect(
      result.files
        .filter((f) => f.path.endsWith('-PLAN.md'))
        .map((f) => f.from)
        .sort(),
    ).toEqual(plans.sort());
    expect(result.problems.filter((p) => p.severity === 'error')).toEqual([]);
  });

  it('gives ids GSD could not keep the next free number, and says so', () => {
    expect(imported().renumbered).toEqual([
      { from: 'phase 02.1', to: 'phase 03', path: 'phases/02.1-rate-limits' },
      { from: 'phase 03', to: 'phase 04', path: 'phases/03-extension' },
      { from: 'phase 04', to: 'phase 05', path: 'phases/04-release' },
      { from: '02-02A', to: '02-02', path: 'phases/02-sync-engine/02-02A-PLAN.md' },
      { from: '02-02B', to: '02-03', path: 'phases/02-sync-engine/02-02B-PLAN.md' },
      { from: '02-03', to: '02-04', path: 'phases/02-sync-engine/02-03-PLAN.md' },
      { from: '02.1-01', to: '03-01', path: 'phases/02.1-rate-limits/02.1-01-PLAN.md' },
      { from: '02.1-02', to: '03-02', path: 'phases/02.1-rate-limits/02.1-02-PLAN.md' },
      { from: '03-01', to: '04-01', path: 'phases/03-extension/03-extension-01-PLAN.md' },
      { from: '03-02', to: '04-02', path: 'phases/03-extension/03-extension-02-PLAN.md' },
      { from: '03-03', to: '04-03', path: 'phases/03-extension/03-extension-03-PLAN.md' },
      { from: '04-01', to: '05-01', path: 'phases/04-release/04-01-PLAN.md' },
    ]);
    expect(frontmatterOf(written(imported(), 'planning/plans/03-rate-limits/03-01-PLAN.md')).metadata).toEqual({
      gsd: { type: 'execute', wave: 1, id: '02.1-01', phase_order: ['02-04'] },
    });
  });

  it("keeps the phase order by default: each phase's first plans wait for the previous phase's last", () => {
    const result = imported();
    expect(result.order).toEqual({ phaseOrder: true, added: 5 });
    expect(Object.fromEntries(load(result).spec!.plans.map((p) => [p.id, p.dependsOn]))).toEqual({
      '01-01': [],
      '01-02': ['01-01'],
      '01-03': ['01-01'], // GSD wrote the plain string "01-01"
      '02-01': ['01-02', '01-03'], // phase order
      '02-02': ['02-01'], // 02A: GSD wrote [01], a YAML number
      '02-03': ['02-02'], // 02B: GSD wrote ["02A"]
      '02-04': ['02-03'], // GSD wrote "02-02B"
      '03-01': ['02-04'], // phase order: the inserted phase waits for phase 2
      '03-02': ['03-01'], // GSD wrote [1]
      '04-01': ['03-02'], // phase order
      '04-02': ['04-01'], // GSD wrote ["03-extension-01"]
      '04-03': ['04-02'],
      '05-01': ['04-03'], // phase order
    });
  });

  it('keeps only the declared dependencies with declaredOnly, and says so', () => {
    const result = imported({ declaredOnly: true });
    expect(result.order).toEqual({ phaseOrder: false, added: 0 });
    const deps = Object.fromEntries(load(result).spec!.plans.map((p) => [p.id, p.dependsOn]));
    expect([deps['02-01'], deps['03-01'], deps['04-01'], deps['05-01'], deps['02-03']]).toEqual([[], [], [], [], ['02-02']]);
  });

  it('turns checkpoint:human-verify into a human check, and decision and human-action checkpoints into checkpoints', () => {
    const spec = load(imported()).spec!;
    const shell = spec.planById.get('04-01')!;
    expect([shell.autonomous, shell.checkpoints]).toEqual([false, ['verification']]);
    expect(shell.mustPass.find((c) => c.type === 'human')).toEqual({
      id: 'human-corrections-view-in-a-real-editor',
      type: 'human',
      kind: 'ux_flow',
      prompt:
        "Built: The corrections view, opened from a .tide file\n\n1. Press F5 to launch the Extension Development Host\n2. Open samples/harbour.tide\n3. The corrections view lists today's offsets for the station",
    });
    expect([spec.planById.get('02-02')!.checkpoints, spec.planById.get('04-03')!.checkpoints]).toEqual([['decision'], ['action']]);
  });

  it("turns <verify> commands into command checks, with the author's machine path cut and output trims dropped", () => {
    const spec = load(imported()).spec!;
    const commands = (id: string) => spec.planById.get(id)!.mustPass.flatMap((c) => (c.type === 'command_output' ? [[c.id, c.command, c.expect]] : []));
    expect(commands('01-01')).toEqual([['verify-storage-abc-and-sqlite-backend', 'cd backend && uv run pytest tests/test_storage.py -q', { exit_code: 0 }]]);
    // "`uv run pytest backend/tests -k station` passes": the quoted command.
    expect(commands('01-02')).toEqual([['verify-station-model', 'uv run pytest backend/tests -k station', { exit_code: 0 }]]);
    // <verify><automated>… 2>&1 | tail -5</automated>: tail would make the check unable to fail.
    expect(commands('02-01')).toEqual([['verify-feed-client', 'cd backend && uv run pytest tests/test_feed.py -q', { exit_code: 0 }]]);
    // cd /Users/mara/code/tidewater/extension && npm run compile 2>&1 | tail -20
    expect(commands('04-01')).toEqual([['verify-extension-shell', 'cd extension && npm run compile', { exit_code: 0 }]]);
    // cd /Users/mara/code/tidewater && npm --prefix extension test
    expect(commands('04-02')).toEqual([['verify-client', 'npm --prefix extension test', { exit_code: 0 }]]);
    expect(imported().machineRoot).toEqual({ root: '/Users/mara/code/tidewater', how: 'files' });
  });

  it("reports a <verify> command that names a path on the author's machine outside the repository, and makes no check of it", () => {
    const result = imported();
    expect(result.problems.filter((p) => p.code === 'machine-path')).toEqual([
      {
        file: 'phases/01-foundation/01-03-PLAN.md',
        line: 22,
        severity: 'warning',
        code: 'machine-path',
        message:
          '"Task 1: Seed loader": its <verify> command names /Users/mara/scratch/check_seed.py, a path on the author\'s machine outside the repository, so it was not made a check; rewrite it relative to the repository root and add it to must_pass',
      },
    ]);
    expect(
      load(result)
        .spec!.planById.get('01-03')!
        .mustPass.map((c) => c.type),
    ).toEqual(['artifact']);
  });

  it('keeps a contains GSD wrote as a regular expression, and verification matches it as one', async () => {
    const check = load(imported()).spec!.planById.get('01-01')!.mustPass[0]!;
    expect(check).toMatchObject({ type: 'artifact', path: 'backend/tidewater/storage.py', contains: 'class SqliteStorage\\(Storage\\)' });
    const repo = tempRepo({
      'backend/tidewater/storage.py':
        'from abc import ABC, abstractmethod\n\n\nclass Storage(ABC):\n    @abstractmethod\n    def read(self, key): ...\n\n\nclass SqliteStorage(Storage):\n    def read(self, key):\n        return self.db.get(key)\n',
    });
    const ports = localVerifyPorts(repo.root);
    try {
      expect(await runCheck(check, ports, {})).toMatchObject({
        status: 'pass',
        evidence:
          'backend/tidewater/storage.py: 7 substantive lines (min 3); exports Storage, SqliteStorage; matches /class SqliteStorage\\(Storage\\)/ (contains, read as a regular expression) at line 9: "class SqliteStorage(Storage)"; no stub markers',
      });
    } finally {
      await ports.close();
      repo.remove();
    }
  });

  it('imports plans a SUMMARY.md reports done as completed, and says which summaries do not', () => {
    const result = imported();
    expect(result.completed).toEqual(['01-01', '01-02', '02-01']);
    const spec = load(result).spec!;
    expect(spec.plans.filter((p) => p.completed !== undefined).map((p) => [p.id, p.completed])).toEqual([
      ['01-01', '2026-02-03'],
      ['01-02', '2026-02-04'],
      ['02-01', '2026-02-10'],
    ]);
    expect(result.problems.filter((p) => p.code.startsWith('summary-'))).toEqual([
      {
        file: 'phases/02-sync-engine/02-02A-SUMMARY.md',
        line: 1,
        severity: 'warning',
        code: 'summary-not-done',
        message:
          'phases/02-sync-engine/02-02A-SUMMARY.md does not report plan 02-02A done (it reports 1 of 2 tasks done); 02-02 was imported as not done and harness run will run it',
      },
      {
        file: 'phases/04-release/04-02-SUMMARY.md',
        line: 1,
        severity: 'warning',
        code: 'summary-without-plan',
        message:
          'phases/04-release/04-02-SUMMARY.md has no PLAN.md beside it (no 02 plan in phases/04-release); it was kept as execution/phases/05-release/gsd-04-02-SUMMARY.md, but it marks no plan done',
      },
    ]);
    expect(result.files.find((f) => f.from === 'phases/02-sync-engine/02-01-SUMMARY.md')?.path).toBe('execution/phases/02-sync-engine/02-01-SUMMARY.md');
  });

  it('titles plans without cutting a word, and without the id a "# Plan 01-02:" heading repeats', () => {
    const result = imported();
    const spec = load(result).spec!;
    expect(spec.planById.get('01-02')!.title).toBe('Station model and lookup by harbour code');
    // A whole objective of 217 characters is an issue's title no list shows: its words up to the last that fits, the objective whole in the body.
    const long = spec.planById.get('01-03')!.title;
    expect(long).toBe("Seed the station list from the hydrographic office's published CSV\u2026");
    expect(long.length).toBeLessThanOrEqual(SHORT_TITLE);
    expect(written(result, 'planning/plans/01-foundation/01-03-PLAN.md')).toContain(
      "<objective>\nSeed the station list from the hydrographic office's published CSV of every harbour station, with names, codes, coordinates and datum offsets, so that the sync engine has stations to pull predictions for from its first run\n</objective>",
    );
  });

  it.each([
    // GSD's objectives as real projects write them: the words before the colon or dash that the detail follows.
    [
      'Create the persistence data layer: a serialization DTO that maps GameUiState to JSON-safe types, a repository interface for save/load/clear, the DataStore implementation, a fake for testing, and round-trip serialization tests.',
      'Create the persistence data layer',
    ],
    [
      'Implement the technique-based difficulty classifier \u2014 a two-tier constraint-propagation solver that determines whether a puzzle is solvable by naked singles only, or requires techniques beyond those.',
      'Implement the technique-based difficulty classifier',
    ],
    // The first sentence, when it fits.
    [
      'Physical device verification checklist for E-ink display compliance. The cross-AI review correctly identified that ghosting and tap reliability cannot be validated by any automated test.',
      'Physical device verification checklist for E-ink display compliance',
    ],
    // Without its parentheses, to the last clause that fits.
    [
      'Create all Phase 2 domain model contracts (GameUiState, InputMode, GameAction, GameEvent) and the test infrastructure (MainDispatcherRule, FakeGenerator) that GameViewModel will build against in Plans 02 and 03.',
      'Create all Phase 2 domain model contracts',
    ],
    [
      'Add hint logic and completion scoring to GameViewModel, extend ControlsRow with the Hint button, and wire the completion event to carry full score data.',
      'Add hint logic and completion scoring to GameViewModel',
    ],
    // "e.g." ends no sentence; a short objective is the title as it is, without its full stop.
    ['Use Node.js 22 e.g. for fetch. Then more.', 'Use Node.js 22 e.g. for fetch'],
    ['Invoice CRUD routes on Fastify.', 'Invoice CRUD routes on Fastify'],
  ])('makes a short title of the objective %#', (objective, title) => {
    expect(shortTitle(objective)).toBe(title);
    expect(gsdTitle(`<objective>\n${objective}\n\nPurpose: more.\n</objective>\n`)).toBe(title);
  });

  it('writes a second VERIFICATION document beside the first, with a warning naming both, instead of stopping', () => {
    const result = imported();
    expect(result.problems.filter((p) => p.code === 'target-conflict')).toEqual([
      {
        file: 'phases/01-foundation/01-RE-VERIFICATION.md',
        line: 1,
        severity: 'warning',
        code: 'target-conflict',
        message:
          'phases/01-foundation/01-VERIFICATION.md is written to execution/phases/01-foundation/VERIFICATION.md, so phases/01-foundation/01-RE-VERIFICATION.md was written beside it as execution/phases/01-foundation/01-RE-VERIFICATION.md',
      },
    ]);
    expect(written(result, 'execution/phases/01-foundation/VERIFICATION.md')).toContain('# Phase 1: Foundation Verification Report');
    expect(written(result, 'execution/phases/01-foundation/01-RE-VERIFICATION.md')).toContain('# Phase 1: Foundation Re-verification');
  });

  it('keeps two summaries of one plan (GSD names them two ways), the plain name in place, naming which was kept', () => {
    const again = { path: 'phases/02-sync-engine/02-sync-engine-01-SUMMARY.md', text: '---\nphase: 02-sync-engine\nplan: 01\n---\n# Re-run\n' };
    const result = importGsd([...tree, again], { specId: 'SPC-007' });
    expect(result.problems.filter((p) => p.code === 'target-conflict' && p.file.startsWith('phases/02'))).toEqual([
      {
        file: 'phases/02-sync-engine/02-sync-engine-01-SUMMARY.md',
        line: 1,
        severity: 'warning',
        code: 'target-conflict',
        message:
          'phases/02-sync-engine/02-01-SUMMARY.md is written to execution/phases/02-sync-engine/02-01-SUMMARY.md, so phases/02-sync-engine/02-sync-engine-01-SUMMARY.md was written beside it as execution/phases/02-sync-engine/02-sync-engine-01-SUMMARY.md',
      },
    ]);
    expect(result.completed).toContain('02-01');
  });

  it('fails, naming each file and why, when something that looks like a plan cannot be imported', () => {
    const extra: GsdFile[] = [
      { path: 'phases/02-sync-engine/draft-PLAN.md', text: '---\nphase: 02-sync-engine\nplan: 02\n---\n# later' },
      { path: 'phases/03-extension/old/03-01-PLAN.md', text: '# old' },
      { path: '04-03-PLAN.md', text: '# loose' },
      { path: 'phases/misc/01-01-PLAN.md', text: '# misc' },
      { path: 'phases/02-sync-engine/03-01-PLAN.md', text: '# misplaced' },
    ];
    const result = importGsd([...tree, ...extra], { specId: 'SPC-007' });
    expect(result.problems.filter((p) => p.code === 'plan-not-imported').map((p) => [p.file, p.severity, p.message])).toEqual([
      [
        '04-03-PLAN.md',
        'error',
        '04-03-PLAN.md looks like a plan but was not imported: a plan outside phases/: GSD plans live in phases/NN-name/; move it into its phase directory',
      ],
      [
        'phases/02-sync-engine/03-01-PLAN.md',
        'error',
        'phases/02-sync-engine/03-01-PLAN.md looks like a plan but was not imported: named for phase 03 but in the directory of phase 02 (02-sync-engine); move it or fix its name',
      ],
      [
        'phases/02-sync-engine/draft-PLAN.md',
        'error',
        'phases/02-sync-engine/draft-PLAN.md looks like a plan but was not imported: a plan name harness cannot read: name it 02-NN-PLAN.md (NN the plan number, optionally with a letter: 02-02A-PLAN.md)',
      ],
      [
        'phases/03-extension/old/03-01-PLAN.md',
        'error',
        'phases/03-extension/old/03-01-PLAN.md looks like a plan but was not imported: not directly inside a phase directory phases/NN-name/ (it is 1 directory deeper)',
      ],
      [
        'phases/misc/01-01-PLAN.md',
        'error',
        'phases/misc/01-01-PLAN.md looks like a plan but was not imported: "misc" is not a phase directory: its name must start with the phase number, as in 02-name or 02.1-name',
      ],
    ]);
    expect(result.skipped.filter((s) => extra.some((e) => e.path === s.path))).toHaveLength(5);
  });

  it('fails on a dependency that names no plan of the tree, saying which', () => {
    const result = importGsd(
      tree.map((f) =>
        f.path === 'phases/02-sync-engine/02-03-PLAN.md' ? { ...f, text: f.text.replace('depends_on: "02-02B"', 'depends_on: ["02-02B", "02-09"]') } : f,
      ),
      { specId: 'SPC-007' },
    );
    expect(result.problems.filter((p) => p.code === 'dependency-unresolved')).toEqual([
      {
        file: 'phases/02-sync-engine/02-03-PLAN.md',
        line: 1,
        severity: 'error',
        code: 'dependency-unresolved',
        message:
          'depends_on names "02-09", which is no plan of this GSD tree; it was left out of 02-04\'s dependencies: fix it in the GSD plan (e.g. "02-03") and import again',
      },
    ]);
  });
});

describe('GSD depends_on forms', () => {
  const lookup = {
    plan: (phase: string, key: string) =>
      (({ '1/02': '01-02', '2/01': '02-01', '2/02A': '02-02', '2.1/01': '03-01' }) as Record<string, string>)[`${phase}/${key}`],
    phase: (phase: string) => (({ '2': ['02-01', '02-02'] }) as Record<string, string[]>)[phase],
  };
  it('reads the forms real plans write', () => {
    expect(readDependencies(['01-02', 1, '02A', '2.1-01', '02-sync-engine-01', '02-02A-PLAN.md'], '02', lookup)).toEqual({
      ids: ['01-02', '02-01', '02-02', '03-01'],
      unresolved: [],
    });
    expect(readDependencies('01-02, 02-01', '02', lookup)).toEqual({ ids: ['01-02', '02-01'], unresolved: [] });
    expect(readDependencies('Phase 2', '03', lookup)).toEqual({ ids: ['02-01', '02-02'], unresolved: [] });
    expect(readDependencies(['02-sync-engine', 'later'], '03', lookup)).toEqual({ ids: ['02-01', '02-02'], unresolved: ['later'] });
  });
});

describe('GSD <verify>: a command, or a sentence about one', () => {
  it('keeps commands, finds the one quoted in a sentence, and leaves descriptions alone', () => {
    expect(verifyCommand('npm test -- invoices')).toBe('npm test -- invoices');
    expect(verifyCommand('`npm test` passes')).toBe('npm test');
    expect(verifyCommand('curl localhost:5173 returns 200')).toBeUndefined();
    expect(verifyCommand('Visit the dashboard and check the totals')).toBeUndefined();
  });

  it('drops the endings that take the exit status away, so the check can fail', () => {
    expect(withoutOutputTrim('cargo test -p app -- config 2>&1 | tail -30')).toBe('cargo test -p app -- config');
    expect(withoutOutputTrim('pnpm compile && echo "PASS" || echo "FAIL"')).toBe('pnpm compile');
    expect(withoutOutputTrim("! grep -q 'TODO' src/a.ts && echo PASS")).toBe("! grep -q 'TODO' src/a.ts");
    expect(withoutOutputTrim('go test ./... || true')).toBe('go test ./...');
    expect(withoutOutputTrim('npm test | grep -E "passed|failed"')).toBe('npm test | grep -E "passed|failed"');
  });

  it("cuts the repository's place on the author's machine, and reports what lies outside it", () => {
    expect(rewriteMachinePaths('cd /Users/dana/code/forge/server && pnpm test', '/Users/dana/code/forge')).toEqual({
      command: 'cd server && pnpm test',
      foreign: [],
    });
    expect(rewriteMachinePaths('cd /Users/dana/code/forge && node -e "import(\'/Users/dana/code/forge/dist/cli.js\')"', '/Users/dana/code/forge')).toEqual({
      command: 'node -e "import(\'./dist/cli.js\')"',
      foreign: [],
    });
    expect(rewriteMachinePaths('python3 /home/dana/scratch/check.py', '/Users/dana/code/forge')).toEqual({
      command: 'python3 /home/dana/scratch/check.py',
      foreign: ['/home/dana/scratch/check.py'],
    });
    expect(machineRoot(['/Users/dana/code/forge/server', '/Users/dana/.claude/get-shit-done/workflows/execute-plan.md'], new Set(['server', 'src']))).toEqual({
      root: '/Users/dana/code/forge',
      how: 'files',
    });
  });
});

describe('GSD SUMMARY.md: done or not', () => {
  it('is done with a completed date and nothing saying otherwise', () => {
    expect(summaryStatus('---\nplan: "04"\nmetrics:\n  duration: "~2 minutes"\n  completed: "2026-03-30"\n---\n# S\n')).toEqual({
      done: true,
      completed: '2026-03-30',
    });
    expect(summaryStatus('---\nmetrics:\n  completed_date: "2026-03-30"\n---\n# S\n')).toEqual({ done: true, completed: '2026-03-30' });
    expect(summaryStatus('---\nplan: 01\ncompleted: 2026-01-23\n---\n# S\n')).toEqual({ done: true, completed: '2026-01-23' });
    expect(summaryStatus('# S\n\n- **Completed:** 2026-03-05T09:40:03Z\n')).toEqual({ done: true, completed: '2026-03-05' });
    expect(summaryStatus('---\ncompleted: 2026-01-23\n---\n## Self-Check: FAILED\n')).toEqual({ done: false, reason: 'its self-check is FAILED' });
    expect(summaryStatus('---\nstatus: partial\ncompleted: 2026-01-23\n---\n')).toEqual({ done: false, reason: 'its status is "partial"' });
    expect(summaryStatus('# S\n')).toEqual({ done: false, reason: 'it has no completed: date (GSD writes one when a plan is done)' });
  });
});

describe('importGsd: gaps in the GSD tree', () => {
  it('writes ROADMAP.md from the phase directories when GSD has none, and says so', () => {
    const result = importGsd(
      gsd.filter((f) => f.path !== 'ROADMAP.md'),
      { specId: 'SPC-003' },
    );
    expect(result.problems).toEqual([
      expect.objectContaining({ file: 'ROADMAP.md', code: 'file-missing', severity: 'warning' }),
      expect.objectContaining({ code: 'unchecked-verify', severity: 'warning' }),
    ]);
    expect(frontmatterOf(written(result, 'ROADMAP.md')).phases).toEqual([
      { id: '01', title: 'Foundation' },
      { id: '02', title: 'Invoices api' },
      { id: '03', title: 'Dashboard' },
    ]);
    expect(load(result).valid).toBe(true);
  });

  it('finds nothing to import in a directory without GSD files', () => {
    const result = importGsd([{ path: 'README.md', text: '# hi' }], { specId: 'SPC-003' });
    expect(result.files).toEqual([]);
    expect(result.problems).toEqual([expect.objectContaining({ code: 'not-gsd', severity: 'error' })]);
    expect(result.skipped).toEqual([expect.objectContaining({ path: 'README.md' })]);
  });
});

describe('specIdFromDir', () => {
  it('takes the id from a spec directory name', () => {
    expect(specIdFromDir('SPC-003-billing')).toBe('SPC-003');
    expect(specIdFromDir('docs/specs/SPC-12/')).toBe('SPC-12');
    expect(specIdFromDir('AUTH-7_login')).toBe('AUTH-7');
    expect(specIdFromDir('billing')).toBeUndefined();
    expect(specIdFromDir('spc-003-billing')).toBeUndefined();
  });
});

describe('harness import (CLI)', () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'harness-import-'));
  });
  afterEach(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  function run(...args: string[]) {
    let stdout = '';
    let stderr = '';
    const io: CliIO = {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      cwd: tmp,
      env: {},
      isTTY: false,
    };
    return main(['import', ...args], io).then((code) => ({ code, stdout, stderr }));
  }

  it('writes the spec into a new directory and reports it valid (exit 0)', async () => {
    const { code, stdout } = await run(PLANNING, 'SPC-003-billing');
    expect(code).toBe(0);
    expect(stdout).toContain('SPC-003: 7 plans in 3 phases: valid');
    expect(stdout).toMatch(/skipped 2 files:\n {2}config\.json: /);
    const spec = await readFile(join(tmp, 'SPC-003-billing/SPEC.md'), 'utf8');
    expect(frontmatterOf(spec)).toEqual({ id: 'SPC-003', title: 'Ledgerline' });
    const plans = await readdir(join(tmp, 'SPC-003-billing/planning/plans/02-invoices-api'));
    expect(plans.sort()).toEqual(['02-01-PLAN.md', '02-02-PLAN.md', '02-03-PLAN.md']);
  });

  it('finds .planning inside a project directory', async () => {
    const { code, stdout } = await run(PROJECT, 'SPC-003-billing');
    expect(code).toBe(0);
    expect(stdout).toContain('basic/.planning → SPC-003-billing (SPC-003)');
  });

  it('refuses a non-empty spec directory without --force (exit 2, nothing written); --force writes and leaves other files alone', async () => {
    const target = join(tmp, 'SPC-003-billing');
    await mkdir(target);
    await writeFile(join(target, 'NOTES.md'), 'mine\n');

    const refused = await run(PLANNING, 'SPC-003-billing');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('SPC-003-billing is not empty; pass --force');
    expect(await readdir(target)).toEqual(['NOTES.md']);

    const forced = await run(PLANNING, 'SPC-003-billing', '--force');
    expect(forced.code).toBe(0);
    expect(await readFile(join(target, 'NOTES.md'), 'utf8')).toBe('mine\n');
    expect((await readdir(target)).sort()).toEqual(['NOTES.md', 'ROADMAP.md', 'SPEC.md', 'execution', 'planning']);
  });

  it('needs a spec id: from the directory name or --id (exit 2 without one)', async () => {
    const missing = await run(PLANNING, 'billing');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('pass --id SPC-003');

    const bad = await run(PLANNING, 'billing', '--id', 'billing');
    expect(bad.code).toBe(2);

    const given = await run(PLANNING, 'billing', '--id', 'SPC-042');
    expect(given.code).toBe(0);
    expect(frontmatterOf(await readFile(join(tmp, 'billing/SPEC.md'), 'utf8')).id).toBe('SPC-042');
  });

  it('prints a stable JSON report with --json', async () => {
    const { code, stdout } = await run(PLANNING, 'SPC-003-billing', '--json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as ImportJson;
    expect(Object.keys(report)).toEqual([
      'source',
      'spec',
      'id',
      'ok',
      'written',
      'skipped',
      'problems',
      'validation',
      'order',
      'renumbered',
      'completed',
      'references',
    ]);
    expect(report).toMatchObject({
      source: PLANNING.replace(/\\/g, '/'),
      spec: 'SPC-003-billing',
      id: 'SPC-003',
      ok: true,
      problems: [expect.objectContaining({ code: 'unchecked-verify', severity: 'warning' })],
    });
    expect(report.written).toHaveLength(19);
    expect(report.written[0]).toEqual({ path: 'SPEC.md', from: null });
    expect(report.written).toContainEqual({ path: 'planning/plans/02-invoices-api/02-02-PLAN.md', from: 'phases/02-invoices-api/02-02-PLAN.md' });
    expect(report.skipped.map((s) => s.path)).toEqual(['config.json', 'phases/02-invoices-api/.continue-here.md']);
    expect(report.validation).toEqual({ valid: true, errors: 0, warnings: 0, phases: 3, plans: 7, problems: [] });
  });

  it('exits 1 when the written spec does not validate, with the problems under the spec directory', async () => {
    const source = join(tmp, '.planning');
    await mkdir(join(source, 'phases/01-setup'), { recursive: true });
    await writeFile(join(source, 'ROADMAP.md'), '# Roadmap: Tiny\n\n### Phase 1: Setup\n**Goal**: A README\n');
    await writeFile(join(source, 'phases/01-setup/01-01-PLAN.md'), '---\nphase: 01-setup\nplan: 01\n---\n\n<objective>\nWrite it.\n</objective>\n');
    const { code, stdout } = await run('.planning', 'SPC-001-tiny', '--json');
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as ImportJson;
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([expect.objectContaining({ file: '.planning/PROJECT.md', code: 'file-missing', severity: 'warning' })]);
    expect(report.validation.problems).toEqual([
      expect.objectContaining({ file: 'SPC-001-tiny/planning/plans/01-setup/01-01-PLAN.md', code: 'vacuous-plan', severity: 'error' }),
    ]);
  });

  it('says how it ordered the plans, what it renumbered, what was done and where the repository was', async () => {
    const { code, stdout, stderr } = await run(TIDEWATER, 'SPC-007-tidewater');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const notes = stdout.slice(stdout.indexOf('phase order:'), stdout.indexOf(`${TIDEWATER}/phases`));
    expect(notes).toBe(
      [
        "phase order: GSD runs phases one after another, so each phase's first plans wait for the previous phase (5 dependencies added, listed in each plan's metadata.gsd.phase_order); --declared-only keeps only the plans' own depends_on",
        "renumbered 12 ids (harness numbers phases and plans with whole numbers; GSD's id is kept in metadata.gsd.id):",
        '  phase 02.1 → phase 03  (phases/02.1-rate-limits)',
        '  phase 03 → phase 04  (phases/03-extension)',
        '  phase 04 → phase 05  (phases/04-release)',
        '  02-02A → 02-02  (phases/02-sync-engine/02-02A-PLAN.md)',
        '  02-02B → 02-03  (phases/02-sync-engine/02-02B-PLAN.md)',
        '  02-03 → 02-04  (phases/02-sync-engine/02-03-PLAN.md)',
        '  02.1-01 → 03-01  (phases/02.1-rate-limits/02.1-01-PLAN.md)',
        '  02.1-02 → 03-02  (phases/02.1-rate-limits/02.1-02-PLAN.md)',
        '  03-01 → 04-01  (phases/03-extension/03-extension-01-PLAN.md)',
        '  03-02 → 04-02  (phases/03-extension/03-extension-02-PLAN.md)',
        '  03-03 → 04-03  (phases/03-extension/03-extension-03-PLAN.md)',
        '  04-01 → 05-01  (phases/04-release/04-01-PLAN.md)',
        'done before harness (their GSD SUMMARY.md says so; imported with completed:, harness run will not run them): 01-01, 01-02, 02-01',
        "<verify> commands: /Users/mara/code/tidewater taken as the repository root (from the plans' files_modified) and cut from the commands",
        '',
      ].join('\n'),
    );
    expect(stdout).toContain('SPC-007: 13 plans in 5 phases: valid\n');

    const declared = await run(TIDEWATER, 'SPC-008-tidewater', '--declared-only', '--json');
    const report = JSON.parse(declared.stdout) as ImportJson;
    expect([declared.code, report.order, report.completed, report.renumbered[0]]).toEqual([
      0,
      { phase_order: false, added: 0 },
      ['01-01', '01-02', '02-01'],
      { from: 'phase 02.1', to: 'phase 03', path: `${TIDEWATER}/phases/02.1-rate-limits` },
    ]);
    const human = await run(TIDEWATER, 'SPC-009-tidewater', '--declared-only');
    expect(human.stdout).toContain(
      "phase order: only the plans' own depends_on were kept (--declared-only), so a later phase's plans may start beside an earlier phase's\n",
    );
  });

  it('exits 1 naming a plan it could not import, and why, though the rest was written', async () => {
    const source = join(tmp, 'project/.planning');
    await mkdir(join(source, 'phases/01-setup'), { recursive: true });
    await writeFile(join(source, 'ROADMAP.md'), '# Roadmap: Tiny\n\n### Phase 1: Setup\n**Goal**: A README\n');
    const plan =
      '---\nphase: 01-setup\nplan: 01\nmust_haves:\n  artifacts:\n    - path: README.md\n      contains: Tiny\n---\n\n<objective>\nWrite it.\n</objective>\n';
    await writeFile(join(source, 'phases/01-setup/01-01-PLAN.md'), plan);
    await writeFile(join(source, 'phases/01-setup/01-01-PLAN.md.orig-PLAN.md'), plan);
    const { code, stdout, stderr } = await run('project', 'SPC-001-tiny');
    expect(code).toBe(1);
    expect(stderr).toBe('');
    expect(stdout).toContain(
      'project/.planning/phases/01-setup/01-01-PLAN.md.orig-PLAN.md:1: phases/01-setup/01-01-PLAN.md.orig-PLAN.md looks like a plan but was not imported: a plan name harness cannot read: name it 01-NN-PLAN.md (NN the plan number, optionally with a letter: 01-02A-PLAN.md)\n',
    );
    expect(await readdir(join(tmp, 'SPC-001-tiny/planning/plans/01-setup'))).toEqual(['01-01-PLAN.md']);
  });

  it('exits 1 and writes nothing when the directory holds no GSD files', async () => {
    await mkdir(join(tmp, 'empty'));
    await writeFile(join(tmp, 'empty/README.md'), '# not GSD\n');
    const { code, stdout } = await run('empty', 'SPC-001-x');
    expect(code).toBe(1);
    expect(stdout).toContain('no GSD files here');
    expect(await readdir(tmp)).toEqual(['empty']);
  });
});

describe("GSD's finished milestones and its plans' @-includes", () => {
  const MILESTONES = join(FIXTURES, 'gsd/milestones/.planning');
  const SPEC = 'docs/specs/SPC-005-kompakt';

  it('imports the milestone roadmaps the prose points to, and rewrites each name of an imported file to where it was written', async () => {
    const root = await makeRepo({});
    const r = await runCli(['import', MILESTONES, SPEC], root);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const spec = (path: string) => readFileSync(join(root, SPEC, path), 'utf8');

    // The milestone's roadmap and requirements are documents of the spec; its archived phases are history, said so.
    expect(r.stdout).toContain('  planning/milestones/v1.0-ROADMAP.md  ← milestones/v1.0-ROADMAP.md\n');
    expect(r.stdout).toContain('  planning/MILESTONES.md  ← MILESTONES.md\n');
    expect(r.stdout).toContain(
      "  milestones/v1.0-phases/01-puzzle-engine/01-01-PLAN.md: GSD archive of a finished milestone's phases, whose roadmap is imported; harness keeps history in Git\n",
    );
    // GSD's repository paths, and its links relative to the document, name what was imported where it now is.
    const roadmap = spec('ROADMAP.md');
    expect(roadmap).toContain(`Full phase details: \`${SPEC}/planning/milestones/v1.0-ROADMAP.md\``);
    expect(roadmap).toContain('see [the v1.0 roadmap](planning/milestones/v1.0-ROADMAP.md)');
    expect(spec('planning/MILESTONES.md')).toContain('Archived: [roadmap](milestones/v1.0-ROADMAP.md), [requirements](milestones/v1.0-REQUIREMENTS.md)');
    expect(r.stdout).toContain(
      'references: 4 names of GSD files in the imported documents (.planning/…, relative links) rewritten to where the files were written\n',
    );
    // Each name resolves: from the repository's root, or from the document's folder for a link.
    for (const [doc, named] of [...roadmap.matchAll(/`(docs\/specs\/[^`]+)`/g)].map((m) => ['.', m[1]!]))
      expect(existsSync(join(root, doc, named)), named).toBe(true);
    for (const [doc, named] of [
      ['', 'planning/milestones/v1.0-ROADMAP.md'],
      ['planning', 'milestones/v1.0-REQUIREMENTS.md'],
    ])
      expect(existsSync(join(root, SPEC, doc!, named!))).toBe(true);
  });

  it("drops a plan's @-includes of files outside the repository on the author's machine, with a warning, and makes those inside it repository-relative", async () => {
    const root = await makeRepo({});
    const r = await runCli(['import', MILESTONES, SPEC], root);
    const plan = readFileSync(join(root, SPEC, 'planning/plans/03-grid-rendering/03-01-PLAN.md'), 'utf8');
    expect(plan).not.toMatch(/^@.*(?:\/Users\/|\$HOME)/m);
    expect(plan).toContain(
      [
        '<execution_context>',
        '</execution_context>',
        '',
        '<context>',
        `@${SPEC}/planning/PROJECT.md`,
        `@${SPEC}/ROADMAP.md`,
        '@app/src/main/GameGrid.kt',
        '@.planning/milestones/v1.0-phases/01-puzzle-engine/01-01-SUMMARY.md',
        '</context>',
      ].join('\n'),
    );
    const source = `${MILESTONES}/phases/03-grid-rendering/03-01-PLAN.md`;
    // GSD's own instructions, in every GSD plan, are counted once; any other file of the author's machine is a warning at its line.
    expect(r.stdout).toContain(
      "@-includes: 2 lines naming GSD's own instructions on the author's machine (…/get-shit-done/…) dropped from 1 plan: no other machine has them\n",
    );
    expect(r.stdout).toContain(
      [
        `${source}:32: warning: names .planning/milestones/v1.0-phases/01-puzzle-engine/01-01-SUMMARY.md, which was not imported (GSD archive of a finished milestone's phases, whose roadmap is imported; harness keeps history in Git); the name was left as it is`,
        `${source}:33: warning: @/Users/dana/notes/e-ink-contrast.md includes a file on the author's machine outside the repository, which no other machine has; the line was dropped`,
      ].join('\n'),
    );
    // The title is the objective's words before its colon; the objective stays whole in the body.
    expect(frontmatterOf(plan).title).toBe("Draw pencil marks in the cell's contrast colour");
  });

  it('leaves the repository paths GSD names as they are when the spec is in no repository, and still drops what no machine has', () => {
    const result = importGsd(
      [
        { path: 'ROADMAP.md', text: '# Roadmap\n\n### Phase 1: Setup\n**Goal**: A README\n\nDetails: `.planning/milestones/v1.0-ROADMAP.md`\n' },
        { path: 'milestones/v1.0-ROADMAP.md', text: '# v1.0\n' },
        {
          path: 'phases/01-setup/01-01-PLAN.md',
          text: '---\nphase: 01-setup\nplan: 01\nfiles_modified: [README.md]\n---\n\n<execution_context>\n@/home/dana/.claude/get-shit-done/workflows/execute-plan.md\n</execution_context>\n',
        },
      ],
      { specId: 'SPC-001' },
    );
    expect(written(result, 'ROADMAP.md')).toContain('Details: `.planning/milestones/v1.0-ROADMAP.md`');
    expect(written(result, 'planning/milestones/v1.0-ROADMAP.md')).toBe('# v1.0\n');
    expect(written(result, 'planning/plans/01-setup/01-01-PLAN.md')).toContain('<execution_context>\n</execution_context>');
    expect(result.gsdIncludes).toEqual({ lines: 1, plans: 1 });
    expect(result.references).toBe(0);
  });
});

describe("@-includes of the project on its author's machine", () => {
  it('find where the repository was from its .planning, and name the file where the import wrote it', () => {
    const result = importGsd(
      [
        { path: 'PROJECT.md', text: '# Tiny\n' },
        {
          path: 'phases/01-setup/01-01-PLAN.md',
          text: '---\nphase: 01-setup\nplan: 01\nfiles_modified: [README.md]\n---\n\n<context>\n@/Users/dana/code/tiny/.planning/PROJECT.md\n</context>\n',
        },
      ],
      { specId: 'SPC-001', specPath: 'specs/SPC-001-tiny' },
    );
    expect(written(result, 'planning/plans/01-setup/01-01-PLAN.md')).toContain('<context>\n@specs/SPC-001-tiny/planning/PROJECT.md\n</context>');
    expect(result.problems.filter((p) => p.code === 'machine-include')).toEqual([]);
  });
});
