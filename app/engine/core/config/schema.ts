import { z } from 'zod';

/**
 * `.github/harness.yml`: every key optional, every default documented here and in the
 * README. The GitHub App reads it with `context.config`; the local runner reads the same
 * file from the checkout.
 */
export const HarnessConfigSchema = z
  .object({
    /** Where spec directories live. */
    specs_root: z.string().min(1).default('docs/specs'),
    /** Plans running at once. */
    slots: z.number().int().min(1).max(64).default(4),
    /** The agent for plans that name none. */
    agent: z.enum(['script', 'claude', 'command']).default('claude'),
    agents: z
      .object({
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
        command: z.object({ command: z.string().min(1), protocol: z.boolean().default(false) }).strict().optional(),
      })
      .strict()
      .default({}),
    /** The least permission a person needs to run a /harness command that changes anything. */
    permission: z.enum(['read', 'triage', 'write', 'maintain', 'admin']).default('write'),
  })
  .strict();

export type HarnessConfig = z.output<typeof HarnessConfigSchema>;

export const DEFAULT_CONFIG: HarnessConfig = HarnessConfigSchema.parse({});
