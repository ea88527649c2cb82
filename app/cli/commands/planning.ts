import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { AttemptEvent, Progress } from '../../engine/lifecycle/ports.js';
import { AttemptStoppedError } from '../../engine/lifecycle/run-agent.js';
import { planningAnswer } from '../../engine/planning/planning-answer.js';
import { parsePlanningArgs, PLANNING_USAGE, PLANNING_SUMMARY, type PlanningName } from '../../engine/planning/planning-command.js';
import { runLocalPlanning } from '../../runner/planning.js';
import { RunError, RunRepo } from '../../runner/repo.js';
import { agentsConfig } from '../../agents/config.js';
import type { HarnessConfig } from '../../engine/core/config/schema.js';
import { planningAgentName } from '../../engine/planning/planning-agent.js';
import { oneAgentProblem, whoChose } from '../agent-preflight.js';
import { specDirOf } from '../spec-input.js';
import { EXIT, UsageError, type CliIO } from '../io.js';
import { definedEnv, gitIdentity, readConfig } from './run.js';

/** `harness <planning command> --help`. */
export function planningUsage(name: PlanningName): string {
  const [, ...args] = PLANNING_USAGE[name].split(' ');
  return `Usage: harness ${name} <spec-dir>${args.length > 0 ? ` ${args.join(' ')}` : ''} [--agent NAME]

${PLANNING_SUMMARY[name]}.

The same command as /harness ${name} on a spec pull request, on this machine: the
agent (planner or researcher; its instructions are templates/agents/, or the
repository's own .github/harness/agents/) writes the documents in a throwaway
worktree at HEAD; harness checks them with the spec model (as harness validate
does), gives them back to the agent once with the problems when they do not pass,
and commits what passes as one commit on the current branch. Nothing that does
not validate is committed; nothing you have checked out is touched meanwhile.
The spec is read as committed: commit changes to it first.${
    name === 'discuss-phase'
      ? `

discuss-phase writes the phase's questions to
planning/discuss/phase-<PP>-questions.md; write your answers to
planning/discuss/phase-<PP>-answers.md and run it again for the phase's context.`
      : ''
  }

Options:
  --agent NAME  claude or command (default: planning.agent, else agent, of
                .github/harness.yml, else claude); the script agent cannot plan
  -h, --help    show this help

Exit: 0 the documents are committed, 1 nothing was committed (the reason and the
problems, file:line: message, are printed), 2 usage error.
`;
}

/** The agents that can plan on this machine: the script agent only runs the steps a plan spells out. */
const PLANNING_AGENTS: readonly string[] = ['claude', 'command'];

/** The command function of one planning command, for app/cli/main.ts. */
export function planningCommand(name: PlanningName): (args: string[], io: CliIO) => Promise<number> {
  return (args, io) => runPlanningCommand(name, args, io);
}

async function runPlanningCommand(name: PlanningName, args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { agent: { type: 'string' } } });
  const [named, ...rest] = positionals;
  if (named === undefined) throw new UsageError(`missing the spec directory: harness ${PLANNING_USAGE[name].replace(name, `${name} <spec-dir>`)}`);
  const specDir = await specDirOf(named, io);
  // The shell took the quotes off the goal: the words after the directory are the goal.
  const text = name === 'add-phase' ? (rest.length === 0 ? '' : `"${rest.join(' ')}"`) : rest.join(' ');
  const parsed = parsePlanningArgs(name, text);
  if (!parsed.ok) throw new UsageError(parsed.problem.replace(/`([a-z-]+) /, `\`harness $1 <spec-dir> `));
  if (values.agent !== undefined && !PLANNING_AGENTS.includes(values.agent)) throw new UsageError(`--agent must be claude or command, not "${values.agent}"`);

  const repo = await openRepo(name, io);
  const config = await readConfig(repo.root, io, name);
  if (!config) return EXIT.problems;
  // An agent this machine cannot start is said before a worktree or an agent is: what to install, or which agent to choose instead.
  const missing = planningAgentProblem(values.agent, config, io, repo.root);
  if (missing !== undefined) {
    io.stderr(`harness ${name}: ${missing}\n`);
    return EXIT.problems;
  }
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.on('SIGINT', onSigint);
  try {
    const done = await runLocalPlanning(repo, {
      specDir: resolve(io.cwd, specDir),
      command: parsed.command,
      ...(values.agent === undefined ? {} : { agent: values.agent }),
      config,
      agents: agentsConfig(config),
      env: { ...definedEnv(io.env), ...(await gitIdentity(repo)) },
      progress: terminalProgress(io),
      signal: abort.signal,
    });
    const local = localAnswer(
      planningAnswer({ command: parsed.command, spec: done.specDir, branch: done.branch ?? 'HEAD', outcome: done.outcome }),
      done.specDir,
    );
    if (done.outcome.kind === 'committed') {
      io.stdout(`${local}\n`);
      return EXIT.ok;
    }
    io.stderr(`harness ${name}: ${local}\n`);
    return EXIT.problems;
  } catch (e) {
    if (e instanceof RunError) {
      io.stderr(`harness ${name}: ${e.message}\n`);
      return EXIT.problems;
    }
    if (e instanceof AttemptStoppedError) {
      io.stderr(`harness ${name}: stopped; nothing was committed\n`);
      return EXIT.problems;
    }
    throw e;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** What keeps this machine from starting the planning agent (the option's, else the configured one), if anything. */
function planningAgentProblem(option: string | undefined, config: HarnessConfig, io: CliIO, root: string): string | undefined {
  const agent = planningAgentName({ override: option, planning: config.planning?.agent, configured: config.agent });
  return oneAgentProblem(
    agent,
    whoChose(agent, { option, setting: [config.planning?.agent, 'planning.agent'], configured: config.agent }),
    config,
    { path: io.env.PATH ?? process.env.PATH, cwd: root },
    PLANNING_AGENTS,
  );
}

/** The repository the command works in; one it cannot work in is a usage error. */
async function openRepo(name: PlanningName, io: CliIO): Promise<RunRepo> {
  try {
    return await RunRepo.open(io.cwd);
  } catch (e) {
    if (e instanceof RunError) throw new UsageError(e.message.replace('harness run works on', `harness ${name} works on`));
    throw e;
  }
}

/** The answer as this machine says it: the next command is the CLI's, not a comment's. */
function localAnswer(text: string, specDir: string): string {
  return text.replace(/Next: `([a-z-]+)( [^`]*)?`/g, (_m, cmd: string, arg: string | undefined) => `Next: \`harness ${cmd} ${specDir}${arg ?? ''}\``);
}

function line(e: AttemptEvent): string | undefined {
  switch (e.kind) {
    case 'agent-started':
      return `agent ${e.agent} started`;
    case 'progress':
      return e.message;
    case 'agent-finished':
      return 'agent finished; checking the documents';
    case 'agent-failed':
      return `agent failed: ${e.error}`;
    default:
      return undefined;
  }
}

function terminalProgress(io: CliIO): Progress {
  return {
    event(e) {
      const text = line(e);
      if (text !== undefined) io.stdout(`  ${text.split('\n')[0]}\n`);
    },
    async stage(title, work) {
      io.stdout(`${title}\n`);
      return work();
    },
  };
}
