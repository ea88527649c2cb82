import { parseFrontmatter } from '../../core/spec/frontmatter.js';

/**
 * Does a GSD SUMMARY.md report its plan done? GSD writes one when a plan's execution ends, and
 * marks a finished one with `completed: 2026-01-23` in its frontmatter (or a "**Completed:**"
 * line). It also writes one for a plan that stopped part way: "Tasks: 1 of 2 (…awaiting
 * browser verification)", "Self-Check: FAILED", `status: partial`. Only a summary that says
 * done, and nothing that says otherwise, makes the imported plan done.
 */
export type SummaryStatus = { done: true; completed: string } | { done: false; reason: string };

const NOT_DONE_STATUS = /^(?:partial|blocked|failed|failing|in[\s_-]?progress|incomplete|paused|pending|gaps[\s_-]found|started)$/i;

export function summaryStatus(text: string): SummaryStatus {
  const fm = parseFrontmatter('SUMMARY.md', text, false);
  const data = fm.ok ? fm.frontmatter.data : {};
  const body = fm.ok ? fm.frontmatter.body : text;

  const status = typeof data.status === 'string' ? data.status.trim() : undefined;
  if (status !== undefined && NOT_DONE_STATUS.test(status)) return { done: false, reason: `its status is "${status}"` };
  const selfCheck = /Self-Check:\s*\**\s*(FAILED|PENDING|PARTIAL)/i.exec(body);
  if (selfCheck) return { done: false, reason: `its self-check is ${selfCheck[1]!.toUpperCase()}` };
  const tasks = /\*\*Tasks:?\*\*:?\s*(\d+)\s+of\s+(\d+)/i.exec(body);
  if (tasks && Number(tasks[1]) < Number(tasks[2])) return { done: false, reason: `it reports ${tasks[1]} of ${tasks[2]} tasks done` };

  // Newer GSD versions nest it: `metrics: { completed: "2026-03-30" }` or `completed_date`.
  const metrics = (data.metrics ?? {}) as Record<string, unknown>;
  const completed =
    [data.completed, data.completed_date, metrics.completed, metrics.completed_date].map(dateOf).find((d) => d !== undefined) ??
    dateOf(/\*\*Completed:?\*\*:?\s*(\d{4}-\d{2}-\d{2})/.exec(body)?.[1]);
  if (completed) return { done: true, completed };
  if (status !== undefined && /^(?:complete|completed|done|passed|verified)$/i.test(status)) return { done: true, completed: status.toLowerCase() };
  return { done: false, reason: 'it has no completed: date (GSD writes one when a plan is done)' };
}

function dateOf(value: unknown): string | undefined {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  const m = /^(\d{4}-\d{2}-\d{2})/.exec(String(value ?? '').trim());
  return m?.[1];
}
