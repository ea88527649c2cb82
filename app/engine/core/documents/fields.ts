import { z } from 'zod';
import { CHECK_ID, PLAN_ID, SPEC_ID } from '../spec/schema.js';

/**
 * Field shapes shared by the generated and knowledge documents. Each is strict about
 * form (ids quoted, times with a zone) because these files are written by programs and
 * read by other programs; a person editing one gets a message naming the line.
 */

/** An instant with its zone: 2026-03-02T09:41:00Z or 2026-03-02T11:41:00+02:00. */
export const timestamp = z.iso.datetime({ offset: true });

/** A calendar day or an instant: lessons are dated, signals are timed. */
export const dateOrTimestamp = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);

export const specId = z.string().regex(SPEC_ID);
export const planId = z.string().regex(PLAN_ID);
/** A phase id as the spec model keeps it: two or more digits, quoted ("03"). */
export const phaseId = z.string().regex(/^\d{2,}$/);
export const checkId = z.string().regex(CHECK_ID);
export const commitSha = z.string().regex(/^[0-9a-f]{7,40}$/);

/** One path segment: knowledge files live under <project>/, <category>/, <spike>/. */
export const segment = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/);

/** A lowercase slug of a-z, 0-9 and single '-' separators (the Agent Skills name rule). */
export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const slug = z.string().max(64).regex(SLUG);

export const LEVELS = ['low', 'medium', 'high'] as const;
export const level = z.enum(LEVELS);
export type Level = (typeof LEVELS)[number];

export const tags = z.array(z.string().regex(/^\S+$/)).default([]);

/** Anything of the writer's own; harness keeps it and reads none of it. */
export const metadata = z.record(z.string(), z.unknown()).optional();

/** A fraction from 0 to 1 (success rates, confidence). */
export const fraction = z.number().min(0).max(1);
export const count = z.number().int().min(0);

/** Hints shared by every document, keyed like `schemaProblems` looks them up. */
export const COMMON_HINTS: Record<string, string> = {
  spec: 'a spec id such as SPC-001',
  plan: 'a plan id PP-NN such as "03-02", quoted',
  plan_id: 'a plan id PP-NN such as "03-02", quoted',
  phase: 'a phase id such as "03", quoted',
  project: 'a project name of letters, digits, ".", "_" or "-" (it names a folder)',
  tags: 'a list of single words such as [sqlite, locking]',
  metadata: 'a mapping of keys of your own',
  'metadata.*': 'any value',
  commit: 'a commit sha (7 to 40 hex digits)',
  description: 'a line of text',
  title: 'a short line of text',
};

/** The hint for a timestamp key. */
export const TIMESTAMP_HINT = 'an ISO-8601 time with its zone, such as 2026-03-02T09:41:00Z';
export const DATE_HINT = 'an ISO-8601 date or time, such as 2026-03-02 or 2026-03-02T09:41:00Z';
