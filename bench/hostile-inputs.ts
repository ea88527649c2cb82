/**
 * Hostile specs, each the smallest form of an attack on the validator that once hung or
 * crashed it (issue 10, "Nothing an author writes can hang or crash harness"): written
 * into a directory so that the benchmark can run `harness validate` on each as a fork
 * PR's author would have it run.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface HostileInput {
  name: string;
  /** What it attacks, for the report. */
  attack: string;
  /** Spec-relative path → text. */
  files: Map<string, string>;
  /** Spec-relative path → where the link points (relative to the link's directory or absolute). */
  links?: Map<string, string>;
}

const SPEC = '---\nid: SPC-666\ntitle: Hostile spec\n---\n\n# Hostile\n';

function plan(id: string, extra = '', title = `"Plan ${id}"`): string {
  return `---\nplan_id: "${id}"\ntitle: ${title}\ndepends_on: []\nfiles_modified: [src/p${id}.ts]\n${extra}must_pass:\n  - { id: exists, type: file_exists, path: src/p${id}.ts }\n---\n\n# ${id}\n\nDo it.\n`;
}

function spec(plans: Record<string, string>, more: Record<string, string> = {}): Map<string, string> {
  const files = new Map<string, string>([['SPEC.md', SPEC]]);
  for (const [id, text] of Object.entries(plans)) files.set(`planning/plans/${id.slice(0, 2)}-work/${id}-PLAN.md`, text);
  for (const [path, text] of Object.entries(more)) files.set(path, text);
  return files;
}

export function hostileInputs(): HostileInput[] {
  const inputs: HostileInput[] = [];
  const depth = 10_000;
  inputs.push({
    name: 'deep-flow-sequence',
    attack: `a ${depth.toLocaleString('en-US')}-deep flow sequence in depends_on (under the frontmatter size cap)`,
    files: spec({ '01-01': plan('01-01').replace('depends_on: []', `depends_on: ${'['.repeat(depth)}${']'.repeat(depth)}`) }),
  });
  inputs.push({
    name: 'deep-block-sequence',
    attack: `a ${depth.toLocaleString('en-US')}-deep "- - - …" block sequence`,
    files: spec({ '01-01': plan('01-01').replace('depends_on: []', `depends_on:\n  ${'- '.repeat(depth)}x`) }),
  });
  inputs.push({
    name: 'roadmap-heading-spaces',
    attack: 'a 1 MiB ROADMAP heading that is mostly one run of spaces',
    files: spec({ '01-01': plan('01-01') }, { 'ROADMAP.md': `# Roadmap\n\n### Phase 1: x${' '.repeat(1_040_000)}y\n` }),
  });
  const plans: Record<string, string> = {};
  for (let k = 1; k <= 300; k++) {
    const id = `01-${String(k).padStart(3, '0')}`;
    const unknown = Array.from({ length: 2_500 }, (_, u) => `"02-${String(u + 1).padStart(3, '0')}"`).join(', ');
    plans[id] = plan(id).replace('depends_on: []', `depends_on: [${unknown}]`);
  }
  inputs.push({ name: 'did-you-mean', attack: '300 plans × 2,500 unknown dependencies each', files: spec(plans) });
  const digits = '1'.repeat(30_000);
  inputs.push({
    name: 'huge-id',
    attack: 'a 30,000-digit plan id and dependency',
    files: spec({
      '01-01': plan('01-01').replace('plan_id: "01-01"', `plan_id: "01-${digits}"`),
      '01-02': plan('01-02').replace('depends_on: []', `depends_on: ["01-${digits}2"]`),
    }),
  });
  inputs.push({ name: 'nul-title', attack: 'a NUL and an escape in a quoted title', files: spec({ '01-01': plan('01-01', '', '"Login\\0 endpoint\\e[2J"') }) });
  inputs.push({
    name: 'forged-trailer',
    attack: 'a multi-line title carrying a "Plan:" trailer',
    files: spec({ '01-01': plan('01-01', '', '"Login\\n\\nPlan: 09-99"') }),
  });
  for (const lang of ['js', 'coffee', 'toml']) {
    inputs.push({
      name: `fence-${lang}`,
      attack: `a "---${lang}" frontmatter fence`,
      files: spec({ '01-01': plan('01-01').replace(/^---\n/, `---${lang}\n`) }),
    });
  }
  inputs.push({
    name: 'symlinks',
    attack: 'a plan file, a phase folder and planning/plans symlinked outside the spec',
    files: spec({ '01-01': plan('01-01') }),
    links: new Map([
      ['planning/plans/01-work/01-02-PLAN.md', '/etc/hostname'],
      ['planning/plans/02-elsewhere', '/etc'],
    ]),
  });
  inputs.push({
    name: 'dangerous-globs',
    attack: 'globs ./.git/hooks/*, .GIT/config, {..,x}/**, @(..)/x',
    files: spec({
      '01-01': plan('01-01').replace('files_modified: [src/p01-01.ts]', 'files_modified: ["./.git/hooks/*", ".GIT/config", "{..,x}/**", "@(..)/x"]'),
    }),
  });
  inputs.push({
    name: 'ansi-id',
    attack: 'ANSI and OSC escapes in an id and a dependency',
    files: spec({ '01-01': plan('01-01').replace('depends_on: []', 'depends_on: ["\\e]0;pwned\\a\\e[31m01-09"]') }),
  });
  return inputs;
}

/** Write one input under `root`; returns the spec directory. */
export async function writeHostile(root: string, input: HostileInput): Promise<string> {
  const dir = join(root, input.name);
  for (const [path, text] of input.files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  for (const [path, target] of input.links ?? []) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await symlink(target, join(dir, path));
  }
  return dir;
}
