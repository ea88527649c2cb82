/**
 * Generate a large, realistic, valid spec directory: N plans in P phases with exactly E
 * dependency edges, as real PLAN.md text with the frontmatter people write (depends_on,
 * files_modified mixing literal paths and globs with genuine overlaps, files_read,
 * must_pass of several kinds) and a Markdown body with a step. Deterministic for a seed,
 * so every run and every benchmark (validation, the scheduler) sees the same spec.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { mulberry32 } from './lib.js';

export interface SpecShape {
  plans: number;
  phases: number;
  edges: number;
  seed?: number;
}

export interface GeneratedSpec {
  /** Spec-relative path → file text. */
  files: Map<string, string>;
  /** Plan ids in order, and each plan's dependencies (ids). */
  ids: string[];
  dependsOn: string[][];
  edges: number;
}

const AREAS = ['auth', 'billing', 'search', 'notifications', 'profile', 'admin', 'reports', 'checkout', 'inventory', 'audit', 'sync', 'export'];
const VERBS = ['add', 'wire', 'validate', 'migrate', 'render', 'cache', 'index', 'retry', 'paginate', 'secure'];
const NOUNS = ['endpoint', 'schema', 'handler', 'view', 'job', 'client', 'store', 'policy', 'hook', 'report'];

/** Phase id as the loader expects it: at least two digits. */
export function phaseId(p: number): string {
  return String(p).padStart(2, '0');
}

export function generateSpec(shape: SpecShape): GeneratedSpec {
  const { plans: n, phases: p, edges: e } = shape;
  if (n < 1 || p < 1 || p > 999 || p > n) throw new Error(`cannot lay out ${n} plans in ${p} phases`);
  if (e > (n * (n - 1)) / 2) throw new Error(`${e} edges do not fit an acyclic graph of ${n} plans`);
  const rand = mulberry32(shape.seed ?? 0x5eed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const chance = (q: number) => rand() < q;

  // Plans, phase by phase, as evenly as they divide.
  const ids: string[] = [];
  const phaseOf: number[] = [];
  const phaseStart: number[] = [];
  for (let ph = 1; ph <= p; ph++) {
    const size = Math.floor(n / p) + (ph <= n % p ? 1 : 0);
    phaseStart.push(ids.length);
    for (let k = 1; k <= size; k++) {
      ids.push(`${phaseId(ph)}-${String(k).padStart(2, '0')}`);
      phaseOf.push(ph);
    }
  }
  const perPhase = Math.ceil(n / p);

  // Exactly e edges, each to an earlier plan (so the graph is acyclic): mostly to a near
  // neighbour in the same phase, sometimes one or two phases back, now and then anywhere.
  const deps: Set<number>[] = ids.map(() => new Set<number>());
  for (let made = 0; made < e;) {
    const i = 1 + Math.floor(rand() * (n - 1));
    const r = rand();
    const window = r < 0.7 ? Math.min(i, 8) : r < 0.95 ? Math.min(i, 2 * perPhase) : i;
    const j = i - 1 - Math.floor(rand() * window);
    if (deps[i]!.has(j)) continue;
    deps[i]!.add(j);
    made++;
  }
  const dependsOn = deps.map((set) => [...set].sort((a, b) => a - b).map((j) => ids[j]!));

  const files = new Map<string, string>();
  files.set(
    'SPEC.md',
    `---\nid: SPC-900\ntitle: Generated spec of ${n} plans\n---\n\n# Generated spec\n\n${n} plans in ${p} phases with ${e} dependencies, for benchmarks.\n`,
  );
  // Kept compact: the roadmap's frontmatter must stay under its 32 KiB limit even at 400 phases.
  const roadmap = ['---', 'phases:'];
  for (let ph = 1; ph <= p; ph++) {
    const title = `${AREAS[(ph - 1) % AREAS.length]!} ${ph}`;
    roadmap.push(
      ph % 10 === 1
        ? `  - { id: "${phaseId(ph)}", title: ${title}, must_pass: [{ id: build, type: build_succeeds, command: "npm run build" }] }`
        : `  - { id: "${phaseId(ph)}", title: ${title} }`,
    );
  }
  roadmap.push('---', '', '# Roadmap', '');
  files.set('ROADMAP.md', roadmap.join('\n'));

  // Each area is worked on by runs of about ten consecutive plans, so plans that write
  // the same files are often, but not always, ordered by their dependencies.
  const areaCount = Math.max(1, Math.round(n / 25));
  for (let i = 0; i < n; i++) {
    const ph = phaseOf[i]!;
    const id = ids[i]!;
    const areaIndex = (Math.floor(i / 10) + (chance(0.2) ? 1 : 0)) % areaCount;
    const area = `${AREAS[areaIndex % AREAS.length]!}${Math.floor(areaIndex / AREAS.length) || ''}`;
    const verb = pick(VERBS);
    const noun = pick(NOUNS);
    const slug = `${verb}-${noun}-${i}`;
    const src = `src/${area}/${slug}.ts`;
    const test = `test/${area}/${slug}.test.ts`;

    const writes = [src];
    if (chance(0.7)) writes.push(test);
    if (chance(0.15)) writes.push(`src/${area}/index.ts`); // shared literal: a genuine overlap
    if (chance(0.1)) writes.push(`src/${area}/types/**`); // overlaps the literal below
    if (chance(0.1)) writes.push(`src/${area}/types/${noun}.d.ts`);
    if (chance(0.05)) writes.push(`src/${area}/*.css`);
    if (chance(0.05)) writes.push(`docs/${area}/{guide,api}.md`); // overlaps docs/<area>/api.md
    if (chance(0.03)) writes.push(`docs/${area}/api.md`);
    if (chance(0.005)) writes.push(`src/${area}/**`); // a wide glob over the whole area
    const reads = [`src/shared/${pick(NOUNS)}.ts`, ...(chance(0.5) ? [`src/${area}/index.ts`] : [])];

    const checks = [`  - { id: tests, type: tests_pass, command: "npm test -- ${test}" }`, `  - { id: exists, type: file_exists, path: ${src} }`];
    if (chance(0.4)) checks.push(`  - { id: exports, type: file_contains, path: ${src}, pattern: "export (function|const|class) \\\\w+" }`);
    if (chance(0.2)) {
      checks.push(`  - id: typecheck\n    type: command_output\n    command: "npx tsc --noEmit -p ."\n    expect:\n      exit_code: 0`);
    }
    const autonomous = !chance(0.05);
    const deps = dependsOn[i]!;
    const depsYaml =
      deps.length === 0
        ? 'depends_on: []'
        : chance(0.5)
          ? `depends_on: [${deps.map((d) => `"${d}"`).join(', ')}]`
          : `depends_on:\n${deps.map((d) => `  - "${d}"`).join('\n')}`;
    const title = `${verb[0]!.toUpperCase()}${verb.slice(1)} ${area} ${noun}`;
    const text = [
      '---',
      `plan_id: "${id}"`,
      `title: ${title}`,
      depsYaml,
      `files_modified: [${writes.map((w) => `"${w}"`).join(', ')}]`,
      `files_read: [${reads.map((r) => `"${r}"`).join(', ')}]`,
      `autonomous: ${autonomous}`,
      `checkpoints: [${autonomous ? '' : 'decision'}]`,
      ...(chance(0.3) ? ['agent: claude'] : []),
      `timeout_minutes: ${pick([20, 30, 45, 60])}`,
      `requirements: ["REQ-${area.toUpperCase()}-${(i % 7) + 1}"]`,
      'must_pass:',
      ...checks,
      '---',
      '',
      `# ${title}`,
      '',
      '## Objective',
      '',
      `${title} so that the ${area} flow handles the ${noun} case end to end, with tests that fail without the change.`,
      '',
      '## Context',
      '',
      `Builds on ${deps.length > 0 ? deps.slice(0, 3).join(', ') : 'the phase foundation'}. Keep the public API of \`src/${area}/index.ts\` stable; follow the error-handling pattern of the neighbouring modules.`,
      '',
      '```sh step Scaffold the module',
      `mkdir -p src/${area} test/${area}`,
      `touch ${src} ${test}`,
      '```',
      '',
      '## Acceptance',
      '',
      `- \`${src}\` exports the ${noun} and is covered by \`${test}\``,
      '- No new lint warnings; types check',
      '',
    ].join('\n');
    files.set(`planning/plans/${phaseId(ph)}-${AREAS[(ph - 1) % AREAS.length]!}/${id}-PLAN.md`, text);
  }
  return { files, ids, dependsOn, edges: e };
}

/** Write a generated spec under `dir`; returns the number of files and bytes written. */
export async function writeSpec(dir: string, spec: GeneratedSpec): Promise<{ files: number; bytes: number }> {
  const made = new Set<string>();
  let bytes = 0;
  for (const [path, text] of spec.files) {
    const full = join(dir, path);
    const parent = dirname(full);
    if (!made.has(parent)) {
      await mkdir(parent, { recursive: true });
      made.add(parent);
    }
    await writeFile(full, text);
    bytes += Buffer.byteLength(text);
  }
  return { files: spec.files.size, bytes };
}
