import { parseArgs } from 'node:util';
import type { HarnessConfig } from '../../engine/core/config/schema.js';
import { plural } from '../../engine/core/plural.js';
import { segment } from '../../engine/core/documents/fields.js';
import type { AttemptEvent, Progress } from '../../engine/lifecycle/ports.js';
import { AttemptStoppedError } from '../../engine/lifecycle/run-agent.js';
import { DESIGN_MINUTES, MAX_TIME_BOX_MINUTES, type SpikeOutcome } from '../../engine/lifecycle/run-spike.js';
import { spikeAgentName, spikeAgentRefusal } from '../../engine/lifecycle/spike-agent.js';
import { SPIKE_FILES } from '../../engine/knowledge/spikes/spike-files.js';
import { RunError, RunRepo } from '../../runner/repo.js';
import { runLocalSpike, SpikeLockedError, type LocalSpike } from '../../runner/spike.js';
import { agentsConfig } from '../../agents/config.js';
import { AGENT_NAMES } from '../../agents/registry.js';
import { EXIT, UsageError, type CliIO } from '../io.js';
import { definedEnv, gitIdentity, readConfig } from './run.js';
import { oneAgentProblem, whoChose } from '../agent-preflight.js';
import { oneLine } from '../../engine/core/spec/problem.js';

export const usage = `Usage: harness spike "<question>" [--project NAME] [--agent NAME]

Settle one question by experiment, apart from the main work. The spike gets a
branch, harness/knowledge/spike/<slug>, in a worktree of its own (nothing you
have checked out is touched, no spec's run is locked), and a folder on it,
.harness/knowledge/spikes/<project>/<slug>/. Its agent then works in two stages,
each committed on the branch:

  design  HYPOTHESIS.md and EXPERIMENT.md: the claim to test, what to build,
          what to measure, the success criteria and a time box (at most ${MAX_TIME_BOX_MINUTES} min;
          the design itself has ${DESIGN_MINUTES})
  run     the experiment, its raw output in results/, every criterion reported
          in EXPERIMENT.md, and DECISION.md with the recommendation

Whatever the agent writes outside the spike's folder is put back and reported;
every committed file is cleared of secrets. Records with problems go back to the
agent once. Merging the branch accepts the decision. Asking the same question
again continues the spike where it stopped.

The agent's instructions are templates/agents/spike.md, or the repository's own
.github/harness/agents/spike.md.

Options:
  --project NAME  the project the spike is filed under (default: the repository's name)
  --agent NAME    claude or command (default: knowledge.spike.agent, else agent,
                  of .github/harness.yml, else claude); the script agent cannot
                  draft a spike
  -h, --help      show this help

Exit: 0 a valid DECISION.md is written, 1 the spike failed (the reason is
printed), 2 usage error.
`;

/** The question becomes a record's one-line frontmatter value (HypothesisSchema: at most 300 characters). */
const MAX_QUESTION = 300;

export async function spikeCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { project: { type: 'string' }, agent: { type: 'string' } },
  });
  const question = questionOf(positionals);
  checkOptions(values);
  const repo = await openRepo(io);
  const config = await readConfig(repo.root, io, 'spike');
  if (!config) return EXIT.problems;
  const problem = spikeAgentProblem(values.agent, config, io, repo.root);
  if (problem !== undefined) {
    io.stderr(`harness spike: ${problem}\n`);
    return EXIT.problems;
  }

  const abort = new AbortController();
  const onSigint = () => {
    io.stderr('\nstopping the spike: ask the same question again to continue it\n');
    abort.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    const identity = await gitIdentity(repo);
    const askedBy = await repo.git().config('user.name');
    const spike = await runLocalSpike(repo, {
      question,
      ...(values.project === undefined ? {} : { project: values.project }),
      ...(values.agent === undefined ? {} : { agent: values.agent }),
      config,
      agents: agentsConfig(config),
      env: { ...definedEnv(io.env), ...identity },
      progress: terminalProgress(io),
      signal: abort.signal,
      ...(askedBy === undefined ? {} : { askedBy }),
    });
    io.stdout(describe(spike));
    if (spike.outcome.kind === 'decided') return EXIT.ok;
    io.stderr(`harness spike: ${spike.outcome.reason}\n${spike.outcome.problems.map((p) => `  ${p}\n`).join('')}`);
    return EXIT.problems;
  } catch (e) {
    if (e instanceof SpikeLockedError) {
      io.stderr(`harness spike: ${e.message}\n`);
      return EXIT.problems;
    }
    if (e instanceof AttemptStoppedError) {
      io.stderr('harness spike: stopped; ask the same question again to continue where it was\n');
      return EXIT.problems;
    }
    throw e;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** The question, one line and not too long for a record's frontmatter. */
function questionOf(positionals: string[]): string {
  if (positionals.length === 0) throw new UsageError('missing the question, in quotes: harness spike "Can SQLite take concurrent writers?"');
  if (positionals.length > 1) throw new UsageError(`one question, in quotes: "${positionals.join(' ')}" is ${positionals.length} arguments`);
  const question = positionals[0]!.trim();
  if (question === '') throw new UsageError('the question is empty');
  if (/[\r\n]/.test(question)) throw new UsageError('the question is one line');
  if (question.length > MAX_QUESTION) throw new UsageError(`the question is ${question.length} characters; keep it to ${MAX_QUESTION}`);
  return question;
}

/** --project names a folder; --agent an agent that can draft a spike. */
function checkOptions(values: { project?: string; agent?: string }): void {
  if (values.project !== undefined && !segment.safeParse(values.project).success) {
    throw new UsageError(`--project "${values.project}" cannot name a folder: use letters, digits, ".", "_" or "-", starting with a letter or digit`);
  }
  if (values.agent !== undefined) {
    if (!(AGENT_NAMES as readonly string[]).includes(values.agent))
      throw new UsageError(`--agent must be one of ${AGENT_NAMES.join(', ')}, not "${values.agent}"`);
    const refused = spikeAgentRefusal(values.agent);
    if (refused) throw new UsageError(`--agent ${values.agent}: ${refused}`);
  }
}

/** The repository the spike is filed in; one it cannot work in is a usage error. */
async function openRepo(io: CliIO): Promise<RunRepo> {
  try {
    return await RunRepo.open(io.cwd);
  } catch (e) {
    if (e instanceof RunError) throw new UsageError(e.message.replace('harness run works on', 'harness spike works on'));
    throw e;
  }
}

/**
 * Why the spike's agent (the option's, else the configured one) cannot draft it: an agent that
 * cannot draft a spike, or one this machine cannot start, said before the spike's branch, worktree or question is made.
 */
function spikeAgentProblem(option: string | undefined, config: HarnessConfig, io: CliIO, root: string): string | undefined {
  const agent = spikeAgentName({ override: option, spike: config.knowledge.spike?.agent, configured: config.agent });
  const refused = spikeAgentRefusal(agent);
  if (refused) return refused;
  const others = AGENT_NAMES.filter((n) => spikeAgentRefusal(n) === undefined);
  return oneAgentProblem(
    agent,
    whoChose(agent, { option, setting: [config.knowledge.spike?.agent, 'knowledge.spike.agent'], configured: config.agent }),
    config,
    { path: io.env.PATH ?? process.env.PATH, cwd: root },
    others,
  );
}

function line(e: AttemptEvent): string | undefined {
  switch (e.kind) {
    case 'agent-started':
      return `agent ${e.agent} started`;
    case 'task-started':
      return `[${e.task}/${e.total}] ${e.title}`;
    case 'progress':
      return e.message;
    case 'agent-finished':
      return 'agent finished; checking the records';
    case 'agent-failed':
      return `agent failed: ${e.error}`;
    default:
      return undefined;
  }
}

/** What the spike is doing, a line at a time, for the person waiting. */
function terminalProgress(io: CliIO): Progress {
  return {
    event(e) {
      const text = line(e);
      if (text !== undefined) io.stdout(`  ${oneLine(text.split('\n')[0] ?? '')}\n`);
    },
    async stage(title, work) {
      io.stdout(`${title}\n`);
      return work();
    },
  };
}

/** The end of a spike: what was decided, where it is, and what was kept out of it. */
function describe(spike: LocalSpike): string {
  const o: SpikeOutcome = spike.outcome;
  const out = [''];
  if (o.kind === 'decided') {
    out.push(`spike ${spike.slug}: ${o.decision.outcome} (${o.decision.confidence} confidence)${o.already ? ', decided in an earlier run' : ''}`);
    out.push(`  question:  ${oneLine(o.identity.question)}`);
    out.push(`  decision:  ${oneLine(o.decision.decision)}`);
    out.push(`  records:   ${spike.folder}/{${SPIKE_FILES.hypothesis},${SPIKE_FILES.experiment},${SPIKE_FILES.decision}}`);
    out.push(`  results:   ${plural(o.results.length, 'file')} in ${spike.folder}/${SPIKE_FILES.results}/`);
  } else {
    out.push(`spike ${spike.slug}: FAILED${o.stage ? ` in the ${o.stage} stage` : ''}`);
  }
  out.push(`  branch:    ${spike.branch}${o.commits.length > 0 ? ` (${plural(o.commits.length, 'commit')} added)` : ''}`);
  if (o.kind === 'failed') out.push(`  worktree:  ${spike.worktree}`);
  if (o.leftovers.length > 0) out.push(`  thrown away, left by an interrupted run: ${o.leftovers.join(', ')}`);
  if (o.discarded.length > 0) out.push(`  put back, written outside the spike's folder: ${o.discarded.join(', ')}`);
  if (o.redactions.length > 0) {
    out.push(`  redacted:  ${plural(o.redactions.length, 'secret')} (${[...new Set(o.redactions.map((r) => `${r.path}:${r.line}`))].join(', ')})`);
  }
  for (const d of o.dropped) out.push(`  left out:  ${oneLine(d.path)}: ${oneLine(d.why)}`);
  for (const r of o.retries) out.push(`  retried:   ${oneLine(r)}`);
  out.push(
    o.kind === 'decided'
      ? `  next: review the branch, then merge it to accept the decision (git merge ${spike.branch})`
      : `  next: fix what is said below, then ask the same question again to continue`,
  );
  return `${out.join('\n')}\n`;
}
