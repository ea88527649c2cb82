import type { SpecFile } from '../../app/engine/core/spec/text.js';

const encoder = new TextEncoder();

/** An in-memory spec: path (relative to the spec directory) → text or raw bytes. */
export function specFiles(files: Record<string, string | Uint8Array>): SpecFile[] {
  return Object.entries(files).map(([path, content]) => ({
    path,
    bytes: typeof content === 'string' ? encoder.encode(content) : content,
  }));
}

export const SPEC_MD = `---
id: SPC-042
title: Password reset
---
# Password reset
`;

export interface PlanOptions {
  id: string;
  title?: string;
  dependsOn?: string[];
  filesModified?: string[];
  extra?: string;
  mustPass?: string;
}

/** A valid PLAN.md with the given id; `extra` lines go at the end of the frontmatter. */
export function planMd(o: PlanOptions): string {
  const lines = [
    '---',
    `plan_id: "${o.id}"`,
    `title: ${o.title ?? `Plan ${o.id}`}`,
    `depends_on: [${(o.dependsOn ?? []).map((d) => `"${d}"`).join(', ')}]`,
    `files_modified: [${(o.filesModified ?? [`src/p${o.id}.ts`]).map((f) => `"${f}"`).join(', ')}]`,
    o.mustPass ?? 'must_pass:\n  - { id: tests, type: tests_pass, command: "npm test" }',
  ];
  if (o.extra) lines.push(o.extra);
  lines.push('---', `# ${o.title ?? `Plan ${o.id}`}`, '');
  return lines.join('\n');
}

export function planPath(id: string, phaseDir?: string): string {
  const phase = id.split('-')[0]!;
  return `planning/plans/${phaseDir ?? `${phase}-phase`}/${id}-PLAN.md`;
}

/** A spec of the given plans (each in its phase's directory), plus any other files. */
export function specOf(plans: PlanOptions[], other: Record<string, string | Uint8Array> = {}): SpecFile[] {
  const files: Record<string, string | Uint8Array> = { 'SPEC.md': SPEC_MD };
  for (const p of plans) files[planPath(p.id)] = planMd(p);
  return specFiles({ ...files, ...other });
}
