import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { WorkerContext } from '../../engine/core/agents/agent.js';
import type { Checkpoint, CheckpointType } from '../../engine/core/protocol/messages.js';
import type { AnswerStore } from '../answer-store.js';
import { passCheckpoint } from '../checkpoint-gate.js';
import type { Reporter } from '../reporter.js';
import {
  AwaitSchema,
  BRIDGE_TOKEN_ENV,
  BRIDGE_URL_ENV,
  MCP_CONFIG_ENV,
  MCP_SERVER_ENV,
  MCP_SERVER_NAME,
  ReportSchema,
  type AwaitAnswer,
  type Report,
} from './report-tools.js';
import { reportServerCommand, type ServerCommand } from './server-command.js';

/** The largest report body read: the schema caps each field far below it. */
const MAX_BODY = 64 * 1024;
const KINDS: Record<string, CheckpointType> = { decision_needed: 'decision', verification_needed: 'verification', action_needed: 'action' };

/**
 * The worker's end of the reporting channel: an HTTP listener on 127.0.0.1 that the agent's MCP
 * server forwards its tool calls to. Reports become the protocol messages every agent sends
 * (through the Reporter, so the envelope is filled the one way); an await passes the checkpoint
 * through the same gate as a HARNESS_CHECKPOINT line, so a question is asked, answered,
 * recorded and, where nobody can wait (a runner), ended the same way.
 */
export class ReportBridge {
  /** A question asked through the channel that this run could not wait for: the run ends at it. */
  waiting: Checkpoint | undefined;
  /** What the agent said it did (task_completed), or why it gave up (task_failed). */
  summary: string | undefined;
  failure: string | undefined;
  /** Reports received, for the figures of a run. */
  reports = 0;
  private readonly asked = new Map<string, Checkpoint>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly token: string,
    private readonly options: BridgeOptions,
    private readonly reach: Record<string, string> = {},
  ) {}

  static async open(options: BridgeOptions): Promise<ReportBridge> {
    const token = randomBytes(24).toString('hex');
    // The handler needs the bridge, and the bridge the listening server's port.
    const self: { bridge?: ReportBridge } = {};
    const server = createServer((req, res) => void self.bridge!.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}`;
    // Inside the sandbox the server reaches this listener only through the sandbox's proxy, which lets this one loopback address through.
    self.bridge = new ReportBridge(server, url, token, options, options.context.sandbox?.bridge(url) ?? {});
    return self.bridge;
  }

  /** The server's command line with the variables that lead it here. */
  serverCommand(): ServerCommand & { env: Record<string, string> } {
    return { ...(this.options.command ?? reportServerCommand()), env: { [BRIDGE_URL_ENV]: this.url, [BRIDGE_TOKEN_ENV]: this.token, ...this.reach } };
  }

  /** Claude Code's --mcp-config file, in `dir` (the plan's logDir, outside the checkout: it holds this run's bridge token). */
  async writeConfig(dir: string): Promise<string> {
    const path = join(dir, 'mcp.json');
    await writeFile(path, `${JSON.stringify({ mcpServers: { [MCP_SERVER_NAME]: this.serverCommand() } }, null, 2)}\n`, { mode: 0o600 });
    return path;
  }

  /** For an agent that is not Claude Code: the same server, named in its environment. */
  async agentEnv(dir: string): Promise<Record<string, string>> {
    return { [MCP_SERVER_ENV]: JSON.stringify(this.serverCommand()), [MCP_CONFIG_ENV]: await this.writeConfig(dir) };
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      if (req.method !== 'POST' || req.headers.authorization !== `Bearer ${this.token}`) return send(404, { error: 'not here' });
      const body = await readBody(req);
      if (req.url === '/report') {
        const parsed = ReportSchema.safeParse(body);
        if (!parsed.success)
          return send(400, { error: `a report the worker cannot read: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` });
        return send(200, { note: await this.report(parsed.data) });
      }
      if (req.url === '/await') {
        const parsed = AwaitSchema.safeParse(body);
        if (!parsed.success) return send(400, { error: 'harness_worker_await needs the checkpoint id you reported' });
        return send(200, await this.await(parsed.data.checkpoint));
      }
      return send(404, { error: `no ${req.url}` });
    } catch (e) {
      return send(400, { error: e instanceof Error ? e.message : String(e) });
    }
  }

  private async report(report: Report): Promise<string> {
    this.reports++;
    const { reporter } = this.options;
    switch (report.type) {
      case 'session_ready':
        // The agent already announced its session when it started; this says the channel works.
        await reporter.progress(`reporting channel ready${report.message ? `: ${report.message}` : ''}`);
        return 'recorded';
      case 'task_started':
        if (report.task === undefined || report.total === undefined || !report.title) throw new Error('task_started needs task, total and title');
        await reporter.started(report.task, report.total, report.title);
        return 'recorded';
      case 'progress_update':
        if (!report.message) throw new Error('progress_update needs a message');
        await reporter.progress(
          report.message,
          report.task !== undefined && report.total !== undefined ? { task: report.task, total: report.total } : undefined,
        );
        return 'recorded';
      case 'task_completed':
        this.summary = report.message;
        return 'recorded: finish your turn; the worker commits what is left and verifies the plan';
      case 'task_failed':
        this.failure = report.message ?? 'the agent reported task_failed without a reason';
        return 'recorded: finish your turn; the plan ends as failed';
      default: {
        if (!report.checkpoint || !report.message) throw new Error(`${report.type} needs checkpoint (an id) and message (the question)`);
        const checkpoint: Checkpoint = { id: report.checkpoint, kind: KINDS[report.type]!, prompt: report.message, source: this.options.agent };
        if (report.options && report.options.length > 0) checkpoint.options = report.options;
        this.asked.set(checkpoint.id, checkpoint);
        return `recorded: now call harness_worker_await with checkpoint "${checkpoint.id}"`;
      }
    }
  }

  private async await(id: string): Promise<AwaitAnswer> {
    const checkpoint = this.asked.get(id);
    if (!checkpoint) throw new Error(`no checkpoint "${id}" was reported: send decision_needed (or verification_needed, action_needed) with it first`);
    const { context, reporter, store } = this.options;
    const gate = await passCheckpoint(context, reporter, store, checkpoint, undefined);
    if (gate.ok) return { kind: 'answer', checkpoint: id, answer: gate.answer };
    // Aborted because nobody here can wait: the run ends at the question and resumes the session later.
    if (context.signal.aborted) this.waiting = checkpoint;
    else this.failure = gate.error;
    return { kind: 'stop', checkpoint: id, reason: gate.error };
  }
}

export interface BridgeOptions {
  context: WorkerContext;
  reporter: Reporter;
  store: AnswerStore;
  /** The agent, named as the checkpoint's source. */
  agent: string;
  command?: ServerCommand;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new Error(`a report larger than ${MAX_BODY} bytes`);
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}
