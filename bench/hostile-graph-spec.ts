/**
 * A spec of `n` plans whose files_modified globs overlap heavily (issue 10: `graph` and
 * `simulate` on 3,000 such plans took 101 s and 3 GB): every plan writes a glob over one of
 * twelve areas, a file in it and the docs, a tenth write the whole tree, and each depends on
 * a few of the forty plans before it, so most pairs overlap and many may run at once.
 */
import { mulberry32 } from './lib.js';

export function overlappingSpec(n: number, perPhase = 100): Map<string, string> {
  const r = mulberry32(0x91ab);
  const id = (i: number) => `${String(Math.floor(i / perPhase) + 1).padStart(2, '0')}-${String((i % perPhase) + 1).padStart(3, '0')}`;
  const files = new Map<string, string>([['SPEC.md', '---\nid: SPC-777\ntitle: Overlapping writers\n---\n\n# Overlapping writers\n']]);
  for (let i = 0; i < n; i++) {
    const area = `src/a${Math.floor(r() * 12)}`;
    const globs = r() < 0.1 ? ['src/**'] : [`${area}/**`, `${area}/f${Math.floor(r() * 20)}.ts`, 'docs/*.md'];
    const deps = new Set<string>();
    for (let k = 0; k < 3 && i > 0; k++) if (r() < 0.6) deps.add(id(i - 1 - Math.floor(r() * Math.min(i, 40))));
    const text = [
      '---',
      `plan_id: "${id(i)}"`,
      `title: Plan ${id(i)}`,
      `depends_on: [${[...deps].map((d) => `"${d}"`).join(', ')}]`,
      `files_modified: [${globs.map((g) => `"${g}"`).join(', ')}]`,
      'must_pass:',
      `  - { id: made, type: file_exists, path: ${globs.length > 1 ? globs[1] : 'src/x.ts'} }`,
      '---',
      '',
      `# Plan ${id(i)}`,
      '',
    ].join('\n');
    files.set(`planning/plans/${id(i).slice(0, 2)}-phase/${id(i)}-PLAN.md`, text);
  }
  return files;
}
