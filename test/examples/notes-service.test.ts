import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeGraph, type GraphAnalysis } from '../../app/engine/core/analysis/analyze.js';
import { loadSpec, type LoadedSpec } from '../../app/engine/core/spec/load.js';
import { HUMAN_TYPES, isMachineCheckable, type Check, type Plan, type Spec } from '../../app/engine/core/spec/model.js';
import { readSpecFiles } from '../../app/machine/spec-files.js';
import { EXAMPLE_SPEC } from '../helpers/paths.js';

/**
 * The example spec harness ships (examples/specs/SPC-001-notes-service) is what `npm start`
 * runs end to end, and what people read to learn the format. These tests say what it must
 * demonstrate. (Whether its steps really build the service is proved by running them.)
 */
const DIR = EXAMPLE_SPEC;

let loaded: LoadedSpec;
let spec: Spec;
let analysis: GraphAnalysis;

beforeAll(async () => {
  loaded = loadSpec(await readSpecFiles(DIR));
  spec = loaded.spec!;
  analysis = analyzeGraph(spec);
});

const ids = (indices: readonly number[]) => indices.map((i) => analysis.graph.ids[i]);
const plan = (id: string) => spec.planById.get(id)!;
const allChecks = (): Check[] => [...spec.plans.flatMap((p) => p.mustPass), ...spec.phases.flatMap((p) => p.mustPass)];
/** The slots a plan fills in shared files: `node tools/splice.js <file> '<slot>'` in its steps. */
const splices = (p: Plan) =>
  p.steps.flatMap((s) => [...s.script.matchAll(/node tools\/splice\.js (\S+) '([^']+)'/g)].map((m) => ({ file: m[1]!, slot: m[2]! })));

describe('the example spec SPC-001 (notes service)', () => {
  it('validates with no errors and no warnings', () => {
    expect(loaded.problems).toEqual([]);
    expect(loaded.valid).toBe(true);
    expect(spec.id).toBe('SPC-001');
  });

  it('has at least three phases and nine plans, each phase with its own checks', () => {
    expect(spec.phases.map((p) => p.id)).toEqual(['01', '02', '03']);
    expect(spec.plans.length).toBeGreaterThanOrEqual(9);
    for (const phase of spec.phases) {
      expect(phase.plans.length, `phase ${phase.id}`).toBeGreaterThanOrEqual(3);
      expect(phase.mustPass.filter(isMachineCheckable).length, `phase ${phase.id}`).toBeGreaterThanOrEqual(3);
    }
  });

  it('lets work cross phases: 02-01 needs only 01-01, 03-01 needs only 01-03', () => {
    expect(plan('02-01').dependsOn).toEqual(['01-01']);
    expect(plan('03-01').dependsOn).toEqual(['01-03']);
    const crossing = spec.plans.filter((p) => p.dependsOn.some((d) => plan(d).phase !== p.phase)).map((p) => p.id);
    expect(crossing).toEqual(['02-01', '02-03', '02-04', '03-01', '03-02']);
  });

  it('has plans that could run at once but write the same file, which the graph reports', () => {
    const conflicts = analysis.conflicts.map((c) => [...ids([c.a, c.b]), c.globs[0]]);
    expect(conflicts).toEqual([
      ['01-02', '01-03', 'src/index.js'],
      ['01-03', '02-03', 'src/index.js'],
      ['03-01', '03-02', 'README.md'],
    ]);
  });

  it('edits each shared file through a slot of its own, reserved by 01-01, so merges are clean in any order', () => {
    const reserved = plan('01-01').steps.map((s) => s.script).join('\n');
    const filled = spec.plans.filter((p) => p.id !== '01-01').flatMap((p) => splices(p).map((s) => ({ ...s, plan: p.id })));
    expect(filled.map((s) => `${s.plan} ${s.file} ${s.slot}`)).toEqual([
      '01-02 src/index.js // slot:memory-store',
      '01-03 src/index.js // slot:file-store',
      '02-03 src/index.js // slot:app',
      '03-01 README.md <!-- section:cli -->',
      '03-02 README.md <!-- section:http-api -->',
    ]);
    for (const s of filled) {
      expect(reserved, `01-01 reserves ${s.slot}`).toContain(`\n${s.slot}\n`);
      expect(plan(s.plan).filesModified, `${s.plan} declares ${s.file}`).toContain(s.file);
    }
  });

  it('follows the designed critical path through the HTTP work', () => {
    expect(ids(analysis.critical.path)).toEqual(['01-01', '02-01', '02-02', '02-03', '02-04', '03-02', '03-03']);
    expect(analysis.critical.length).toBe(7);
  });

  it('gives every plan shell steps and checks that fail when the work is not done', () => {
    for (const p of spec.plans) {
      expect(p.steps.length, p.id).toBeGreaterThan(0);
      expect(p.steps.every((s) => s.lang === 'sh'), p.id).toBe(true);
      expect(p.mustPass.filter(isMachineCheckable).length, p.id).toBeGreaterThanOrEqual(4);
      expect(new Set(p.mustPass.map((c) => c.type)).size, `${p.id} uses several kinds of check`).toBeGreaterThanOrEqual(4);
      expect(p.mustPass.some((c) => c.type === 'tests_pass' && c.command.startsWith('node --test ')), p.id).toBe(true);
    }
  });

  it('uses every machine check a browserless machine can run, and nothing else', () => {
    const types = new Set(allChecks().map((c) => c.type));
    expect([...types].sort()).toEqual(['api_response', 'build_succeeds', 'command_output', 'file_contains', 'file_exists', 'tests_pass']);
    expect(allChecks().filter((c) => HUMAN_TYPES.has(c.type) || c.type.startsWith('ui_'))).toEqual([]);
    expect(spec.plans.every((p) => p.autonomous)).toBe(true);
  });

  it('starts its server on the port harness picks: {port} in the URL, PORT in the environment', () => {
    const served = [...spec.plans.filter((p) => p.serve), ...spec.phases.filter((p) => p.serve)];
    expect(served.map((s) => s.id)).toEqual(['02-04', '02']);
    for (const s of served) {
      expect(s.serve).toMatchObject({ command: 'node src/server.js', url: 'http://127.0.0.1:{port}', ready_path: '/health' });
      expect(s.mustPass.some((c) => c.type === 'api_response')).toBe(true);
    }
  });

  it('needs nothing from npm or the network beyond the loopback interface', () => {
    const commands = allChecks().flatMap((c) => ('command' in c ? [c.command] : []));
    const scripts = spec.plans.flatMap((p) => p.steps.map((s) => s.script));
    for (const text of [...commands, ...scripts]) {
      expect(text).not.toMatch(/\bnpm (install|i|ci)\b|\bnpx\b/);
      // Every URL is the loopback interface (or the server's own, built from HOST).
      expect(text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1\b|localhost\b|\$\{HOST\})/);
    }
  });
});
