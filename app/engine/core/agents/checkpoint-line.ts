import { z } from 'zod';
import { CHECKPOINT_TYPES } from '../protocol/messages.js';

/**
 * How a coding agent without the protocol (Claude Code in print mode) asks for a person: it ends
 * its turn with one last line
 *
 *     HARNESS_CHECKPOINT {"kind":"decision","prompt":"Which store?","options":["memory","file"]}
 *
 * A line is cheaper for the agent to get right than a tool call, and it is the last line so that
 * prose quoting the convention earlier in the turn never triggers it.
 */

export const CHECKPOINT_MARKER = 'HARNESS_CHECKPOINT';

export const CheckpointRequestSchema = z.object({
  kind: z.enum(CHECKPOINT_TYPES),
  prompt: z.string().min(1),
  options: z.array(z.string().min(1)).optional(),
  /** A stable name for the question; an answered id is not asked again after a restart. */
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/)
    .optional(),
  /** What an autonomous plan takes without asking. */
  default: z.string().min(1).optional(),
});
export type CheckpointRequest = z.infer<typeof CheckpointRequestSchema>;

export type CheckpointLine = { found: false } | { found: true; request: CheckpointRequest; text: string } | { found: true; error: string; text: string };

/**
 * Look for the marker on the last non-empty line of an agent's final text. `text` is what
 * remains without the line (the agent's own words to show a person).
 */
export function findCheckpointLine(result: string): CheckpointLine {
  const lines = result.replace(/\r\n/g, '\n').split('\n');
  let last = lines.length - 1;
  while (last >= 0 && lines[last]!.trim() === '') last--;
  if (last < 0) return { found: false };
  // Agents like to wrap the line in backticks; accept that, but nothing else around it.
  const line = lines[last]!.trim()
    .replace(/^`+|`+$/g, '')
    .trim();
  if (!line.startsWith(`${CHECKPOINT_MARKER} `) && line !== CHECKPOINT_MARKER) return { found: false };
  const text = lines.slice(0, last).join('\n').trim();
  const json = line.slice(CHECKPOINT_MARKER.length).trim();
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { found: true, text, error: `${CHECKPOINT_MARKER} is not followed by JSON: ${json.slice(0, 200)}` };
  }
  const parsed = CheckpointRequestSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { found: true, text, error: `${CHECKPOINT_MARKER} JSON is invalid at ${issue.path.join('.') || '(root)'}: ${issue.message}` };
  }
  return { found: true, request: parsed.data, text };
}
