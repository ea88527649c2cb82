import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import * as graph from './commands/graph.js';
import * as gsdImport from './commands/import.js';
import * as simulate from './commands/simulate.js';
import * as reflect from './commands/reflect.js';
import * as respond from './commands/respond.js';
import * as run from './commands/run.js';
import * as spike from './commands/spike.js';
import * as status from './commands/status.js';
import * as surface from './commands/surface.js';
import * as validate from './commands/validate.js';
import { EXIT, processIO, UsageError, type CliIO } from './io.js';
import { parseArgsMessage, usageMessage } from './usage-message.js';
import { didYouMean } from '../engine/core/spec/suggest.js';

interface Command {
  usage: string;
  summary: string;
  run(args: string[], io: CliIO): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  validate: { usage: validate.usage, summary: 'parse and check a spec', run: validate.validateCommand },
  graph: { usage: graph.usage, summary: 'the dependency graph, critical path and conflicts', run: graph.graphCommand },
  simulate: { usage: simulate.usage, summary: 'the scheduler alone, on given durations', run: simulate.simulateCommand },
  run: { usage: run.usage, summary: 'execute a spec locally, resumably', run: run.runCommand },
  status: { usage: status.usage, summary: 'progress at a glance', run: status.statusCommand },
  respond: { usage: respond.usage, summary: 'answer a checkpoint', run: respond.respondCommand },
  surface: { usage: surface.usage, summary: 'the lessons, skills and genes that apply to a plan', run: surface.surfaceCommand },
  import: { usage: gsdImport.usage, summary: 'convert a GSD .planning/ directory into a spec', run: gsdImport.importCommand },
  spike: { usage: spike.usage, summary: 'settle a question by experiment, on a branch of its own', run: spike.spikeCommand },
  reflect: { usage: reflect.usage, summary: 'turn recurring signals into lessons', run: reflect.reflectCommand },
};

function overview(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const list = Object.entries(COMMANDS)
    .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
    .join('\n');
  return `Usage: harness <command> [options]

Spec-driven work with coding agents, Git-native.

Commands:
${list}

Run "harness <command> --help" for a command's options.
`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Run the CLI; returns the exit code. Never throws for bad input: that is a message and exit 2. */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    io.stdout(overview());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${version()}\n`);
    return EXIT.ok;
  }
  // Not for people: the reporting MCP server an agent starts from its --mcp-config (app/workers/mcp).
  if (name === 'mcp-report') {
    // Loaded only here: the MCP SDK is not for every command's start-up.
    const { runReportServer } = await import('../workers/mcp/report-server.js');
    await runReportServer();
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    const near = didYouMean(name, Object.keys(COMMANDS));
    io.stderr(`harness: unknown command "${name}"${near || `; the commands are ${Object.keys(COMMANDS).join(', ')}`}\nRun "harness --help" for what each does.\n`);
    return EXIT.usage;
  }
  if (args.includes('-h') || args.includes('--help')) {
    io.stdout(command.usage);
    return EXIT.ok;
  }
  try {
    return await command.run(args, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(usageMessage(name, e.message, command.usage));
      return EXIT.usage;
    }
    if (isParseArgsError(e)) {
      io.stderr(usageMessage(name, parseArgsMessage(e as { code: string; message: string }, command.usage), command.usage));
      return EXIT.usage;
    }
    throw e;
  }
}

function isParseArgsError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`harness: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 70;
    },
  );
}
