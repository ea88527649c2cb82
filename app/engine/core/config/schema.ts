import { z } from 'zod';
import { FALLBACK_ENGINES } from '../spec/schema.js';
import { networkEntryProblem } from '../agents/sandbox.js';

/** A host pattern or an ecosystem set (engine/core/agents/sandbox.ts), said plainly when it is neither. */
const NetworkEntry = z.string().superRefine((entry, ctx) => {
  const problem = networkEntryProblem(entry);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * `.github/harness.yml`: every key optional, every default documented here and in
 * docs/agents.md (Configuration). The GitHub App reads it with `context.config`; the local runner reads the same
 * file from the checkout.
 */
export const HarnessConfigSchema = z
  .object({
    /** Where spec directories live. */
    specs_root: z.string().min(1).default('docs/specs'),
    /** Plans running at once. */
    slots: z.number().int().min(1).max(64).default(4),
    /**
     * How far ahead of the scheduler a large spec's plans become issues: phases, in order, until
     * this many plans not yet done have issues (app/engine/forge/issue-window.ts). Unset: twice
     * `slots`, and never fewer than 100. A spec this size or smaller gets every issue at once.
     */
    issue_window: z.number().int().min(1).optional(),
    /** The most one spec's agents may spend together, in US dollars (each plan's own budget_usd caps it further). */
    budget_usd: z.number().positive().optional(),
    /**
     * Spend caps across every plan of the repository, in US dollars, from the costs the workers record:
     * `per_day_usd` over a rolling 24 hours, `per_spec_usd` over a spec's plans. At a cap no new plan
     * starts; a plan already running finishes (app/engine/core/run/spend-caps.ts).
     */
    budget: z
      .object({
        per_day_usd: z.number().positive().optional(),
        per_spec_usd: z.number().positive().optional(),
      })
      .strict()
      .optional(),
    /**
     * The agents' network, behind the sandbox (`harness run --sandbox`; on a runner whenever this
     * section is present): the hosts they may reach beyond their engine's API and GitHub, by name,
     * wildcard (`*.corp.dev`) or ecosystem set (`node`, `python`, …); `blocked` wins over `allowed`
     * (docs/security.md, Network sandbox).
     */
    network: z
      .object({
        allowed: z.array(NetworkEntry).max(500).default([]),
        blocked: z.array(NetworkEntry).max(500).default([]),
      })
      .strict()
      .optional(),
    /** The agent for plans that name none. */
    agent: z.enum(['script', 'claude', 'command', 'codex', 'copilot', 'gemini']).default('claude'),
    agents: z
      .object({
        /**
         * The engines that take a plan over, in order, when its agent stops at the model's usage
         * limit: the next one that has its credential, with a new session told what the earlier
         * engine did. No fallback on any other failure (docs/agents.md, Fallback engines).
         */
        fallback: z.array(z.enum(FALLBACK_ENGINES)).max(FALLBACK_ENGINES.length).optional(),
        claude: z
          .object({
            executable: z.string().optional(),
            permission_mode: z.string().optional(),
            allowed_tools: z.array(z.string()).optional(),
            max_turns: z.number().int().positive().optional(),
            model: z.string().optional(),
            extra_args: z.array(z.string()).optional(),
          })
          .strict()
          .optional(),
        /** The OpenAI Codex CLI (docs/agents/codex.md). */
        codex: z
          .object({
            executable: z.string().optional(),
            /** sandbox_mode for the agent's commands; workspace-write locally, danger-full-access on a runner unless set. */
            sandbox: z.enum(['read-only', 'workspace-write', 'danger-full-access']).optional(),
            max_turns: z.number().int().positive().optional(),
            model: z.string().optional(),
            /** US dollars a million tokens: Codex reports tokens only, so a cost (and a budget) needs the price. */
            price: z
              .object({ input_per_million: z.number().min(0), cached_input_per_million: z.number().min(0).optional(), output_per_million: z.number().min(0) })
              .strict()
              .optional(),
            extra_args: z.array(z.string()).optional(),
          })
          .strict()
          .optional(),
        command: z
          .object({ command: z.string().min(1), protocol: z.boolean().default(false) })
          .strict()
          .optional(),
        gemini: z
          .object({
            executable: z.string().optional(),
            /** --approval-mode: default, auto_edit, yolo or plan. */
            approval_mode: z.enum(['default', 'auto_edit', 'yolo', 'plan']).optional(),
            max_turns: z.number().int().positive().optional(),
            model: z.string().optional(),
            extra_args: z.array(z.string()).optional(),
            /** US dollars per million input and output tokens: Gemini CLI reports tokens, not cost. */
            price: z
              .object({ input_per_million: z.number().min(0), output_per_million: z.number().min(0) })
              .strict()
              .optional(),
          })
          .strict()
          .optional(),
        copilot: z
          .object({
            executable: z.string().optional(),
            /** --allow-tool patterns; without them --allow-all-tools. */
            allowed_tools: z.array(z.string()).optional(),
            max_turns: z.number().int().positive().optional(),
            model: z.string().optional(),
            /** US dollars: Copilot CLI reports tokens and premium requests, no cost. */
            price: z
              .object({
                input_per_million: z.number().min(0).optional(),
                output_per_million: z.number().min(0).optional(),
                per_premium_request: z.number().min(0).optional(),
              })
              .strict()
              .optional(),
            extra_args: z.array(z.string()).optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .default({}),
    /**
     * A plan that changes a file its `files_modified` does not cover fails, instead of being merged
     * with the write recorded as a deviation (its SUMMARY, the run's STATUS.md activity): the
     * scheduler keeps parallel plans apart only by their declared files.
     */
    strict_files: z.boolean().default(false),
    /** The least permission a person needs to run a /harness command that changes anything. */
    permission: z.enum(['read', 'triage', 'write', 'maintain', 'admin']).default('write'),
    /** The learning loop: what is captured, when reflection runs, how much is surfaced (docs/design.md, Knowledge). */
    knowledge: z
      .object({
        /** A separate knowledge repository (`owner/name`), for learning across projects; else this repository's `.harness/knowledge/`. */
        repository: z
          .string()
          .regex(/^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+$/)
          .optional(),
        capture: z
          .object({
            /** Capture signals at all. */
            enabled: z.boolean().default(true),
            /** Signals one phase of one run may write at most: a bad run must not flood the store. */
            max_per_phase: z.number().int().min(1).max(1000).default(20),
          })
          .strict()
          .default({ enabled: true, max_per_phase: 20 }),
        reflect: z
          .object({
            /** Reflect when a phase is verified, and when a whole spec is. */
            on_phase: z.boolean().default(false),
            on_spec: z.boolean().default(true),
            /** The weight a pattern needs (each signal counts by its severity: low 1, medium 2, high 3). */
            min_weight: z.number().positive().max(1000).default(4),
            /** The distinct plans (or projects) a pattern must span: a one-off is never a lesson. */
            min_plans: z.number().int().min(2).max(100).default(2),
            /** How alike (cosine of their words, 0 to 1) signals must be to be one pattern, and a pattern to be an existing lesson's; default 0.35. */
            similarity: z.number().min(0.05).max(1).optional(),
            /** The reflector agent that writes each lesson; without one, harness drafts lessons from their evidence. */
            agent: z.enum(['claude', 'command']).optional(),
            /** The reflector's own command when agent is command (the prompt on stdin, the lesson on stdout); default agents.command.command. */
            command: z.string().min(1).optional(),
            /** Minutes the reflector may take for one lesson; default 10. */
            timeout_minutes: z.number().int().min(1).max(120).optional(),
          })
          .strict()
          .default({ on_phase: false, on_spec: true, min_weight: 4, min_plans: 2 }),
        surface: z
          .object({
            /** Tokens of the brief the surfaced knowledge may take, about four characters each. */
            budget_tokens: z.number().int().min(0).max(20_000).default(500),
            /** Lessons, skills and genes surfaced at most. */
            max_entries: z.number().int().min(0).max(50).default(5),
          })
          .strict()
          .default({ budget_tokens: 500, max_entries: 5 }),
        /**
         * The share of plans (0 to 1) that run without surfaced knowledge, so that `harness retrospective`
         * can compare them with the rest (docs/knowledge.md, The holdout). 0, the default, holds none out.
         */
        holdout: z.number().min(0).max(1).default(0),
        /** With the spec's and the plan's ids, what decides which plans are held out (engine/knowledge/holdout/holdout.ts): another seed holds out other plans. */
        holdout_seed: z.string().min(1).max(200).default('harness'),
        /** Skills (docs/design.md, Knowledge, Skills): when extraction runs by itself, how much a lesson needs, what an audit prunes. */
        skills: z
          .object({
            /** Extract after each kind of work is verified: a plan (execution), a phase (verification), planning and research. */
            extract: z
              .object({
                execution: z.boolean().default(true),
                verification: z.boolean().default(true),
                planning: z.boolean().default(false),
                research: z.boolean().default(false),
              })
              .strict()
              .default({ execution: true, verification: true, planning: false, research: false }),
            /** Evidence a lesson needs to be a candidate skill. */
            lesson_evidence: z.number().int().min(1).max(1000).default(3),
            /** `harness skills --prune`: archive a skill unused this many days, or matched fewer than min_matches times once that old. */
            prune: z
              .object({ unused_days: z.number().int().min(1).max(3650).default(90), min_matches: z.number().int().min(0).max(1000).default(2) })
              .strict()
              .default({ unused_days: 90, min_matches: 2 }),
          })
          .strict()
          .default({
            extract: { execution: true, verification: true, planning: false, research: false },
            lesson_evidence: 3,
            prune: { unused_days: 90, min_matches: 2 },
          }),
        /** A gene's life (docs/design.md, Genes): solidify, tiers, decay, and its share of a brief; each key has the default shown. */
        genes: z
          .object({
            solidify_after: z.number().int().min(2).max(100).default(2),
            min_success: z.number().min(0).max(1).default(0.7),
            min_uses: z.number().int().min(1).max(1000).default(2),
            min_gdi: z.number().min(0).max(1).default(0.6),
            max_impact_files: z.number().int().min(0).max(10_000).default(5),
            deprecate_days: z.number().min(1).max(3650).default(7),
            demote_below: z.number().min(0).max(1).default(0.5),
            remove_days: z.number().min(1).max(3650).default(14),
            candidate_share: z.number().min(0).max(1).default(0.3),
          })
          .strict()
          .optional(),
        /** The shared knowledge repository (`owner/name`) that publishable genes and skills are proposed to, by a PR there. */
        shared: z
          .string()
          .regex(/^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+$/)
          .optional(),
        spike: z
          .object({
            /** The agent that runs spikes, when it is not the repository's `agent` (a repository whose plans are all scripts). */
            agent: z.enum(['claude', 'command']).optional(),
          })
          .strict()
          .optional(),
      })
      .strict()
      .default({
        capture: { enabled: true, max_per_phase: 20 },
        reflect: { on_phase: false, on_spec: true, min_weight: 4, min_plans: 2 },
        surface: { budget_tokens: 500, max_entries: 5 },
        holdout: 0,
        holdout_seed: 'harness',
        skills: {
          extract: { execution: true, verification: true, planning: false, research: false },
          lesson_evidence: 3,
          prune: { unused_days: 90, min_matches: 2 },
        },
      }),
    /** The planning commands (plan-spec, plan-phase, …): the agent that writes the documents, when it is not the repository's `agent`. */
    planning: z
      .object({
        agent: z.enum(['claude', 'command']).optional(),
        /**
         * While a phase executes, idle slots research the next two phases on the worker (research
         * documents, as pull requests). On unless set to false, whenever an agent can research
         * (the planning agent is not the script agent): it spends agent time in slots that would idle.
         */
        research_ahead: z.boolean().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type HarnessConfig = z.output<typeof HarnessConfigSchema>;

export const DEFAULT_CONFIG: HarnessConfig = HarnessConfigSchema.parse({});
