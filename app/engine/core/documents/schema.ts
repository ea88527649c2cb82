import { z } from 'zod';
import { CHECK_TYPES } from '../spec/schema.js';
import { checkId, commitSha, count, LEVELS, metadata, phaseId, planId, specId, timestamp } from './fields.js';

/**
 * The documents harness generates while it runs a spec: a SUMMARY.md per plan, a
 * VERIFICATION.md per phase (and FINAL-VERIFICATION.md for the spec), and STATUS.md.
 * Programs write them and programs read them back, so every key is fixed here.
 */

export const CHECK_RESULTS = ['pass', 'fail', 'skipped-for-human'] as const;

/** One must_pass check as it was run: what happened and what showed it. */
export const CheckRecordSchema = z
  .object({
    id: checkId,
    type: z.enum(CHECK_TYPES).optional(),
    /** For phase- and spec-level results: whose check this was. */
    plan: planId.optional(),
    result: z.enum(CHECK_RESULTS),
    evidence: z.string().min(1).meta({ description: 'What showed the result: output, a status code, who answered.' }),
    duration_seconds: z.number().min(0).optional(),
  })
  .strict();

export const CommitSchema = z
  .object({
    sha: commitSha,
    message: z.string().min(1).optional(),
  })
  .strict();

export const DeviationSchema = z
  .object({
    description: z.string().min(1).meta({ description: 'What was done differently from the plan.' }),
    reason: z.string().min(1).meta({ description: 'Why.' }),
    impact: z.enum(LEVELS).optional(),
    files: z.array(z.string().min(1)).optional(),
  })
  .strict();

/** A lesson, skill or gene surfaced into the agent's brief for the plan, and why. */
export const SurfacedRecordSchema = z
  .object({
    path: z.string().min(1).meta({ description: "The entry's file, relative to the knowledge store's root." }),
    kind: z.enum(['lesson', 'skill', 'gene']),
    score: z.number().min(0).optional(),
    why: z.string().min(1).optional(),
  })
  .strict();

export const SUMMARY_STATUSES = ['verified', 'failed'] as const;

/** execution/phases/<NN-name>/<PP-NN>-SUMMARY.md: one plan's run. */
export const SummarySchema = z
  .object({
    plan_id: planId,
    spec: specId,
    title: z.string().min(1).max(200).optional(),
    status: z.enum(SUMMARY_STATUSES),
    agent: z
      .string()
      .regex(/^[a-z][a-z0-9-]*$/)
      .optional(),
    started: timestamp,
    finished: timestamp,
    duration_minutes: z.number().min(0).meta({ description: 'Time spent working, which may be less than finished - started.' }),
    attempts: z.number().int().min(1).default(1),
    branch: z.string().min(1).optional(),
    commits: z.array(CommitSchema).default([]),
    deviations: z.array(DeviationSchema).default([]),
    checks: z.array(CheckRecordSchema).default([]),
    /** What harness had learned that applied, as the agent's brief gave it; [] when nothing did. */
    knowledge: z.array(SurfacedRecordSchema).default([]),
    /** What the agent reported it used; a figure it did not report is left out. */
    cost: z
      .object({
        usd: z.number().min(0).optional(),
        turns: z.number().int().min(0).optional(),
        input_tokens: z.number().int().min(0).optional(),
        output_tokens: z.number().int().min(0).optional(),
      })
      .strict()
      .optional(),
    metadata,
  })
  .strict()
  .meta({ title: 'harness SUMMARY.md frontmatter' });

export type Summary = z.output<typeof SummarySchema>;

export const VERIFICATION_LEVELS = ['plan', 'phase', 'spec'] as const;
export const VERIFICATION_STATUSES = ['verified', 'failed', 'needs-human'] as const;

/** VERIFICATION.md (phase), FINAL-VERIFICATION.md (spec), or a plan's own. */
export const VerificationSchema = z
  .object({
    level: z.enum(VERIFICATION_LEVELS),
    spec: specId,
    phase: phaseId.optional(),
    plan: planId.optional(),
    status: z.enum(VERIFICATION_STATUSES),
    verified_at: timestamp,
    commit: commitSha.optional().meta({ description: 'The commit whose tree was checked.' }),
    attempt: z.number().int().min(1).default(1),
    checks: z.array(CheckRecordSchema).default([]),
    metadata,
  })
  .strict()
  .meta({ title: 'harness VERIFICATION.md frontmatter' });

export type Verification = z.output<typeof VerificationSchema>;

export const SPEC_STATUSES = ['planning', 'executing', 'verifying', 'blocked', 'complete', 'failed'] as const;

export const ProgressSchema = z
  .object({
    plans_total: count,
    plans_verified: count,
    phases_total: count,
    phases_verified: count,
    /** Plans and phases done before harness (imported with `completed:`); not in the verified counts. */
    plans_done_before_import: count.optional(),
    phases_done_before_import: count.optional(),
    percent: z.number().int().min(0).max(100),
  })
  .strict();

export const VelocitySchema = z
  .object({
    plans_completed: count,
    total_minutes: z.number().min(0),
    average_minutes_per_plan: z.number().min(0),
  })
  .strict();

/** STATUS.md: where the spec stands, at a glance. */
export const StatusSchema = z
  .object({
    spec: specId,
    title: z.string().min(1).max(200).optional(),
    status: z.enum(SPEC_STATUSES),
    current_phase: phaseId.nullable().default(null).meta({ description: 'The phase being worked on; null before the first and after the last.' }),
    progress: ProgressSchema,
    velocity: VelocitySchema,
    /** What the agents reported they spent, in US dollars: in all, and per plan. */
    cost: z
      .object({ total_usd: z.number().min(0), plans: z.record(z.string(), z.number().min(0)) })
      .strict()
      .optional(),
    updated: timestamp,
    metadata,
  })
  .strict()
  .meta({ title: 'harness STATUS.md frontmatter' });

export type Status = z.output<typeof StatusSchema>;
export type CheckRecord = z.output<typeof CheckRecordSchema>;
