import { z } from 'zod';

/**
 * The reporting channel's two tools, as the agent sees them and as the worker's bridge reads
 * them: one definition, so that the MCP server and the bridge cannot disagree on a field.
 */

export const MCP_SERVER_NAME = 'harness';
export const REPORT_TOOL = 'harness_worker_report';
export const AWAIT_TOOL = 'harness_worker_await';
/** How Claude Code names an MCP server's tool in --allowedTools. */
export const CLAUDE_TOOL_NAMES = [`mcp__${MCP_SERVER_NAME}__${REPORT_TOOL}`, `mcp__${MCP_SERVER_NAME}__${AWAIT_TOOL}`] as const;

export const REPORT_TYPES = [
  'session_ready',
  'task_started',
  'progress_update',
  'verification_needed',
  'decision_needed',
  'action_needed',
  'task_completed',
  'task_failed',
] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

/** A checkpoint id: it names an answer (HARNESS_ANSWER_<ID>) and a check run button, so it stays short and plain. */
const CHECKPOINT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;

export const reportShape = {
  type: z.enum(REPORT_TYPES).describe('What happened: see the brief for when to send each type.'),
  message: z
    .string()
    .max(4000)
    .optional()
    .describe('The progress line; for *_needed the question for the person; for task_completed the summary; for task_failed the error.'),
  task: z.number().int().min(1).optional().describe('task_started / progress_update: the task number, from 1.'),
  total: z.number().int().min(1).optional().describe('task_started / progress_update: how many tasks there are.'),
  title: z.string().max(200).optional().describe('task_started: the task title.'),
  checkpoint: z
    .string()
    .regex(CHECKPOINT_ID)
    .optional()
    .describe('*_needed: a short id for the question, e.g. "storage-backend"; pass the same id to harness_worker_await.'),
  options: z.array(z.string().min(1).max(100)).max(10).optional().describe('decision_needed: the choices; the first three become buttons on GitHub.'),
};
export const ReportSchema = z.object(reportShape);
export type Report = z.infer<typeof ReportSchema>;

export const awaitShape = {
  checkpoint: z.string().regex(CHECKPOINT_ID).describe('The id given with decision_needed, verification_needed or action_needed.'),
};
export const AwaitSchema = z.object(awaitShape);

/** What the bridge answers an await with; `stop` tells the agent to end its turn now (the run ends at the question). */
export type AwaitAnswer = { kind: 'answer'; checkpoint: string; answer: string } | { kind: 'stop'; checkpoint: string; reason: string };

/** The variables that tell the server process where the worker listens. */
export { REPORT_PROXY_ENV } from '../../engine/core/agents/sandbox.js';
export const BRIDGE_URL_ENV = 'HARNESS_REPORT_URL';
export const BRIDGE_TOKEN_ENV = 'HARNESS_REPORT_TOKEN';
/** What the command agent is given: the server's command line (JSON `{ command, args, env }`) and Claude Code style config file. */
export const MCP_SERVER_ENV = 'HARNESS_MCP_SERVER';
export const MCP_CONFIG_ENV = 'HARNESS_MCP_CONFIG';
