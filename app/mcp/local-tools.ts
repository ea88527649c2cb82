import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { AGENT_NAMES } from '../agents/registry.js';
import { cliJson, type LocalCli } from './local-cli.js';
import type { LocalRuns, RunView } from './local-runs.js';
import type { LocalSpec, LocalSpecs } from './local-specs.js';
import { readPlanReport } from './plan-report.js';
import { statusLine, statusLines, type StatusReport, type ValidateReport } from './status-report.js';
import { guarded, McpToolError, toolText } from './tool-result.js';

export interface LocalTools {
  cli: LocalCli;
  specs: LocalSpecs;
  runs: LocalRuns;
}

/** The longest a status call waits for a run to change: under the 60 s most clients give a call. */
export const MAX_WAIT_SECONDS = 50;

const spec = z.string().min(1).describe('The spec: its id (SPC-001) or its directory relative to the repository root (docs/specs/SPC-001-notes).');
const planId = z
  .string()
  .regex(/^\d{2}-\d{2}$/, 'a plan id is PP-NN, as 01-02')
  .describe('A plan id, PP-NN (01-02).');
const phaseId = z
  .string()
  .regex(/^\d{1,2}$/, 'a phase is its number, as 02')
  .describe('A phase number, PP (02).');

async function status(cli: LocalCli, s: LocalSpec): Promise<StatusReport> {
  return (await cliJson<StatusReport>(cli, ['status', s.dir, '--json'])).report;
}

function runText(view: RunView, report: StatusReport | undefined): string {
  const lines = [`${view.run}: ${view.command} — ${view.state}${view.outcome ? ` (exit ${view.exitCode}: ${view.outcome})` : ''}`];
  if (report) lines.push('', statusLine(view.dir, report), ...statusLines(report));
  if (report?.checkpoints.length) {
    lines.push('', 'Waiting for an answer (harness_respond):');
    for (const c of report.checkpoints)
      lines.push(`  ${c.session} (${c.kind}): ${c.prompt.split('\n')[0]}${c.options.length ? ` — options: ${c.options.join(' | ')}` : ''}`);
  }
  if (view.output.length) lines.push('', 'Its last output:', ...view.output.slice(-20).map((l) => `  ${l}`));
  if (view.state === 'running')
    lines.push('', `Still running: call harness_run_status with run "${view.run}" (and wait_seconds up to ${MAX_WAIT_SECONDS}) to follow it.`);
  return lines.join('\n');
}

/**
 * The tools on this checkout, each what the CLI command of the same name does (docs/design.md,
 * CLI): the specs and their state, validate, graph, run (as a child process the tools follow),
 * checkpoints and answers, and a plan's SUMMARY and VERIFICATION.
 */
export function registerLocalTools(server: McpServer, tools: LocalTools): void {
  registerSpecsTool(server, tools);
  registerStatusTool(server, tools);
  registerValidateTool(server, tools);
  registerGraphTool(server, tools);
  registerExecuteTool(server, tools);
  registerRunStatusTool(server, tools);
  registerStopRunTool(server, tools);
  registerCheckpointsTool(server, tools);
  registerRespondTool(server, tools);
  registerPlanReportTool(server, tools);
}

/** harness_specs: every spec of the checkout, valid or not, and where it stands. */
function registerSpecsTool(server: McpServer, { cli, specs }: LocalTools): void {
  server.registerTool(
    'harness_specs',
    {
      title: 'List specs',
      description:
        'The specs of this repository (each directory with a SPEC.md under specs_root, default docs/specs) whether each is valid, and where each stands: not run yet, running, verified plans and phases, failures, checkpoints waiting.',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
    },
    guarded(async () => {
      const found = await specs.list();
      if (found.length === 0)
        return toolText(
          `No spec in ${specs.root}: harness looks for directories holding SPEC.md under ${await specs.specsRoot()}/ (specs_root in .github/harness.yml).`,
          { specs: [] },
        );
      const rows: SpecRow[] = [];
      const lines: string[] = [];
      for (const s of found) {
        const { row, line } = await specRow(cli, s);
        rows.push(row);
        lines.push(line);
      }
      return toolText(lines.join('\n'), { specs: rows });
    }),
  );
}

/** A spec as harness_specs lists it. */
interface SpecRow {
  id: string;
  dir: string;
  title: string | null;
  status: string;
  valid: boolean;
  errors: number;
  plansVerified: number | null;
  plansTotal: number | null;
  checkpoints: number;
}

/** One spec's row and line in harness_specs: its state with its validity (a spec being edited is listed with its errors, never dropped). */
async function specRow(cli: LocalCli, s: LocalSpec): Promise<{ row: SpecRow; line: string }> {
  const { report: check } = await cliJson<ValidateReport>(cli, ['validate', s.dir, '--json']);
  const invalid = check.valid ? '' : ` · ${check.errors} error${check.errors === 1 ? '' : 's'} (harness_validate ${s.id})`;
  const out = await cli(['status', s.dir, '--json']);
  if (out.code !== 0) {
    return {
      row: {
        id: s.id,
        dir: s.dir,
        title: null,
        status: 'unreadable',
        valid: false,
        errors: check.errors,
        plansVerified: null,
        plansTotal: null,
        checkpoints: 0,
      },
      line: `${s.id} (${s.dir}): cannot be read${invalid}`,
    };
  }
  const r = JSON.parse(out.stdout) as StatusReport;
  return {
    row: {
      id: r.spec,
      dir: s.dir,
      title: r.title,
      status: r.status,
      valid: check.valid,
      errors: check.errors,
      plansVerified: r.progress.plansVerified,
      plansTotal: r.progress.plansTotal,
      checkpoints: r.checkpoints.length,
    },
    line: `${statusLine(s.dir, r)}${invalid}`,
  };
}

/** harness_status: one spec's state, as `harness status --json`. */
function registerStatusTool(server: McpServer, { cli, specs }: LocalTools): void {
  server.registerTool(
    'harness_status',
    {
      title: 'Spec status',
      description:
        "One spec's state as `harness status --json` gives it: each phase and plan with its state, the running step, why a plan failed or is blocked, the checkpoints waiting, the integration branch.",
      inputSchema: z.object({ spec }),
      annotations: { readOnlyHint: true },
    },
    guarded(async (args: { spec: string }) => {
      const s = await specs.resolve(args.spec);
      const report = await status(cli, s);
      return toolText([statusLine(s.dir, report), '', ...statusLines(report)].join('\n'), report as unknown as Record<string, unknown>);
    }),
  );
}

/** harness_validate: a spec checked as `harness validate` does. */
function registerValidateTool(server: McpServer, { cli, specs }: LocalTools): void {
  server.registerTool(
    'harness_validate',
    {
      title: 'Validate a spec',
      description:
        'Parse and check a spec (SPEC.md, ROADMAP.md, every PLAN.md, and .github/harness.yml) as `harness validate` does. Every problem comes as file:line: message, the file relative to the repository root; valid is false when any is an error.',
      inputSchema: z.object({ spec }),
      annotations: { readOnlyHint: true },
    },
    guarded(async (args: { spec: string }) => {
      const s = await specs.resolve(args.spec);
      const { report } = await cliJson<ValidateReport>(cli, ['validate', s.dir, '--json']);
      const problems = report.problems.map((p) => `${p.file}:${p.line}: ${p.severity === 'warning' ? 'warning: ' : ''}${p.message}`);
      const verdict = report.valid
        ? `${s.id} is valid${report.warnings ? ` (${report.warnings} warning${report.warnings === 1 ? '' : 's'})` : ''}`
        : `${s.id} has ${report.errors} error${report.errors === 1 ? '' : 's'}: fix them in the files named, then validate again`;
      return toolText([...problems, verdict].join('\n'), { ...report, problems: report.problems.map((p, i) => ({ ...p, text: problems[i] })) });
    }),
  );
}

/** harness_graph: a spec's dependency graph, as `harness graph`. */
function registerGraphTool(server: McpServer, { cli, specs }: LocalTools): void {
  server.registerTool(
    'harness_graph',
    {
      title: 'Dependency graph',
      description:
        "A spec's dependency graph as `harness graph` shows it: phases, plans, dependencies, the critical path, the topological order and the write conflicts between plans that could run at once. The structured result is `harness graph --json`.",
      inputSchema: z.object({ spec }),
      annotations: { readOnlyHint: true },
    },
    guarded(async (args: { spec: string }) => {
      const s = await specs.resolve(args.spec);
      const { code, report } = await cliJson<Record<string, unknown>>(cli, ['graph', s.dir, '--json']);
      if (code !== 0) {
        const error = report.error as { message?: string; problems?: { file: string; line: number; message: string }[] } | undefined;
        const problems = (error?.problems ?? []).map((p) => `${p.file}:${p.line}: ${p.message}`);
        throw new McpToolError(
          [...problems, `${s.id}: ${error?.message ?? 'the graph has errors'}; fix them (harness_validate lists every problem), then ask again`].join('\n'),
        );
      }
      const text = await cli(['graph', s.dir]);
      return toolText(text.stdout.trimEnd(), report);
    }),
  );
}

/** harness_execute: `harness run` started as a process of its own, its phase or plan checked first. */
function registerExecuteTool(server: McpServer, { cli, specs, runs }: LocalTools): void {
  server.registerTool(
    'harness_execute',
    {
      title: 'Execute a spec, phase or plan',
      description:
        'Start `harness run` for a spec, one phase of it, or one plan, as a process of its own on this checkout (each plan in its own worktree and branch, verified, merged into harness/<spec>/integration). ' +
        'Returns at once with a run id: follow it with harness_run_status (which can wait up to 50 s for a change), answer its checkpoints with harness_respond, stop it with harness_stop_run. ' +
        'A run stopped for any reason resumes where it was when executed again.',
      inputSchema: z.object({
        spec,
        phase: phaseId.optional().describe('Run only the plans of this phase (PP).'),
        plan: planId.optional().describe('Run only this plan (PP-NN).'),
        agent: z.enum(AGENT_NAMES).optional().describe('Run every plan with this agent instead of the configured one.'),
        retry: z.boolean().optional().describe('Give failed and blocked plans, and failed phases, a fresh attempt.'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    guarded(async (args: { spec: string; phase?: string; plan?: string; agent?: (typeof AGENT_NAMES)[number]; retry?: boolean }) => {
      const s = await specs.resolve(args.spec);
      const report = await status(cli, s).catch((e: unknown) => {
        if (e instanceof McpToolError)
          throw new McpToolError(`${s.id} cannot be run: its files do not read as a spec (harness_validate ${s.id} lists the problems)`);
        throw e;
      });
      const phase = args.phase?.padStart(2, '0');
      if (phase !== undefined && !report.phases.some((p) => p.id === phase))
        throw new McpToolError(`${s.id} has no phase ${phase}: its phases are ${report.phases.map((p) => p.id).join(', ')}`);
      if (args.plan !== undefined && !report.plans.some((p) => p.id === args.plan))
        throw new McpToolError(`${s.id} has no plan ${args.plan}: its plans are ${report.plans.map((p) => p.id).join(', ')}`);
      const view = runs.start(s, {
        ...(phase === undefined ? {} : { phase }),
        ...(args.plan === undefined ? {} : { plan: args.plan }),
        ...(args.agent === undefined ? {} : { agent: args.agent }),
        ...(args.retry ? { retry: true } : {}),
      });
      return toolText(
        `Started ${view.run}: ${view.command}\nFollow it with harness_run_status { "run": "${view.run}", "wait_seconds": ${MAX_WAIT_SECONDS} }.`,
        view as unknown as Record<string, unknown>,
      );
    }),
  );
}

/** harness_run_status: a run followed, waiting for it to end or reach a new checkpoint. */
function registerRunStatusTool(server: McpServer, { cli, runs }: LocalTools): void {
  server.registerTool(
    'harness_run_status',
    {
      title: 'Follow a run',
      description:
        "A run started by harness_execute: running, finished (with what its exit code means) or stopped; the spec's plans and phases as they are now, the checkpoints waiting for an answer, and the run's last output. " +
        'With wait_seconds, waits up to that long for the run to end or to stop at a new checkpoint, so that following a run needs few calls.',
      inputSchema: z.object({
        run: z.string().min(1).describe('The run id harness_execute returned (run-1).'),
        wait_seconds: z
          .number()
          .int()
          .min(0)
          .max(MAX_WAIT_SECONDS)
          .optional()
          .describe(`Wait up to this many seconds (at most ${MAX_WAIT_SECONDS}) for the run to end or reach a checkpoint.`),
      }),
      annotations: { readOnlyHint: true },
    },
    guarded(async (args: { run: string; wait_seconds?: number }) => {
      const before = runs.get(args.run);
      const s = { id: before.spec, dir: before.dir };
      const waiting = async () =>
        (await status(cli, s)).checkpoints
          .map((c) => c.session)
          .sort()
          .join(',');
      const asked = args.wait_seconds ? await waiting() : '';
      const view = args.wait_seconds
        ? await runs.waitFor(args.run, args.wait_seconds * 1000, async () => {
            const now = await waiting();
            return now !== asked && now !== '';
          })
        : before;
      // A status the CLI could not give: the run's own view is still the answer.
      const report = await status(cli, s).catch((e: unknown) => {
        if (!(e instanceof McpToolError)) throw e;
        return undefined;
      });
      return toolText(runText(view, report), { ...view, ...(report ? { status: report } : {}) });
    }),
  );
}

/** harness_stop_run: a run stopped as Ctrl-C would. */
function registerStopRunTool(server: McpServer, { runs }: LocalTools): void {
  server.registerTool(
    'harness_stop_run',
    {
      title: 'Stop a run',
      description:
        'Stop a run started by harness_execute as Ctrl-C would: its agents are stopped and its state kept, so executing the same again resumes where it was.',
      inputSchema: z.object({ run: z.string().min(1).describe('The run id harness_execute returned.') }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    guarded(async (args: { run: string }) => {
      const view = await runs.stop(args.run);
      return toolText(runText(view, undefined), view as unknown as Record<string, unknown>);
    }),
  );
}

/** harness_checkpoints: the checkpoints waiting for a person, in one spec or all. */
function registerCheckpointsTool(server: McpServer, { cli, specs }: LocalTools): void {
  server.registerTool(
    'harness_checkpoints',
    {
      title: 'Checkpoints waiting',
      description:
        'The checkpoints plans (and phases, as phase-PP) are waiting at for a person: a decision, a human verification or an action; with the question, the options and how to answer with harness_respond.',
      inputSchema: z.object({ spec: spec.optional().describe('Only this spec; every spec of the repository when left out.') }),
      annotations: { readOnlyHint: true },
    },
    guarded(async (args: { spec?: string }) => {
      const list = args.spec === undefined ? await specs.list() : [await specs.resolve(args.spec)];
      const rows: (StatusReport['checkpoints'][number] & { spec: string })[] = [];
      for (const s of list) {
        const out = await cli(['status', s.dir, '--json']);
        if (out.code !== 0) continue;
        rows.push(...(JSON.parse(out.stdout) as StatusReport).checkpoints.map((c) => ({ spec: s.id, ...c })));
      }
      if (rows.length === 0) return toolText(`Nothing is waiting for an answer${args.spec === undefined ? '' : ` in ${list[0]!.id}`}.`, { checkpoints: [] });
      const lines = rows.map(
        (c) =>
          `${c.spec} ${c.session} asks for ${c.kind === 'decision' ? 'a decision' : c.kind === 'action' ? 'an action' : 'a verification'} (since ${c.askedAt}): ${c.prompt}${c.options.length ? `\n  options: ${c.options.join(' | ')}` : ''}\n  answer: harness_respond { "spec": "${c.spec}", "plan": "${c.session}", "answer": … }`,
      );
      return toolText(lines.join('\n'), { checkpoints: rows });
    }),
  );
}

/** harness_respond: a checkpoint answered, as `harness respond`. */
function registerRespondTool(server: McpServer, { cli, specs }: LocalTools): void {
  server.registerTool(
    'harness_respond',
    {
      title: 'Answer a checkpoint',
      description:
        'Answer the checkpoint a plan (or a phase, as phase-PP) waits at, as `harness respond` does: a running run picks it up at once, a stopped one when executed again. ' +
        'For a decision with options, the answer must be one of them; for a human verification, "approve" (or yes, ok, pass) passes it and anything else fails it with your words as the evidence.',
      inputSchema: z.object({
        spec,
        plan: z
          .string()
          .regex(/^(\d{2}-\d{2}|phase-\d{1,2})$/, 'a plan id (PP-NN) or phase-PP')
          .describe('The plan (PP-NN) or phase (phase-PP) that waits.'),
        answer: z.string().trim().min(1).max(4000).describe('The answer.'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    },
    guarded(async (args: { spec: string; plan: string; answer: string }) => {
      const s = await specs.resolve(args.spec);
      const out = await cli(['respond', s.dir, args.plan, args.answer]);
      const said = (out.stdout || out.stderr).trim().replace(/^harness respond: /, '');
      if (out.code === 1)
        throw new McpToolError(`${s.id} ${args.plan} is not waiting at a checkpoint: nothing to answer (harness_checkpoints lists what waits)`);
      if (out.code !== 0) throw new McpToolError(`${s.id} ${args.plan}: ${said}`);
      return toolText(`${s.id} ${said}`, { spec: s.id, plan: args.plan, answer: args.answer, answered: true });
    }),
  );
}

/** harness_plan_report: a plan's SUMMARY.md and the VERIFICATION.md documents. */
function registerPlanReportTool(server: McpServer, { cli, specs }: LocalTools): void {
  server.registerTool(
    'harness_plan_report',
    {
      title: "A plan's SUMMARY and VERIFICATION",
      description:
        "The SUMMARY.md a plan's attempt left (what was done, its commits, its checks' results, why it failed) and the VERIFICATION.md of the plan (from GitHub) and of its phase, read from the run's integration branch or, once merged, from the checkout.",
      inputSchema: z.object({ spec, plan: planId }),
      annotations: { readOnlyHint: true },
    },
    guarded(async (args: { spec: string; plan: string }) => {
      const s = await specs.resolve(args.spec);
      const documents = await readPlanReport(specs.root, s, args.plan);
      if (!documents.some((d) => d.kind === 'summary')) {
        const plan = (await status(cli, s)).plans.find((p) => p.id === args.plan);
        throw new McpToolError(
          `${s.id} plan ${args.plan} has no SUMMARY.md yet: it is ${plan?.state ?? 'not run'}; a summary is written when an attempt ends (harness_execute { "spec": "${s.id}", "plan": "${args.plan}" })`,
        );
      }
      const text = documents.map((d) => `=== ${d.path} (${d.from}) ===\n${d.text.trimEnd()}`).join('\n\n');
      return toolText(text, { spec: s.id, plan: args.plan, documents });
    }),
  );
}
