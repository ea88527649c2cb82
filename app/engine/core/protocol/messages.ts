import { z } from 'zod';

/**
 * The worker protocol: how a worker (one plan, one agent) and the orchestrator talk.
 * Workers report state in structured messages; nothing is inferred from free-form output.
 * Every message names its session; times are ISO-8601.
 */

export const CHECKPOINT_TYPES = ['decision', 'verification', 'action'] as const;
export type CheckpointType = (typeof CHECKPOINT_TYPES)[number];

export const CheckpointSchema = z.object({
  /** Stable within the plan, e.g. "step-3" or a check id. */
  id: z.string().min(1),
  kind: z.enum(CHECKPOINT_TYPES),
  prompt: z.string().min(1),
  options: z.array(z.string()).optional(),
  /** Where it came from: a step title or a check id. */
  source: z.string().optional(),
});
export type Checkpoint = z.infer<typeof CheckpointSchema>;

const envelope = { session: z.string().min(1), at: z.string().min(1) };

/**
 * What an agent used, as the agent itself reported it (Claude Code's num_turns and
 * total_cost_usd): a figure no agent reported is left out, never estimated.
 */
export const UsageSchema = z.object({
  turns: z.number().int().min(0).optional(),
  costUsd: z.number().min(0).optional(),
  /** Tokens read (cached reads and writes included) and written, as the agent reported them. */
  inputTokens: z.number().int().min(0).optional(),
  outputTokens: z.number().int().min(0).optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

/**
 * What an agent saw of its own work that the orchestrator cannot see from outside, counted
 * from its stream (Claude Code's stream-json): the knowledge loop learns struggle and
 * configuration drift from them. Like usage, a figure no agent reported is left out.
 */
export const AgentFactsSchema = z.object({
  /** Tool calls made, and how many of them came back as errors. */
  toolCalls: z.number().int().min(0).optional(),
  toolErrors: z.number().int().min(0).optional(),
  /** Calls repeated after they failed: the same tool with the same input again. */
  retries: z.number().int().min(0).optional(),
  /** The model the agent reported it ran. */
  model: z.string().min(1).optional(),
});
export type AgentFacts = z.infer<typeof AgentFactsSchema>;

export const INSIGHT_KINDS = ['innovation', 'pattern'] as const;
export type InsightKind = (typeof INSIGHT_KINDS)[number];

/** Something the agent learned that is worth keeping: a new way it found (innovation), or one it saw recur (pattern). */
export const InsightSchema = z.object({
  kind: z.enum(INSIGHT_KINDS),
  /** One line. */
  summary: z.string().min(1).max(300),
  detail: z.string().max(4000).optional(),
  tags: z.array(z.string().regex(/^\S+$/)).max(8).optional(),
});
export type Insight = z.infer<typeof InsightSchema>;

export const WorkerMessageSchema = z.discriminatedUnion('type', [
  z.object({ ...envelope, type: z.literal('session_ready'), agent: z.string() }),
  z.object({
    ...envelope,
    type: z.literal('task_started'),
    plan: z.string(),
    task: z.number().int().min(1),
    total: z.number().int().min(1),
    title: z.string(),
  }),
  z.object({
    ...envelope,
    type: z.literal('progress_update'),
    plan: z.string(),
    message: z.string(),
    task: z.number().int().optional(),
    total: z.number().int().optional(),
  }),
  /** A tool call the agent's stream reported: `start` as it is made, `end` as its result comes back (error: it failed). For traces. */
  z.object({
    ...envelope,
    type: z.literal('tool_call'),
    plan: z.string(),
    id: z.string().max(200),
    name: z.string().min(1).max(200).optional(),
    phase: z.enum(['start', 'end']),
    error: z.boolean().optional(),
  }),
  z.object({ ...envelope, type: z.literal('verification_needed'), plan: z.string(), checkpoint: CheckpointSchema }),
  z.object({ ...envelope, type: z.literal('decision_needed'), plan: z.string(), checkpoint: CheckpointSchema }),
  z.object({ ...envelope, type: z.literal('action_needed'), plan: z.string(), checkpoint: CheckpointSchema }),
  z.object({
    ...envelope,
    type: z.literal('task_completed'),
    plan: z.string(),
    commits: z.array(z.string()),
    summary: z.string().optional(),
    usage: UsageSchema.optional(),
    facts: AgentFactsSchema.optional(),
  }),
  z.object({
    ...envelope,
    type: z.literal('task_failed'),
    plan: z.string(),
    error: z.string(),
    retryable: z.boolean().default(false),
    /** The plan's timeout_minutes ran out and the agent was stopped. */
    timedOut: z.boolean().optional(),
    /** The agent could not start on this machine (its program is not there): no attempt at the plan, and nothing to learn from it. */
    environment: z.boolean().optional(),
    usage: UsageSchema.optional(),
    facts: AgentFactsSchema.optional(),
  }),
  z.object({ ...envelope, type: z.literal('insight'), plan: z.string(), insight: InsightSchema }),
]);
export type WorkerMessage = z.infer<typeof WorkerMessageSchema>;
export type WorkerMessageType = WorkerMessage['type'];

/**
 * A piece of accepted knowledge (a lesson, a skill, a gene) that applies to the plan, as
 * surfacing chose it: the agent's brief quotes it, and its file is named for the whole of it.
 */
export const BriefKnowledgeSchema = z.object({
  /** Its file, relative to the knowledge store's root (`lessons/testing/sqlite-busy.lesson.md`). */
  path: z.string().min(1),
  kind: z.enum(['lesson', 'skill', 'gene']),
  title: z.string().min(1),
  /** What the brief says of it. */
  text: z.string(),
  score: z.number(),
  /** Why it was chosen. */
  why: z.string(),
  /** Who wrote it and when (`drafted by harness, 2026-04-02`), for the brief's attribution. */
  origin: z.string().optional(),
});
export type BriefKnowledge = z.infer<typeof BriefKnowledgeSchema>;

export const AssignTaskSchema = z.object({
  ...envelope,
  type: z.literal('assign_task'),
  spec: z.string(),
  plan: z.string(),
  /** True when an earlier attempt of this session was interrupted. */
  resume: z.boolean(),
  /** The plan's checkout, absolute. */
  worktree: z.string(),
  /** The plan's Markdown (frontmatter and body), as the agent's brief. */
  prompt: z.string(),
  timeout_minutes: z.number().int().positive(),
  /** What harness has learned that applies to this plan, best first; absent when nothing does. */
  knowledge: z.array(BriefKnowledgeSchema).optional(),
  /**
   * Another engine worked on this attempt and stopped at its model's usage limit: what it did and
   * where it stopped, for the engine taking the plan over (agents.fallback). Its commits are on
   * the branch and what it left uncommitted is in the checkout.
   */
  handoff: z.string().optional(),
});
export type AssignTask = z.infer<typeof AssignTaskSchema>;

export const OrchestratorMessageSchema = z.discriminatedUnion('type', [
  AssignTaskSchema,
  z.object({ ...envelope, type: z.literal('verification_result'), checkpoint: z.string(), passed: z.boolean(), details: z.string().optional() }),
  z.object({ ...envelope, type: z.literal('decision_made'), checkpoint: z.string(), answer: z.string() }),
  z.object({ ...envelope, type: z.literal('action_completed'), checkpoint: z.string(), note: z.string().optional() }),
  z.object({ ...envelope, type: z.literal('abort_task'), reason: z.string() }),
]);
export type OrchestratorMessage = z.infer<typeof OrchestratorMessageSchema>;

/** The message a worker sends for a checkpoint of a kind. */
export function checkpointMessageType(kind: CheckpointType): 'decision_needed' | 'verification_needed' | 'action_needed' {
  return kind === 'decision' ? 'decision_needed' : kind === 'verification' ? 'verification_needed' : 'action_needed';
}

/** Parse one line a worker wrote; undefined for anything that is not a protocol message. */
export function parseWorkerLine(line: string): WorkerMessage | undefined {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const parsed = WorkerMessageSchema.safeParse(JSON.parse(trimmed));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
