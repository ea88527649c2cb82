import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { checkpointOf } from '../engine/forge/checkpoint-markers.js';
import { parseCommand, ParseError } from '../engine/forge/parse-command.js';
import { planBranch, planCheck } from '../engine/forge/names.js';
import type { Gateway } from '../gateway/gateway.js';
import { makeSafe } from '../machine/content-safety.js';
import { githubPlan, githubSpec, githubSpecs, type GitHubPlan, type GitHubSpec } from './github-specs.js';
import { guarded, McpToolError, toolText } from './tool-result.js';

export interface GitHubTools {
  github: Gateway;
  /** Values that must never be posted (the token). */
  secrets: readonly string[];
}

const specId = z
  .string()
  .regex(/^[A-Z][A-Z0-9]*-\d+$/, 'a spec id, as SPC-001')
  .describe('The spec id (SPC-001).');
const planId = z
  .string()
  .regex(/^\d{2}-\d{2}$/, 'a plan id is PP-NN, as 01-02')
  .describe('A plan id, PP-NN (01-02).');

/** A checkpoint waiting on GitHub: the plan issue at status:checkpoint, the question its worker asked, its check run. */
interface GitHubCheckpoint {
  spec: string;
  plan: string;
  issue: number;
  url: string;
  checkpoint: string | null;
  question: string | null;
  /** The plan's `harness / plan <id>` check run: `action_required` once the worker's job has ended at the question. */
  check: { id: number; status: string; conclusion: string | null; detailsUrl: string | null } | null;
}

function specLines(s: GitHubSpec): string[] {
  const counts = new Map<string, number>();
  for (const p of s.plans) counts.set(p.status, (counts.get(p.status) ?? 0) + 1);
  const summary = [...counts].map(([status, n]) => `${n} ${status}`).join(', ');
  return [
    `${s.spec}${s.pullRequest ? ` · spec PR #${s.pullRequest.number} ${s.pullRequest.url}` : ''}: ${summary}`,
    ...s.plans.map((p) => `  ${p.plan} ${p.title} — ${p.status} (#${p.issue}${p.open ? '' : ', closed'})`),
  ];
}

/**
 * Where a command about a spec is written: its spec PR (where the App's replies and the
 * status comment are), else the issue of its first plan. Either way the command names the
 * spec, so the App does not have to infer it from the place.
 */
function commandPlace(s: GitHubSpec): { number: number; what: string } {
  if (s.pullRequest) return { number: s.pullRequest.number, what: `spec PR #${s.pullRequest.number}` };
  const first = s.plans.find((p) => p.open) ?? s.plans[0]!;
  return { number: first.issue, what: `plan issue #${first.issue} (${first.plan})` };
}

/** The command text, checked against the App's own grammar before it is posted. */
function command(text: string): string {
  const parsed = parseCommand(text);
  if (parsed === undefined || parsed instanceof ParseError)
    throw new McpToolError(`"${text}" is not a command the harness App accepts${parsed ? `: ${parsed.message}` : ''}`);
  return text;
}

async function checkpointOfPlan(github: Gateway, spec: string, plan: GitHubPlan): Promise<GitHubCheckpoint> {
  // Only a bot's question counts, as the App reads it: a marker is just text, and anyone may comment.
  const asked = (await github.comments(plan.issue)).filter((c) => c.authorType === 'Bot' && checkpointOf(c.body)?.plan === plan.plan).at(-1);
  let check: GitHubCheckpoint['check'] = null;
  // The plan branch as GitHub's docs name a branch for {ref} (`heads/<branch>`); none (yet, or any more): no check run to show.
  const runs = (await github.branchCheckRuns(planBranch(spec, plan.plan), planCheck(plan.plan))) ?? [];
  const run = runs.find((r) => r.externalId === `${spec}/${plan.plan}`);
  if (run) check = { id: run.id, status: run.status, conclusion: run.conclusion, detailsUrl: run.detailsUrl ?? null };
  return {
    spec,
    plan: plan.plan,
    issue: plan.issue,
    url: plan.url,
    checkpoint: asked ? checkpointOf(asked.body)!.checkpoint : null,
    question: asked ? asked.body.split('\n').slice(1).join('\n').trim() : null,
    check,
  };
}

/**
 * The tools on GitHub, through the gateway with the person's own token. They read what the App
 * keeps (plan issues, their labels and check runs) and write only what a person may write
 * themselves: a `/harness …` comment, which the App then acts on with its own rules (who may
 * steer a plan, what runs next). Nothing here dispatches a worker or moves a label directly.
 */
export function registerGitHubTools(server: McpServer, tools: GitHubTools): void {
  const on: GitHubPlace = { ...tools, where: `${tools.github.repo.owner}/${tools.github.repo.repo}` };
  registerSpecsTool(server, on);
  registerExecuteTool(server, on);
  registerCheckpointsTool(server, on);
  registerRespondTool(server, on);
}

/** The tools' gateway and secrets, and the repository they work on as `owner/repo`. */
interface GitHubPlace extends GitHubTools {
  where: string;
}

/** harness_github_specs: the specs and their plan issues, as the App keeps them. */
function registerSpecsTool(server: McpServer, { github, where }: GitHubPlace): void {
  server.registerTool(
    'harness_github_specs',
    {
      title: 'Specs on GitHub',
      description: `The specs on ${where} as the harness App keeps them: each spec's PR and its plan issues with their status labels (planned, ready, blocked, running, checkpoint, verified, failed).`,
      inputSchema: z.object({ spec: specId.optional().describe('Only this spec; every spec with plan issues when left out.') }),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    guarded(
      async (args: { spec?: string }) => {
        const specs = args.spec === undefined ? await githubSpecs(github) : [await githubSpec(github, args.spec)];
        if (specs.length === 0)
          return toolText(`No spec has plan issues on ${where} yet: the App opens them when a spec PR is opened and valid.`, { repository: where, specs: [] });
        return toolText(specs.flatMap(specLines).join('\n'), { repository: where, specs });
      },
      (args) => `reading ${args.spec ?? 'the specs'}' plan issues on ${where} failed`,
    ),
  );
}

/** harness_github_execute: `/harness execute` posted for a spec, a phase or a plan. */
function registerExecuteTool(server: McpServer, { github, where }: GitHubPlace): void {
  server.registerTool(
    'harness_github_execute',
    {
      title: 'Execute on GitHub',
      description:
        `Ask the harness App on ${where} to execute a spec, a phase or a plan: posts the comment \`/harness execute <spec>/<target>\` on the spec PR (or a plan issue) as you, with your token. ` +
        'The App then queues the plans and its scheduling round dispatches the worker for those whose dependencies are verified; it acts only if you may steer plans there (write access), and it answers in the thread. ' +
        'Follow the plans with harness_github_specs.',
      inputSchema: z.object({
        spec: specId,
        target: z
          .string()
          .regex(/^(all|\d{1,2}|\d{2}-\d{2})$/, 'all, a phase (PP) or a plan (PP-NN)')
          .describe('all, a phase PP (02), or a plan PP-NN (02-01).'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    guarded(
      async (args: { spec: string; target: string }) => {
        const s = await githubSpec(github, args.spec);
        const target = /^\d$/.test(args.target) ? args.target.padStart(2, '0') : args.target;
        if (/^\d{2}$/.test(target) && !s.plans.some((p) => p.phase === target))
          throw new McpToolError(
            `${s.spec} has no plan issue in phase ${target} on ${where}: its phases are ${[...new Set(s.plans.map((p) => p.phase))].join(', ')}`,
          );
        if (/^\d{2}-\d{2}$/.test(target)) githubPlan(github, s, target);
        const text = command(`/harness execute ${s.spec}/${target}`);
        const place = commandPlace(s);
        const posted = await github.comment(place.number, text);
        return toolText(
          `Posted \`${text}\` on ${place.what}: ${posted.url}\nThe harness App queues the plans and answers there; harness_github_specs shows their status as it changes.`,
          {
            repository: where,
            command: text,
            issue: place.number,
            comment: { id: posted.id, url: posted.url },
          },
        );
      },
      (args) => `${args.spec}: /harness execute ${args.target} was not posted on ${where}`,
    ),
  );
}

/** harness_github_checkpoints: the plans waiting for a person, with the question asked. */
function registerCheckpointsTool(server: McpServer, { github, where }: GitHubPlace): void {
  server.registerTool(
    'harness_github_checkpoints',
    {
      title: 'Checkpoints waiting on GitHub',
      description: `The plans on ${where} waiting for a person (plan issues at status:checkpoint, their check run action_required with an Approve button): the question the worker asked on the issue, and how to answer with harness_github_respond.`,
      inputSchema: z.object({ spec: specId.optional().describe('Only this spec; every spec when left out.') }),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    guarded(
      async (args: { spec?: string }) => {
        const specs = args.spec === undefined ? await githubSpecs(github) : [await githubSpec(github, args.spec)];
        const waiting: GitHubCheckpoint[] = [];
        for (const s of specs)
          for (const p of s.plans.filter((x) => x.status === 'checkpoint' && x.open)) waiting.push(await checkpointOfPlan(github, s.spec, p));
        if (waiting.length === 0)
          return toolText(`Nothing waits for an answer on ${where}${args.spec ? ` in ${args.spec}` : ''}.`, { repository: where, checkpoints: [] });
        const lines = waiting.map(
          (c) =>
            `${c.spec} ${c.plan} (#${c.issue} ${c.url})${c.check ? ` · check run ${c.check.conclusion ?? c.check.status}` : ''}: ${c.question ?? 'no question found on the issue'}\n  answer: harness_github_respond { "spec": "${c.spec}", "plan": "${c.plan}", "answer": … }`,
        );
        return toolText(lines.join('\n'), { repository: where, checkpoints: waiting });
      },
      (args) => `reading ${args.spec ?? 'the specs'}' checkpoints on ${where} failed`,
    ),
  );
}

/** harness_github_respond: `/harness respond` posted for a plan at a checkpoint, its answer refused if it holds a secret. */
function registerRespondTool(server: McpServer, { github, secrets, where }: GitHubPlace): void {
  server.registerTool(
    'harness_github_respond',
    {
      title: 'Answer a checkpoint on GitHub',
      description:
        `Answer a plan waiting at a checkpoint on ${where}: posts \`/harness respond <spec>/<plan> <answer>\` on the plan issue as you. ` +
        'The App records the answer under the question, sets the plan running and dispatches the worker to resume; "approve" passes a human check. It acts only if you may steer plans there.',
      inputSchema: z.object({
        spec: specId,
        plan: planId,
        answer: z
          .string()
          .trim()
          .min(1)
          .max(1000)
          .regex(/^[^\r\n]+$/, "one line: the App reads the answer from the command's line")
          .describe('The answer, on one line.'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    guarded(
      async (args: { spec: string; plan: string; answer: string }) => {
        const s = await githubSpec(github, args.spec);
        const plan = githubPlan(github, s, args.plan);
        if (plan.status !== 'checkpoint')
          throw new McpToolError(
            `${s.spec} plan ${plan.plan} (#${plan.issue}) is ${plan.status}, not waiting at a checkpoint: nothing to answer (harness_github_checkpoints lists what waits)`,
          );
        const safe = await makeSafe(args.answer, { secrets });
        if (safe.redactions.length > 0) {
          throw new McpToolError(
            `the answer for ${s.spec} plan ${plan.plan} holds what looks like a secret (${[...new Set(safe.redactions.map((r) => r.rule))].join(', ')}): nothing was posted; answer without it`,
          );
        }
        const text = command(`/harness respond ${s.spec}/${plan.plan} ${safe.text}`);
        const posted = await github.comment(plan.issue, text);
        return toolText(`Posted \`${text}\` on #${plan.issue}: ${posted.url}\nThe harness App records the answer and resumes the plan's worker.`, {
          repository: where,
          command: text,
          issue: plan.issue,
          comment: { id: posted.id, url: posted.url },
        });
      },
      (args) => `${args.spec} plan ${args.plan}: the answer was not posted on ${where}`,
    ),
  );
}
