import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { HarnessError } from '../../engine/core/error.js';
import { request } from 'node:http';
import {
  AWAIT_TOOL,
  AwaitSchema,
  BRIDGE_TOKEN_ENV,
  BRIDGE_URL_ENV,
  MCP_SERVER_NAME,
  REPORT_PROXY_ENV,
  REPORT_TOOL,
  ReportSchema,
  type AwaitAnswer,
} from './report-tools.js';

export class ReportServerError extends HarnessError {}

/**
 * The MCP server an agent starts (stdio): each tool call is handed to the worker that started
 * the agent, over the bridge it listens on (127.0.0.1, a token of this run). The server holds
 * no state: the worker decides, so a crashed server loses nothing.
 */
export async function runReportServer(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const url = env[BRIDGE_URL_ENV];
  const token = env[BRIDGE_TOKEN_ENV];
  if (!url || !token)
    throw new ReportServerError(
      `the harness MCP server needs ${BRIDGE_URL_ENV} and ${BRIDGE_TOKEN_ENV}: it is started by the worker's --mcp-config, not by hand`,
    );
  const proxy = env[REPORT_PROXY_ENV];
  const post = async (path: string, body: unknown): Promise<{ status: number; data: Record<string, unknown> }> => {
    if (proxy) return postThroughProxy(proxy, `${url}${path}`, token, body);
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, data: (await response.json()) as Record<string, unknown> };
  };
  const text = (t: string, isError = false) => ({ content: [{ type: 'text' as const, text: t }], ...(isError ? { isError: true } : {}) });

  const server = new McpServer({ name: MCP_SERVER_NAME, version: '1' });
  server.registerTool(
    REPORT_TOOL,
    {
      title: 'Report to harness',
      description:
        'Tell the harness orchestrator what you are doing: session_ready once, task_started per task, progress_update now and then, ' +
        'decision_needed / verification_needed / action_needed before harness_worker_await, task_completed or task_failed at the end.',
      inputSchema: ReportSchema,
      // Writes only to this run's own progress (the check run, the plan issue at a checkpoint): nothing outside, nothing undone.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const { status, data } = await post('/report', args);
      return status === 200 ? text(String(data.note ?? 'recorded')) : text(String(data.error ?? `the worker answered ${status}`), true);
    },
  );
  server.registerTool(
    AWAIT_TOOL,
    {
      title: "Wait for a person's answer",
      description:
        'Wait for the answer to a checkpoint you reported (a decision, a verification, an action done). May take long; if told to stop, end your turn at once.',
      inputSchema: AwaitSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => {
      const { status, data } = await post('/await', args);
      if (status !== 200) return text(String(data.error ?? `the worker answered ${status}`), true);
      const answer = data as unknown as AwaitAnswer;
      if (answer.kind === 'answer') return text(`Answer to checkpoint "${answer.checkpoint}": ${answer.answer}`);
      return text(`Stop now: ${answer.reason}. End your turn without further work; the run continues from your session once a person answers.`, true);
    },
  );
  await server.connect(new StdioServerTransport());
  // Served until the agent closes stdin.
  await new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
}

/**
 * A POST to the bridge through an HTTP proxy (inside the agents' sandbox, the only way out): the
 * absolute URL to the proxy, its credentials from the proxy URL. Node's fetch takes no proxy.
 */
function postThroughProxy(proxyUrl: string, target: string, token: string, body: unknown): Promise<{ status: number; data: Record<string, unknown> }> {
  const proxy = new URL(proxyUrl);
  const text = JSON.stringify(body);
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: proxy.hostname,
        port: Number(proxy.port || 80),
        method: 'POST',
        path: target,
        headers: {
          host: new URL(target).host,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
          authorization: `Bearer ${token}`,
          'proxy-authorization': `Basic ${Buffer.from(credentials).toString('base64')}`,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, data: JSON.parse(raw) as Record<string, unknown> });
          } catch {
            resolve({ status: res.statusCode ?? 0, data: { error: `the sandbox's proxy answered ${res.statusCode}: ${raw.slice(0, 200)}` } });
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}
