import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ImportJson } from '../../../../app/cli/commands/import.js';
import type { CliIO } from '../../../../app/cli/io.js';
import { main } from '../../../../app/cli/main.js';
import { importGsd, type GsdFile, type GsdImport } from '../../../../app/engine/importers/gsd/import.js';
import { specIdFromDir } from '../../../../app/engine/importers/gsd/spec-id.js';
import { parseFrontmatter } from '../../../../app/engine/core/spec/frontmatter.js';
import { loadSpec, type LoadedSpec } from '../../../../app/engine/core/spec/load.js';
import { readTree } from '../../../../app/machine/read-tree.js';
import { FIXTURES } from '../../../helpers/paths.js';

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
    expect(result.problems).toEqual([]);
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
        user_setup: [
          expect.objectContaining({ service: 'postmark', env_vars: [expect.objectContaining({ name: 'POSTMARK_SERVER_TOKEN' })] }),
        ],
      },
    });
  });

  it('leaves a plan without must_haves as it is, so validation says it could pass without the work', () => {
    const bare = '---\nphase: 01-foundation\nplan: 03\ntype: execute\ndepends_on: ["01"]\nfiles_modified: [README.md]\n---\n\n<objective>\nWrite the README.\n</objective>\n';
    const result = importGsd([...gsd, { path: 'phases/01-foundation/01-03-PLAN.md', text: bare }], { specId: 'SPC-003' });
    const loaded = load(result);
    expect(loaded.valid).toBe(false);
    expect(loaded.problems).toEqual([expect.objectContaining({ file: 'planning/plans/01-foundation/01-03-PLAN.md', code: 'vacuous-plan' })]);
  });
});

describe('importGsd: inserted (decimal) phases', () => {
  const roadmap = (text: string) => text.replace('### Phase 3: Dashboard', '### Phase 2.1: Rate limits (INSERTED)\n**Goal**: Throttle the send route\n\n### Phase 3: Dashboard');
  const inserted = (): GsdFile[] => [
    ...gsd.map((f) => (f.path === 'ROADMAP.md' ? { ...f, text: roadmap(f.text) } : f)),
    { path: 'phases/02.1-rate-limits/02.1-01-PLAN.md', text: '---\nphase: 02.1-rate-limits\nplan: 01\n---\n' },
    { path: 'phases/02.1-rate-limits/02.1-01-SUMMARY.md', text: '# done\n' },
  ];

  it('reports each one as an error naming the files left behind, and imports the rest', () => {
    const result = importGsd(inserted(), { specId: 'SPC-003' });
    expect(result.problems).toEqual([
      {
        file: 'phases/02.1-rate-limits',
        line: 1,
        severity: 'error',
        code: 'decimal-phase',
        message: expect.stringMatching(
          /^inserted phase 02\.1 "Rate limits" was not imported \(2 files: phases\/02\.1-rate-limits\/02\.1-01-PLAN\.md, phases\/02\.1-rate-limits\/02\.1-01-SUMMARY\.md\); harness phases are whole numbers, so renumber/,
        ),
      },
    ]);
    expect(result.skipped.filter((s) => s.path.startsWith('phases/02.1-'))).toHaveLength(2);
    expect(result.files.some((f) => f.path.includes('02.1'))).toBe(false);
    expect((frontmatterOf(written(result, 'ROADMAP.md')).phases as { id: string }[]).map((p) => p.id)).toEqual(['01', '02', '03']);
    expect(load(result).valid).toBe(true);
  });

  it('warns about one the roadmap names when it has no files', () => {
    const result = importGsd(
      gsd.map((f) => (f.path === 'ROADMAP.md' ? { ...f, text: roadmap(f.text) } : f)),
      { specId: 'SPC-003' },
    );
    expect(result.problems).toEqual([expect.objectContaining({ file: 'ROADMAP.md', severity: 'warning', code: 'decimal-phase' })]);
  });
});

describe('importGsd: gaps in the GSD tree', () => {
  it('writes ROADMAP.md from the phase directories when GSD has none, and says so', () => {
    const result = importGsd(
      gsd.filter((f) => f.path !== 'ROADMAP.md'),
      { specId: 'SPC-003' },
    );
    expect(result.problems).toEqual([expect.objectContaining({ file: 'ROADMAP.md', code: 'file-missing', severity: 'warning' })]);
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
    expect(Object.keys(report)).toEqual(['source', 'spec', 'id', 'ok', 'written', 'skipped', 'problems', 'validation']);
    expect(report).toMatchObject({ source: PLANNING.replace(/\\/g, '/'), spec: 'SPC-003-billing', id: 'SPC-003', ok: true, problems: [] });
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

  it('exits 1 and writes nothing when the directory holds no GSD files', async () => {
    await mkdir(join(tmp, 'empty'));
    await writeFile(join(tmp, 'empty/README.md'), '# not GSD\n');
    const { code, stderr } = await run('empty', 'SPC-001-x');
    expect(code).toBe(1);
    expect(stderr).toContain('no GSD files here');
    expect(await readdir(tmp)).toEqual(['empty']);
  });
});
