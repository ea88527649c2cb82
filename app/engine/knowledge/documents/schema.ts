import { z } from 'zod';
import { parseCondition } from './conditions.js';
import {
  count,
  dateOrTimestamp,
  fraction,
  level,
  metadata,
  phaseId,
  planId,
  segment,
  SLUG,
  slug,
  specId,
  tags,
  timestamp,
} from '../../core/documents/fields.js';

/**
 * The knowledge store's documents (docs/design.md, Knowledge): signals captured while work runs,
 * spikes that settle a question, lessons distilled from signals, skills in the Agent
 * Skills format, and genes and capsules. Each is Markdown with YAML frontmatter and is
 * committed only through a reviewed pull request.
 */

export const SIGNAL_TYPES = [
  'deviation',
  'frustration',
  'struggle',
  'config',
  'pattern',
  'repair',
  'innovation',
  'completion',
  'use',
  'interrupted',
  'timeout',
  'stuck',
  'review',
] as const;
export type SignalType = (typeof SIGNAL_TYPES)[number];

/** signals/<project>/<YYYY-MM-DD>/<timestamp>-<type>.signal.md */
export const SignalSchema = z
  .object({
    type: z.enum(SIGNAL_TYPES),
    severity: level,
    project: segment,
    spec: specId.optional(),
    phase: phaseId.optional(),
    plan: planId.optional(),
    timestamp: timestamp,
    agent: z
      .string()
      .regex(/^[a-z][a-z0-9-]*$/)
      .optional(),
    tags,
    metadata,
  })
  .strict()
  .meta({ title: 'harness signal frontmatter' });
export type Signal = z.output<typeof SignalSchema>;

export const SPIKE_STATUSES = ['open', 'running', 'concluded', 'abandoned'] as const;
export const SPIKE_METHODS = ['prototype', 'benchmark', 'comparison', 'investigation'] as const;
export const SPIKE_OUTCOMES = ['confirmed', 'refuted', 'inconclusive'] as const;

const spikeBase = {
  spike: slug.meta({ description: 'The spike folder name.' }),
  project: segment,
  spec: specId.optional(),
  tags,
  metadata,
};

/** spikes/<project>/<spike>/HYPOTHESIS.md: the question and what would answer it. */
export const HypothesisSchema = z
  .object({
    ...spikeBase,
    question: z.string().min(1).max(300),
    status: z.enum(SPIKE_STATUSES).default('open'),
    created: timestamp,
  })
  .strict()
  .meta({ title: 'harness spike HYPOTHESIS.md frontmatter' });
export type Hypothesis = z.output<typeof HypothesisSchema>;

export const CriterionSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/),
    measure: z.string().min(1),
    target: z.string().min(1),
  })
  .strict();

/** spikes/<project>/<spike>/EXPERIMENT.md: how the hypothesis is tested, and within what time. */
export const ExperimentSchema = z
  .object({
    ...spikeBase,
    method: z.enum(SPIKE_METHODS),
    time_box_minutes: z.number().int().min(1).max(1440),
    criteria: z.array(CriterionSchema).min(1),
    started: timestamp,
    finished: timestamp.optional(),
  })
  .strict()
  .meta({ title: 'harness spike EXPERIMENT.md frontmatter' });
export type Experiment = z.output<typeof ExperimentSchema>;

/** spikes/<project>/<spike>/DECISION.md: what was decided, how surely, and on what evidence. */
export const DecisionSchema = z
  .object({
    ...spikeBase,
    decision: z.string().min(1).max(300),
    outcome: z.enum(SPIKE_OUTCOMES),
    confidence: level,
    decided: timestamp,
    supersedes: z.string().min(1).optional().meta({ description: 'The spike whose decision this one replaces.' }),
  })
  .strict()
  .meta({ title: 'harness spike DECISION.md frontmatter' });
export type Decision = z.output<typeof DecisionSchema>;

export const LESSON_CATEGORIES = ['library', 'architecture', 'workflow', 'tooling', 'testing', 'verification'] as const;

/** lessons/<category>/<name>.lesson.md */
export const LessonSchema = z
  .object({
    category: z.enum(LESSON_CATEGORIES),
    confidence: level,
    evidence_count: z.number().int().min(1),
    last_updated: dateOrTimestamp,
    tags,
    projects: z.array(segment).default([]),
    files: z.array(z.string().min(1)).optional().meta({
      description:
        'The project files (paths or globs) the evidence came from: surfacing puts the lesson into the brief of a plan that writes or reads one of them.',
    }),
    signatures: z.array(z.string().min(1).max(200)).optional().meta({
      description:
        'The failure signatures (normalised error lines) the lesson is about: reflection links new signals of the same signature to it, and a retried plan that met one gets it first.',
    }),
    applies_when: z
      .array(
        z
          .string()
          .min(1)
          .max(600)
          .refine((c) => parseCondition(c) !== undefined, {
            message:
              'not a condition: write runs "<command>", imports "<module>" or says "<word>", several joined by "and", optionally followed by the counts harness writes ("(2 of 3 plans that met it; 0 of 9 others)")',
          }),
      )
      .max(20)
      .optional()
      .meta({
        description:
          "When the lesson applies before a plan's first attempt: what the plans that met it had in common (the commands their checks run, the modules their files import, the words they say), with how many plans that met it and how many others had it.",
      }),
    metadata,
  })
  .strict()
  .meta({ title: 'harness lesson frontmatter' });
export type Lesson = z.output<typeof LessonSchema>;

/**
 * skills/<name>/SKILL.md, a valid Agent Skill (agentskills.io): `name` and `description`,
 * then only the format's optional keys. harness's own facts go under `metadata`, whose
 * values the format requires to be strings.
 */
export const SkillSchema = z
  .object({
    name: z.string().min(1).max(64).regex(SLUG),
    description: z.string().min(1).max(1024).regex(/\S/),
    license: z.string().min(1).optional(),
    compatibility: z.string().min(1).max(500).optional(),
    'allowed-tools': z.string().min(1).optional().meta({ description: 'Space-separated tools the skill may use (experimental in the format).' }),
    metadata: z.record(z.string(), z.string()).optional(),
  })
  .strict()
  .meta({ title: 'Agent Skill SKILL.md frontmatter' });
export type Skill = z.output<typeof SkillSchema>;

export const GENE_TYPES = ['pattern', 'prompt', 'config', 'workflow'] as const;
export const GENE_STATUSES = ['candidate', 'active', 'deprecated'] as const;
export const GENE_ID = /^gene-\d{8}-[0-9a-f]{8}$/;
export const CAPSULE_ID = /^cap-\d{8}-[0-9a-f]{8}$/;

export const MutationSchema = z
  .object({
    id: z.string().regex(/^mut-[A-Za-z0-9-]+$/),
    from: z.string().min(1),
    to: z.string().min(1),
    reason: z.string().min(1),
    timestamp: timestamp,
  })
  .strict();

/** genes/<id>.gene.md: one reusable pattern, prompt, config or workflow, with its record. */
export const GeneSchema = z
  .object({
    id: z.string().regex(GENE_ID),
    type: z.enum(GENE_TYPES),
    name: z.string().min(1).max(200),
    description: z.string().min(1).max(1024),
    version: z.number().int().min(1),
    status: z.enum(GENE_STATUSES).default('candidate'),
    success_rate: fraction,
    usage_count: count,
    consecutive_successes: count.default(0),
    consecutive_failures: count.default(0),
    created: timestamp,
    updated: timestamp,
    last_used: timestamp.optional(),
    scenarios: z.array(z.string().min(1)).default([]),
    signals: z
      .array(z.string().min(1))
      .default([])
      .meta({ description: "The error signatures it answers (a repair signal's metadata.repaired): how solidify knows a repair is this gene again." }),
    validation: z
      .array(z.string().min(1))
      .default([])
      .meta({ description: 'Commands that show it worked; a tier 3 gene needs them passing in a worker before it is promoted.' }),
    tags,
    env: z.record(z.string(), z.string()).optional().meta({ description: 'Where it was seen to work: { node: "20.x" }.' }),
    publishable: z.boolean().default(false),
    source: z.string().min(1).optional(),
    mutations: z.array(MutationSchema).default([]),
    metadata,
  })
  .strict()
  .meta({ title: 'harness gene frontmatter' });
export type Gene = z.output<typeof GeneSchema>;

export const STEP_OUTCOMES = ['success', 'failure', 'skipped'] as const;
export const CAPSULE_EVENTS = ['created', 'validated', 'promoted', 'used', 'deprecated', 'pruned'] as const;

/** capsules/<id>.capsule.md: a proven path through a task, made of genes. */
export const CapsuleSchema = z
  .object({
    id: z.string().regex(CAPSULE_ID),
    name: z.string().min(1).max(200),
    description: z.string().min(1).max(1024),
    genes: z.array(z.string().regex(GENE_ID)).min(1),
    steps: z
      .array(
        z
          .object({
            action: z.string().min(1),
            command: z.string().min(1).optional(),
            outcome: z.enum(STEP_OUTCOMES),
            duration_seconds: z.number().min(0).optional(),
          })
          .strict(),
      )
      .min(1),
    validation: z
      .object({
        confidence: fraction,
        impact_scope: count,
        consecutive_successes: count,
        test_pass_rate: fraction,
      })
      .strict(),
    scope: z.enum(['project', 'workspace']),
    project: segment.optional(),
    publishable: z.boolean().default(false),
    audit_log: z.array(z.object({ timestamp: timestamp, event: z.enum(CAPSULE_EVENTS), by: z.string().min(1).optional() }).strict()).default([]),
    tags,
    metadata,
  })
  .strict()
  .meta({ title: 'harness capsule frontmatter' });
export type Capsule = z.output<typeof CapsuleSchema>;
