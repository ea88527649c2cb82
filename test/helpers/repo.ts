import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoStateDir } from '../../app/runner/repo.js';
import { writeTree } from './cli.js';
import { firstCommit } from './git-batch.js';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A fresh repository on `main` with `files` committed. */
export async function makeRepo(files: Record<string, string>): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'harness-run-'));
  await writeTree(root, { 'README.md': '# test\n', ...files });
  firstCommit(root, { name: 'Test Person', email: 'test@example.com' }, 'initial');
  return root;
}

export interface StepPlan {
  id: string;
  title?: string;
  dependsOn?: string[];
  files?: string[];
  steps: string[];
  /** Extra must_pass lines (YAML list items). */
  checks?: string[];
  extra?: string;
  body?: string;
}

/** A PLAN.md whose steps are ```sh step blocks, checked by file_exists on its first file. */
export function stepPlan(p: StepPlan): string {
  const files = p.files ?? [`out/${p.id}.txt`];
  const checks = p.checks ?? [`  - { id: made, type: file_exists, path: ${files[0]} }`];
  return [
    '---',
    `plan_id: "${p.id}"`,
    `title: ${p.title ?? `Plan ${p.id}`}`,
    `depends_on: [${(p.dependsOn ?? []).map((d) => `"${d}"`).join(', ')}]`,
    `files_modified: [${files.map((f) => `"${f}"`).join(', ')}]`,
    ...(p.extra ? [p.extra] : []),
    'must_pass:',
    ...checks,
    '---',
    `# ${p.id}`,
    '',
    p.body ?? '',
    ...p.steps.map((s, i) => `\`\`\`sh step Step ${i + 1}\n${s}\n\`\`\`\n`),
  ].join('\n');
}

export const SPEC_DIR = 'docs/specs/SPC-007-test';

/** Where harness run keeps a worktree of the repository at `root` (app/runner/repo.ts: beside it, never in its .git). */
export function worktreeOf(root: string, spec: string, name: string): string {
  return join(repoStateDir(join(root, '.git')), 'worktrees', spec, name);
}

/** Files of a spec at SPEC_DIR: SPEC.md, an optional ROADMAP.md, and plans in phase directories. */
export function specTree(plans: StepPlan[], roadmap?: string): Record<string, string> {
  const files: Record<string, string> = { [`${SPEC_DIR}/SPEC.md`]: '---\nid: SPC-007\ntitle: Runner test\n---\n# Runner test\n' };
  if (roadmap) files[`${SPEC_DIR}/ROADMAP.md`] = roadmap;
  for (const p of plans) files[`${SPEC_DIR}/planning/plans/${p.id.slice(0, 2)}-phase/${p.id}-PLAN.md`] = stepPlan(p);
  return files;
}
