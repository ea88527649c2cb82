import { z } from 'zod';

/** The engines that can take a plan over at another's usage limit (agents.fallback): every model-driven agent, not the script agent. */
export const FALLBACK_ENGINES = ['claude', 'codex', 'gemini', 'copilot', 'command'] as const;

/**
 * The spec formats as zod schemas: the single source for validation, for the types the
 * engine works with, and for the JSON Schema editors use to check PLAN.md frontmatter.
 * Field names follow docs/design.md (snake_case, as people write YAML).
 */

// Bounded: a phase is at most 999 and a spec holds at most 50,000 plans, and an unbounded
// run of digits (30,000 of them) once reached code that does work in the square of its length.
export const PLAN_ID = /^\d{2,3}-\d{2,5}$/;
export const SPEC_ID = /^[A-Z][A-Z0-9]*-\d+$/;
export const CHECK_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * A title becomes an issue title, a commit subject and a terminal line: one line, with no
 * control character (Unicode category Cc: a NUL killed every merge, a newline forged a commit
 * trailer), no line or paragraph separator, and no format character (category Cf): the bidi
 * embeddings, overrides, isolates and marks (U+202E makes a title read backwards in ROADMAP,
 * STATUS, SUMMARY, issue titles and commit subjects, showing what it does not say), and the
 * zero-width ones (U+200B, U+200D, U+2060, U+FEFF), which make two titles that read alike
 * differ, or hide a word from a search.
 */
export const SINGLE_LINE = /^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$/u;
const title = z.string().min(1).max(200).regex(SINGLE_LINE);

const planId = z.string().regex(PLAN_ID).meta({ description: 'A plan id PP-NN, where PP is the phase: "03-02".' });
const repoPath = z.string().min(1).meta({ description: 'A path relative to the repository root; never absolute, never with "..".' });
const glob = z.string().min(1).meta({ description: 'A glob relative to the repository root, e.g. "src/auth/**".' });
const command = z.string().min(1).meta({ description: 'A shell command, run with sh from the repository root.' });

/** A server the api and ui checks talk to: started before the checks, stopped after. */
export const ServeSchema = z
  .object({
    command: command,
    url: z
      .string()
      .regex(/^https?:\/\/[^\s/]+/, 'an http(s) URL')
      .meta({ description: 'Base URL, e.g. http://127.0.0.1:3000' }),
    ready_path: z.string().optional().meta({ description: 'Path polled until it answers (default "/").' }),
    timeout_seconds: z.number().int().positive().max(600).optional(),
  })
  .strict();

const base = {
  id: z.string().regex(CHECK_ID),
  description: z.string().optional(),
  timeout_seconds: z.number().int().positive().max(3600).optional(),
};

const commandCheck = { ...base, command, cwd: repoPath.optional() };

export const FileExistsCheck = z.object({ ...base, type: z.literal('file_exists'), path: repoPath }).strict();
export const FileContainsCheck = z
  .object({
    ...base,
    type: z.literal('file_contains'),
    path: repoPath,
    contains: z.string().min(1).optional(),
    pattern: z.string().min(1).optional().meta({ description: 'A JavaScript regular expression.' }),
  })
  .strict();
export const CommandOutputCheck = z
  .object({
    ...commandCheck,
    type: z.literal('command_output'),
    expect: z
      .object({
        exit_code: z.number().int().min(0).max(255).optional(),
        contains: z.string().optional(),
        matches: z.string().optional(),
      })
      .strict(),
  })
  .strict();
export const BuildSucceedsCheck = z.object({ ...commandCheck, type: z.literal('build_succeeds') }).strict();
export const TestsPassCheck = z.object({ ...commandCheck, type: z.literal('tests_pass') }).strict();
export const ApiResponseCheck = z
  .object({
    ...base,
    type: z.literal('api_response'),
    request: z
      .string()
      .regex(/^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) \S+$/, 'METHOD /path')
      .meta({ description: '"POST /api/auth/login", or with an absolute URL.' }),
    headers: z.record(z.string(), z.string()).optional(),
    body: z.unknown().optional(),
    expect: z
      .object({
        status: z.number().int().min(100).max(599).optional(),
        body_contains: z.string().optional(),
        json: z.unknown().optional().meta({ description: 'A JSON value the response must contain (a subset match).' }),
      })
      .strict(),
  })
  .strict();
const uiStep = z.union([
  z.object({ goto: z.string() }).strict(),
  z.object({ click: z.string() }).strict(),
  z.object({ fill: z.string(), value: z.string() }).strict(),
  z.object({ press: z.string(), key: z.string() }).strict(),
  z.object({ wait_for: z.string() }).strict(),
]);
export const UiElementExistsCheck = z
  .object({
    ...base,
    type: z.literal('ui_element_exists'),
    url: z.string().min(1),
    selector: z.string().min(1),
    text: z.string().optional(),
  })
  .strict();
export const UiNavigationCheck = z
  .object({
    ...base,
    type: z.literal('ui_navigation'),
    url: z.string().min(1),
    steps: z.array(uiStep).min(1),
    expect: z.object({ url: z.string().optional(), selector: z.string().optional(), text: z.string().optional() }).strict(),
  })
  .strict();
const humanKind = z.enum(['visual_quality', 'ux_flow']);
export const HumanCheck = z.object({ ...base, type: z.literal('human'), kind: humanKind, prompt: z.string().min(1) }).strict();
/** docs/design.md's two human kinds, accepted as types of their own. */
export const VisualQualityCheck = z.object({ ...base, type: z.literal('visual_quality'), prompt: z.string().min(1) }).strict();
export const UxFlowCheck = z.object({ ...base, type: z.literal('ux_flow'), prompt: z.string().min(1) }).strict();
/** GSD's must_haves.artifacts: a file with real substance, not just existence. */
export const ArtifactCheck = z
  .object({
    ...base,
    type: z.literal('artifact'),
    path: repoPath,
    provides: z.string().optional(),
    min_lines: z.number().int().positive().optional(),
    exports: z.array(z.string().min(1)).optional(),
    contains: z.string().min(1).optional(),
  })
  .strict();
/** GSD's must_haves.key_links: one artifact really wired to another. */
export const KeyLinkCheck = z
  .object({
    ...base,
    type: z.literal('key_link'),
    from: repoPath,
    to: z.string().min(1),
    via: z.string().optional(),
    pattern: z.string().min(1).optional(),
  })
  .strict();

export const CHECK_SCHEMAS = {
  file_exists: FileExistsCheck,
  file_contains: FileContainsCheck,
  command_output: CommandOutputCheck,
  build_succeeds: BuildSucceedsCheck,
  tests_pass: TestsPassCheck,
  api_response: ApiResponseCheck,
  ui_element_exists: UiElementExistsCheck,
  ui_navigation: UiNavigationCheck,
  human: HumanCheck,
  visual_quality: VisualQualityCheck,
  ux_flow: UxFlowCheck,
  artifact: ArtifactCheck,
  key_link: KeyLinkCheck,
} as const;

export type CheckType = keyof typeof CHECK_SCHEMAS;
export const CHECK_TYPES = Object.keys(CHECK_SCHEMAS) as CheckType[];

export const CheckSchema = z.discriminatedUnion('type', [
  FileExistsCheck,
  FileContainsCheck,
  CommandOutputCheck,
  BuildSucceedsCheck,
  TestsPassCheck,
  ApiResponseCheck,
  UiElementExistsCheck,
  UiNavigationCheck,
  HumanCheck,
  VisualQualityCheck,
  UxFlowCheck,
  ArtifactCheck,
  KeyLinkCheck,
]);

/** A check as written; `Check` (model.ts) is the normalised form. */
export type CheckInput = z.infer<typeof CheckSchema>;

export const CHECKPOINT_KINDS = ['decision', 'verification', 'action'] as const;

/** PLAN.md frontmatter, harness's own form. */
export const PlanFrontmatterSchema = z
  .object({
    plan_id: planId,
    title,
    depends_on: z.array(planId).default([]),
    files_modified: z.array(glob).default([]),
    files_read: z.array(glob).default([]),
    autonomous: z.boolean().default(true),
    checkpoints: z.array(z.enum(CHECKPOINT_KINDS)).default([]),
    agent: z
      .string()
      .regex(/^[a-z][a-z0-9-]*$/)
      .optional()
      .meta({ description: 'script, claude, command, codex, copilot or gemini; else the repository default.' }),
    fallback: z.array(z.enum(FALLBACK_ENGINES)).max(FALLBACK_ENGINES.length).optional().meta({
      description:
        "Engines that take the plan over, in order, when its agent stops at the model's usage limit (each one that has its credential); else agents.fallback of .github/harness.yml.",
    }),
    timeout_minutes: z.number().int().positive().max(360).default(30).meta({ description: 'At most 360: GitHub-hosted jobs stop after six hours.' }),
    must_pass: z.array(CheckSchema).default([]),
    budget_usd: z
      .number()
      .positive()
      .optional()
      .meta({ description: "The most the plan's agent may spend, in US dollars, as it reports its cost; over it the plan fails." }),
    serve: ServeSchema.optional(),
    requirements: z.array(z.string().min(1)).default([]),
    truths: z.array(z.string().min(1)).default([]).meta({ description: 'Observable behaviours, for people and agents.' }),
    metadata: z.record(z.string(), z.unknown()).optional().meta({ description: 'Anything of your own: harness keeps it and reads none of it.' }),
    completed: z
      .union([z.string().min(1), z.literal(true)])
      .optional()
      .meta({
        description:
          'Done before harness (an imported GSD plan whose SUMMARY.md says so): the date, or true. harness run counts it verified and does not run it.',
      }),
    // Read for GSD compatibility; the graph decides order, so these are ignored.
    wave: z.number().int().optional(),
    type: z.string().optional(),
  })
  .strict()
  .meta({ title: 'harness PLAN.md frontmatter', description: 'See docs/design.md, "PLAN.md frontmatter".' });

export type PlanFrontmatter = z.output<typeof PlanFrontmatterSchema>;

/** SPEC.md frontmatter. The rest of SPEC.md is the author's. */
export const SpecFrontmatterSchema = z
  .object({
    id: z.string().regex(SPEC_ID),
    title,
  })
  .passthrough();

const phaseId = z.union([z.string().regex(/^\d{1,3}$/), z.number().int().min(0).max(999)]).transform((v) => String(v).padStart(2, '0'));

export const RoadmapPhaseSchema = z
  .object({
    id: phaseId,
    title,
    goal: z.string().optional(),
    must_pass: z.array(CheckSchema).default([]),
    serve: ServeSchema.optional(),
  })
  .strict();

/** ROADMAP.md frontmatter: the phases, in order, with their phase-level checks. */
export const RoadmapFrontmatterSchema = z
  .object({
    phases: z.array(RoadmapPhaseSchema).default([]),
  })
  .passthrough();

/** The JSON Schema editors use for PLAN.md frontmatter (`npm run schema` writes it). */
export function planJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(PlanFrontmatterSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
