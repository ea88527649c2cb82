/** A spec for the worker's tests: SPC-007 under docs/specs, plans run by the script agent. */

export const SPEC = 'SPC-007';
export const SPEC_PATH = 'docs/specs/SPC-007-worker';

const FENCE = '```';

export interface WorkerPlan {
  id: string;
  title?: string;
  /** Frontmatter lines besides plan_id, title, files_modified, agent and must_pass. */
  extra?: string[];
  /** must_pass items, YAML flow mappings. */
  checks: string[];
  /** The body's blocks in order: see step() and checkpoint(). */
  blocks: string[];
}

/** A ```sh step block. */
export function step(title: string, script: string): string {
  return `${FENCE}sh step ${title}\n${script}\n${FENCE}`;
}

/** A ```checkpoint block. */
export function checkpoint(kind: 'decision' | 'verification' | 'action', title: string, lines: string[]): string {
  return `${FENCE}checkpoint ${kind} ${title}\n${lines.join('\n')}\n${FENCE}`;
}

export function planFile(p: WorkerPlan): string {
  return [
    '---',
    `plan_id: "${p.id}"`,
    `title: ${p.title ?? `Plan ${p.id}`}`,
    'files_modified: ["out/**"]',
    'agent: script',
    ...(p.extra ?? []),
    'must_pass:',
    ...p.checks.map((c) => `  - ${c}`),
    '---',
    `# ${p.title ?? `Plan ${p.id}`}`,
    '',
    ...p.blocks.flatMap((b) => [b, '']),
  ].join('\n');
}

export function planPath(id: string): string {
  return `${SPEC_PATH}/planning/plans/${id.slice(0, 2)}-core/${id}-PLAN.md`;
}

/** The repository's files: the spec with its plans, and anything else. */
export function specRepo(plans: WorkerPlan[], other: Record<string, string> = {}): Record<string, string> {
  const files: Record<string, string> = { [`${SPEC_PATH}/SPEC.md`]: `---\nid: ${SPEC}\ntitle: Worker test\n---\n# Worker test\n` };
  for (const p of plans) files[planPath(p.id)] = planFile(p);
  return { ...files, ...other };
}
