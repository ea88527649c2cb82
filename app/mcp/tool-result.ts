import type { CallToolResult } from '@modelcontextprotocol/server';
import { HarnessError } from '../engine/core/error.js';

/**
 * A tool's refusal a person (or their agent) can act on: what was asked, why it cannot be
 * done, and the fix. Returned to the client as an error result, never thrown out of the
 * server, so that one bad call leaves the connection serving.
 */
export class McpToolError extends HarnessError {}

/**
 * Text for the agent to read, and the same facts as data when there are any: as
 * `structuredContent`, and (MCP 2025-06-18, for clients that read only text) serialised as JSON
 * in a second text block.
 */
export function toolText(text: string, data?: Record<string, unknown>): CallToolResult {
  if (data === undefined) return { content: [{ type: 'text', text }] };
  return {
    content: [
      { type: 'text', text },
      { type: 'text', text: JSON.stringify(data) },
    ],
    structuredContent: data,
  };
}

export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * A tool's handler with its refusals turned into error results. Only harness's own errors
 * (which say what to do) are shown as they are; anything else is a fault of harness, named
 * as one so that nobody takes it for a problem with the spec.
 */
export function guarded<A>(handler: (args: A) => Promise<CallToolResult>, about?: (args: A) => string): (args: A) => Promise<CallToolResult> {
  return async (args) => {
    try {
      return await handler(args);
    } catch (e) {
      if (e instanceof McpToolError) return toolError(e.message);
      // Errors from below (GitHub's answer, git's) name the request and its fix, not what the tool was doing: `about` does.
      if (e instanceof HarnessError) return toolError(about ? `${about(args)}: ${e.message}` : e.message);
      return toolError(`harness failed inside the tool (a fault of harness, not of your spec): ${e instanceof Error ? e.message : String(e)}`);
    }
  };
}
