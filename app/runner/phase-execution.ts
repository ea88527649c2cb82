import { renderVerification } from '../engine/core/verify/render-verification.js';
import { verifyPhase } from '../engine/core/verify/levels.js';
import type { Phase } from '../engine/core/spec/model.js';
import { localVerifyPorts } from '../machine/verify-ports.js';
import { systemClock } from '../machine/clock.js';
import type { RunContext } from './context.js';
import { commitDocuments, executionDir, noteActivity } from './documents.js';
import { verifyWithPeople } from './plan-execution.js';
import { phaseSession } from './run-state.js';
import { loadTemplate } from '../machine/templates.js';

/**
 * Phase-level verification on the merged work: every plan's checks again, then the
 * phase's own. It holds the integration worktree for its whole length so that no merge
 * changes the tree under the checks. The outcome is VERIFICATION.md in the phase's
 * execution directory; a failed phase blocks the plans that depend on it.
 */
export async function executePhase(ctx: RunContext, phase: Phase): Promise<void> {
  ctx.schedule.setPhase(phase.id, 'verifying');
  ctx.reporter.event({ kind: 'phase-verifying', phase: phase.id });
  await ctx.mutex.run(async () => {
    const commit = await ctx.repo.revParse('HEAD', ctx.integration.worktree);
    const report = await verifyWithPeople(ctx, phaseSession(phase.id), (answers) => {
      const ports = localVerifyPorts(ctx.integration.worktree, { env: ctx.options.env ?? {}, clock: systemClock(ctx.now) });
      return verifyPhase(ctx.spec, phase, ports, { answers }).finally(() => ports.close());
    });
    const outcome = report.status === 'pass' ? 'verified' : 'failed';
    const previous = await ctx.store.readPhase(phase.id);
    const document = renderVerification(report, {
      template: await loadTemplate('VERIFICATION.md'),
      title: `phase ${phase.id} · ${phase.title}`,
      commit: commit.slice(0, 12),
      attempt: previous ? 2 : 1,
    });
    ctx.schedule.setPhase(phase.id, outcome);
    noteActivity(ctx, `phase ${phase.id} ${outcome}`);
    await commitDocuments(ctx, { [`${executionDir(phase)}/VERIFICATION.md`]: document }, `phase ${phase.id} ${outcome}`);
    await ctx.store.writePhase({ phase: phase.id, outcome, verification: report, at: ctx.now().toISOString() });
    if (outcome === 'verified') ctx.reporter.event({ kind: 'phase-verified', phase: phase.id });
    else {
      const failed = report.results.filter((r) => r.status === 'fail');
      const reason = failed.length > 0 ? failed.map((r) => `${r.plan ? `${r.plan}/` : ''}${r.id} (${r.evidence.split('\n')[0]})`).join('; ') : (report.problems[0] ?? 'verification did not pass');
      ctx.reporter.event({ kind: 'phase-failed', phase: phase.id, reason });
    }
  });
}
