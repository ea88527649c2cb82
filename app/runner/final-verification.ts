import { renderTemplate } from '../engine/core/documents/render-template.js';
import { plural } from '../engine/core/plural.js';
import type { RunContext } from './context.js';
import { loadTemplate } from '../machine/templates.js';

const RESULT = { pass: 'pass', fail: 'fail', human: 'skipped-for-human' } as const;

/** FINAL-VERIFICATION.md: every phase passed on the merged work; the spec is complete. */
export async function finalVerification(ctx: RunContext): Promise<Record<string, string>> {
  const commit = await ctx.repo.revParse('HEAD', ctx.integration.worktree);
  const records = await Promise.all(ctx.spec.phases.map((p) => ctx.store.readPhase(p.id)));
  const checks = records.flatMap((r) =>
    (r?.verification.results ?? []).map((c) => ({
      id: `${r!.phase}/${c.plan ? `${c.plan}/` : ''}${c.id}`,
      type: c.type,
      result: RESULT[c.status],
      evidence: c.evidence,
      duration_seconds: Math.round(c.durationMs / 100) / 10,
    })),
  );
  const text = renderTemplate(
    await loadTemplate('VERIFICATION.md'),
    { level: 'spec', spec: ctx.spec.id, status: 'verified', verified_at: ctx.now().toISOString(), commit: commit.slice(0, 12), attempt: 1, checks },
    {
      title: `${ctx.spec.id} ${ctx.spec.title}`,
      result: `Every phase passed its verification on the merged work (${plural(ctx.spec.phases.length, 'phase')}, ${plural(ctx.spec.plans.length, 'plan')}, ${plural(checks.length, 'check')} at phase level).`,
      checks: [
        '| Phase | Check | Result |',
        '|---|---|---|',
        ...checks.map((c) => `| ${c.id.split('/')[0]} | ${c.id.slice(c.id.indexOf('/') + 1)} | ${c.result} |`),
      ].join('\n'),
      follow_up: `Review and merge \`${ctx.integration.branch}\` into \`${ctx.record.baseBranch}\`.`,
    },
  );
  return { 'execution/FINAL-VERIFICATION.md': text };
}
