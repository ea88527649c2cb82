import { createHash } from 'node:crypto';
import { renderTemplate } from '../../core/documents/render-template.js';
import type { Check, Plan } from '../../core/spec/model.js';
import type { LevelResult } from '../../core/verify/levels.js';
import { geneEvent, type GeneEvent } from './gene-events.js';
import type { SurfacedEntry } from '../documents/loop.js';
import { GENE_ID } from '../documents/schema.js';
import type { DocumentIndexEntry } from '../documents/store-index.js';

/**
 * A capsule (docs/design.md, Genes): when a plan is verified with genes in its brief, the path
 * it took is recorded beside them: the genes applied, the execution path (the plan's steps and
 * its checks with their outcomes and commands), the outcome, a confidence and the blast radius
 * (the files the plan changed). Capsules are the evidence tier 2 and tier 3 read: the impact
 * scope of a gene is the largest blast radius of a plan that applied it, and a tier 3 gene's
 * validation commands count as passed in a worker when a capsule shows them passing.
 *
 * Confidence is the share of the plan's checks that passed, less a fifth when it took more than
 * one attempt (it was verified, but not at once: the genes did not carry it alone).
 */

export interface CapsuleInput {
  spec: string;
  plan: Plan;
  attempt: number;
  /** The knowledge in the attempt's brief; only genes make a capsule. */
  entries: readonly SurfacedEntry[];
  /** The plan-level verification's results. */
  results: readonly LevelResult[];
  /** Files the plan changed (declared and undeclared). */
  changedFiles: readonly string[];
  project: string;
  /** Where the attempt ran: with spec, plan and attempt, the capsule's identity. */
  origin: string;
  at: Date;
  /** templates/capsule.md. */
  template: string;
}

export interface CapsuleFile {
  path: string;
  id: string;
  text: string;
  genes: string[];
  event: GeneEvent;
  /** Its row in the store's index.md. */
  index: DocumentIndexEntry;
}

function geneIdOf(path: string): string | undefined {
  const id = /(?:^|\/)(gene-\d{8}-[0-9a-f]{8})\.gene\.md$/.exec(path)?.[1];
  return id !== undefined && GENE_ID.test(id) ? id : undefined;
}

function commandOf(check: Check): string | undefined {
  return 'command' in check && typeof check.command === 'string' ? check.command : undefined;
}

/** The capsule of a verified attempt, or undefined when no gene was in its brief. */
export function capsuleFor(input: CapsuleInput): CapsuleFile | undefined {
  const genes = genesIn(input.entries);
  if (genes.length === 0) return undefined;
  const identity = `${input.origin}/${input.spec}/${input.plan.id}/${input.attempt}`;
  const id = `cap-${input.at.toISOString().slice(0, 10).replace(/-/g, '')}-${createHash('sha256').update(identity).digest('hex').slice(0, 8)}`;
  const path = `capsules/${id}.capsule.md`;
  const text = capsuleText(input, id, genes);
  const event = geneEvent({
    at: input.at,
    basis: identity,
    type: 'capsule',
    entry: path,
    kind: 'capsule',
    project: input.project,
    reason: `plan ${input.plan.id} of ${input.spec} verified with ${genes.join(', ')}`,
    genes,
  });
  return { path, id, text, genes, event, index: { kind: 'capsule', path, updated: input.at.toISOString(), title: input.plan.title, tags: [] } };
}

/** The ids of the genes in the brief, each once. */
function genesIn(entries: readonly SurfacedEntry[]): string[] {
  return [
    ...new Set(
      entries
        .filter((e) => e.kind === 'gene')
        .map((e) => geneIdOf(e.path))
        .filter((g): g is string => g !== undefined),
    ),
  ];
}

/** The execution path: the plan's steps, then its checks with their outcomes and commands (one step for a plan with neither). */
function executionPath(plan: Plan, byCheck: ReadonlyMap<string, LevelResult>) {
  const steps = [
    ...plan.steps.map((s) => ({ action: s.title, outcome: 'success' as const })),
    ...plan.mustPass.map((c) => {
      const status = byCheck.get(c.id)?.status;
      const command = commandOf(c);
      return {
        action: `Check ${c.id} (${c.type})`,
        ...(command === undefined ? {} : { command }),
        outcome: status === 'pass' ? ('success' as const) : status === 'fail' ? ('failure' as const) : ('skipped' as const),
      };
    }),
  ];
  if (steps.length === 0) steps.push({ action: `Carry out plan ${plan.id}`, outcome: 'success' });
  return steps;
}

/** The capsule's file, from templates/capsule.md: the path, the confidence, the blast radius, the genes applied. */
function capsuleText(input: CapsuleInput, id: string, genes: readonly string[]): string {
  const byCheck = new Map(input.results.filter((r) => r.plan === undefined || r.plan === input.plan.id).map((r) => [r.id, r]));
  const steps = executionPath(input.plan, byCheck);
  const checks = input.plan.mustPass.length;
  const passed = input.plan.mustPass.filter((c) => byCheck.get(c.id)?.status === 'pass').length;
  const testPassRate = checks === 0 ? 1 : passed / checks;
  const confidence = Math.round(testPassRate * (input.attempt > 1 ? 0.8 : 1) * 1000) / 1000;
  const files = [...new Set(input.changedFiles)].sort();
  const applied = input.entries.filter((e) => e.kind === 'gene' && geneIdOf(e.path) !== undefined);
  return renderTemplate(
    input.template,
    {
      id,
      name: `${input.plan.title}`.slice(0, 200),
      description: `Plan ${input.plan.id} of ${input.spec}, verified on attempt ${input.attempt} with ${genes.length === 1 ? 'a gene' : `${genes.length} genes`} in its brief.`,
      genes,
      steps,
      validation: { confidence, impact_scope: files.length, consecutive_successes: 1, test_pass_rate: Math.round(testPassRate * 1000) / 1000 },
      scope: 'project',
      project: input.project,
      publishable: false,
      audit_log: [{ timestamp: input.at.toISOString(), event: 'created' }],
      tags: [],
    },
    {
      context: [
        `Spec ${input.spec}, plan ${input.plan.id} (${input.plan.title}), attempt ${input.attempt}: verified.`,
        '',
        'Genes in its brief:',
        '',
        ...applied.map((e) => `- \`${e.path}\` (${e.title}): ${e.why}`),
      ].join('\n'),
      notes:
        files.length > 0
          ? `Blast radius: ${files.length} file${files.length === 1 ? '' : 's'}:\n\n${files.map((f) => `- \`${f}\``).join('\n')}`
          : 'The plan changed no file.',
    },
  );
}
