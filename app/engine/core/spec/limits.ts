/**
 * Size limits on spec input, each with the reason it exists. Validation states the
 * limit in its message, so a user knows what to aim for.
 */

/**
 * A plan's Markdown becomes the body of its GitHub issue, and GitHub rejects issue
 * bodies over 65,536 characters; the rest of the budget is harness's own header,
 * marker and links.
 */
export const MAX_PLAN_BYTES = 60_000;

/** SPEC.md, ROADMAP.md and other documents: generous, but bounded so one file cannot stall a run. */
export const MAX_DOCUMENT_BYTES = 1_048_576;

/** Frontmatter is metadata; anything larger than this is a mistake (a pasted file, a runaway list). */
export const MAX_FRONTMATTER_BYTES = 32_768;

/** A spec this large is several specs; the bound keeps graph work and GitHub syncs tractable. */
export const MAX_PLANS_PER_SPEC = 50_000;

export function formatBytes(n: number): string {
  if (n >= 1_048_576 && n % 1_048_576 === 0) return `${n / 1_048_576} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n.toLocaleString('en-US')} bytes`;
}
