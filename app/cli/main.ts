import { fileURLToPath, pathToFileURL } from 'node:url';
import { readTextIfExists } from '../machine/files.js';
import { EXIT, processIO, UsageError, type CliIO } from './io.js';
import { parseArgsMessage, usageMessage } from './usage-message.js';
import { didYouMean } from '../engine/core/spec/suggest.js';
import { reportUnhandled } from './internal-error.js';
import { RepoStateError } from '../runner/repo.js';
import { terminalSafeIO } from './terminal-safe.js';
import { PACKAGE_NAME } from './package-name.js';
import { PLANNING_NAMES, PLANNING_SUMMARY } from '../engine/planning/planning-command.js';

interface Loaded {
  usage: string;
  run(args: string[], io: CliIO): Promise<number>;
}

interface Command {
  summary: string;
  /**
   * The command's module, imported only when it runs: importing all of them (and the
   * engine, zod, yaml and the GitHub clients behind them) was most of the time
   * `harness --help` took.
   */
  load(): Promise<Loaded>;
}

const COMMANDS: Record<string, Command> = {
  validate: {
    summary: 'parse and check a spec',
    load: async () => {
      const m = await import('./commands/validate.js');
      return { usage: m.usage, run: m.validateCommand };
    },
  },
  graph: {
    summary: 'the dependency graph, critical path and conflicts',
    load: async () => {
      const m = await import('./commands/graph.js');
      return { usage: m.usage, run: m.graphCommand };
    },
  },
  simulate: {
    summary: 'the scheduler alone, on given durations',
    load: async () => {
      const m = await import('./commands/simulate.js');
      return { usage: m.usage, run: m.simulateCommand };
    },
  },
  run: {
    summary: 'execute a spec locally, resumably',
    load: async () => {
      const m = await import('./commands/run.js');
      return { usage: m.usage, run: m.runCommand };
    },
  },
  status: {
    summary: 'progress at a glance',
    load: async () => {
      const m = await import('./commands/status.js');
      return { usage: m.usage, run: m.statusCommand };
    },
  },
  respond: {
    summary: 'answer a checkpoint',
    load: async () => {
      const m = await import('./commands/respond.js');
      return { usage: m.usage, run: m.respondCommand };
    },
  },
  surface: {
    summary: 'the lessons, skills and genes that apply to a plan',
    load: async () => {
      const m = await import('./commands/surface.js');
      return { usage: m.usage, run: m.surfaceCommand };
    },
  },
  import: {
    summary: 'convert a GSD .planning/ directory into a spec',
    load: async () => {
      const m = await import('./commands/import.js');
      return { usage: m.usage, run: m.importCommand };
    },
  },
  spike: {
    summary: 'settle a question by experiment, on a branch of its own',
    load: async () => {
      const m = await import('./commands/spike.js');
      return { usage: m.usage, run: m.spikeCommand };
    },
  },
  reflect: {
    summary: 'turn recurring signals into lessons',
    load: async () => {
      const m = await import('./commands/reflect.js');
      return { usage: m.usage, run: m.reflectCommand };
    },
  },
  retrospective: {
    summary: 'a run reviewed for skills, through four quality gates',
    load: async () => {
      const m = await import('./commands/retrospective.js');
      return { usage: m.usage, run: m.retrospectiveCommand };
    },
  },
  skills: {
    summary: 'the skills: pending, their stats, what to prune',
    load: async () => {
      const m = await import('./commands/skills.js');
      return { usage: m.usage, run: m.skillsCommand };
    },
  },
  prune: {
    summary: 'solidify, promote and decay genes from their record',
    load: async () => {
      const m = await import('./commands/prune.js');
      return { usage: m.usage, run: m.pruneCommand };
    },
  },
  export: {
    summary: 'the knowledge store as one JSON snapshot',
    load: async () => {
      const m = await import('./commands/export.js');
      return { usage: m.usage, run: m.exportCommand };
    },
  },
  mcp: {
    summary: 'serve harness to your own coding agent (MCP, stdio)',
    load: async () => {
      const m = await import('./commands/mcp.js');
      return { usage: m.usage, run: m.mcpCommand };
    },
  },
};

/** The planning commands (engine/planning/planning-command.ts): listed apart, as a group of their own. */
const PLANNING: Record<string, Command> = Object.fromEntries(
  PLANNING_NAMES.map((name): [string, Command] => [
    name,
    {
      summary: PLANNING_SUMMARY[name],
      load: async () => {
        const m = await import('./commands/planning.js');
        return { usage: m.planningUsage(name), run: m.planningCommand(name) };
      },
    },
  ]),
);

function listed(commands: Record<string, Command>): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  return Object.entries(commands)
    .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
    .join('\n');
}

function overview(): string {
  return `Usage: harness <command> [options]

Spec-driven work with coding agents, Git-native.

Commands:
${listed(COMMANDS)}

Planning commands (an agent writes the spec's documents; harness <command> <spec-dir> …):
${listed(PLANNING)}

Run "harness <command> --help" for a command's options.
`;
}

/** From app/cli/ and from dist/app/cli/ alike: the nearest package.json above that is harness's (by its npm name). */
export async function version(): Promise<string> {
  for (let up = '../../'; up.length <= 12; up += '../') {
    const text = await readTextIfExists(fileURLToPath(new URL(`${up}package.json`, import.meta.url)));
    if (text === undefined) continue;
    const pkg = JSON.parse(text) as { name?: string; version: string };
    if (pkg.name === PACKAGE_NAME) return pkg.version;
  }
  return 'unknown';
}

/** Run the CLI; returns the exit code. Never throws for bad input: that is a message and exit 2. */
export async function main(argv: string[], given: CliIO = processIO()): Promise<number> {
  // Every command prints through this: author text cannot reach the terminal as escapes.
  const io = terminalSafeIO(given);
  const [name, ...args] = argv;
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    io.stdout(overview());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${await version()}\n`);
    return EXIT.ok;
  }
  // Not for people: the reporting MCP server an agent starts from its --mcp-config (app/agents/mcp).
  if (name === 'mcp-report') {
    // Loaded only here: the MCP SDK is not for every command's start-up.
    const { runReportServer } = await import('../agents/mcp/report-server.js');
    await runReportServer();
    return EXIT.ok;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : Object.hasOwn(PLANNING, name) ? PLANNING[name] : undefined;
  if (!entry) {
    const near = didYouMean(name, [...Object.keys(COMMANDS), ...Object.keys(PLANNING)]);
    io.stderr(
      `harness: unknown command "${name}"${near || `; the commands are ${Object.keys(COMMANDS).join(', ')}`}\nRun "harness --help" for what each does.\n`,
    );
    return EXIT.usage;
  }
  try {
    return await runCommand(entry, name, args, io);
  } catch (e) {
    return reportUnhandled(e, name, argv, io);
  }
}

async function runCommand(entry: Command, name: string, args: string[], io: CliIO): Promise<number> {
  const command = await entry.load();
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
    if (e instanceof RepoStateError) {
      io.stderr(`harness ${name}: ${e.message}\n`);
      return EXIT.problems;
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
      process.exitCode = reportUnhandled(e, process.argv[2] ?? '', process.argv.slice(2), processIO());
    },
  );
}
