import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ROOT } from '../helpers/paths.js';

const BIN = join(ROOT, 'bin', 'harness.js');

export interface HarnessMcp {
  client: Client;
  /** A tool's answer: its text, its data, whether it is an error. */
  call(name: string, args?: Record<string, unknown>): Promise<{ text: string; data: Record<string, unknown>; isError: boolean }>;
  stderr(): string;
  close(): Promise<void>;
}

/** `harness mcp` started as a client starts it (bin/harness.js over stdio, in `cwd`), with the SDK's own client. */
export async function startHarnessMcp(cwd: string, env: Record<string, string> = {}, args: string[] = []): Promise<HarnessMcp> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HARNESS_STATE_DIR: process.env.HARNESS_STATE_DIR ?? '',
      HARNESS_FROM_SOURCE: '1',
      ...env,
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => void (stderr += c.toString('utf8')));
  const client = new Client({ name: 'harness-test', version: '1' });
  await client.connect(transport);
  return {
    client,
    call: async (name, toolArgs = {}) => {
      const result = (await client.callTool({ name, arguments: toolArgs }, undefined, { timeout: 120_000 })) as CallToolResult;
      const texts = result.content.map((c) => (c.type === 'text' ? c.text : ''));
      // MCP 2025-06-18: a result with structured content carries the same JSON as text too, after the words for the agent.
      if (result.structuredContent !== undefined && texts.at(-1) !== JSON.stringify(result.structuredContent)) {
        throw new Error(`${name}: the structured result is not also given as JSON text: ${JSON.stringify(result.content)}`);
      }
      const text = (result.structuredContent === undefined ? texts : texts.slice(0, -1)).join('\n');
      return { text, data: (result.structuredContent ?? {}) as Record<string, unknown>, isError: result.isError === true };
    },
    stderr: () => stderr,
    close: () => client.close(),
  };
}
