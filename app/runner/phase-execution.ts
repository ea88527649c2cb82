import type { Phase } from '../engine/core/spec/model.js';
import { renderVerification } from '../engine/core/verify/render-verification.js';
import { phaseCompletion } from '../engine/lifecycle/signals.js';
import { withOutcomes } from '../engine/knowledge/signals/plan-outcome.js';
import { summaryOutcomes } from '../machine/summary-outcomes.js';
import { verifyPhaseLevel, type PhaseOutcome } from '../engine/lifecycle/verify-phase.js';
import { follow } from '../engine/lifecycle/heartbeat.js';
import type { Progress } from '../engine/lifecycle/ports.js';
import { planImports } from '../machine/source-imports.js';
import { localVerifyPorts } from '../machine/verify-ports.js';
import { loadTemplate } from '../machine/templates.js';
import { localAnswers, planApprovals } from './answers.js';
import { fileKnowledge } from './capture.js';
import type { RunContext } from './context.js';
import { commitDocuments, executionDir, noteActivity } from './documents.js';
import { reflectDuringRun } from './reflection.js';
import { extractDuringRun } from './skill-extraction.js';
import { phaseSession } from './run-state.js';

/**
 * Phase-level verification on the merged work. It holds the integration worktree for its
 * whole length so that no merge changes the tree under the checks. The outcome is
 * VERIFICATION.md in the phase's execution directory; a failed phase blocks the plans that
 * depend on it.
 */
export async function executePhase(ctx: RunContext, phase: Phase): Promise<void> {
  ctx.schedule.setPhase(phase.id, 'verifying');
  ctx.reporter.event({ kind: 'phase-verifying', phase: phase.id });
  await ctx.mutex.run(async () => {
    const commit = await ctx.repo.revParse('HEAD', ctx.integration.worktree);
    const outcome = await verifyMergedWork(ctx, phase);
    const { report } = outcome;
    const previous = await ctx.store.readPhase(phase.id);
    const document = renderVerification(report, {
      template: await loadTemplate('VERIFICATION.md'),
      title: `phase ${phase.id} · ${phase.title}`,
      commit: commit.slice(0, 12),
      attempt: previous ? 2 : 1,
    });
    ctx.schedule.setPhase(phase.id, outcome.kind);
    noteActivity(ctx, `phase ${phase.id} ${outcome.kind}`);
    // A verified phase is one completion signal, whatever the number of its plans.
    const knowledge = outcome.kind === 'verified' ? await fileCompletion(ctx, phase, report) : [];
    await commitDocuments(
      ctx,
      { [`${executionDir(phase)}/VERIFICATION.md`]: document },
      `phase ${phase.id} ${outcome.kind}`,
      [],
      [],
      knowledge,
      `phase ${phase.id} attempt ${previous ? 2 : 1} ${outcome.kind}`,
    );
    await ctx.store.writePhase({ phase: phase.id, outcome: outcome.kind, verification: report, at: ctx.now().toISOString() });
    ctx.reporter.event(
      outcome.kind === 'verified' ? { kind: 'phase-verified', phase: phase.id } : { kind: 'phase-failed', phase: phase.id, reason: outcome.reason },
    );
  });
  if (ctx.schedule.phase(phase.id) === 'verified') {
    await reflectDuringRun(ctx, { phase: phase.id });
    await extractDuringRun(ctx, phase);
  }
}

/** The phase's checks run on the integration worktree (engine/lifecycle/verify-phase.ts), their time added to the run's. */
async function verifyMergedWork(ctx: RunContext, phase: Phase): Promise<PhaseOutcome> {
  // While it runs, a silence says which check runs and for how long (engine/lifecycle/heartbeat.ts).
  const followed = follow(
    ctx.heartbeat,
    { phase: phase.id },
    {
      verifyPorts: () => localVerifyPorts(ctx.integration.worktree, { env: ctx.options.env ?? {}, clock: ctx.clock, processes: ctx.store.processes() }),
      answers: localAnswers(ctx, phaseSession(phase.id), await planApprovals(ctx, phase)),
      progress: { event: () => undefined, stage: (_title, work) => work() } satisfies Progress,
      clock: ctx.clock,
    },
  );
  const outcome = await verifyPhaseLevel(ctx.spec, phase, followed.ports).finally(() => followed.end());
  ctx.timing.verifyMs += outcome.verifyMs;
  return outcome;
}

/** A verified phase's completion signal filed as knowledge (capture.ts): the paths to commit with its verification. */
async function fileCompletion(ctx: RunContext, phase: Phase, report: PhaseOutcome['report']): Promise<string[]> {
  return fileKnowledge(ctx, {
    // With each plan's outcome for the holdout comparison, read from its SUMMARY.md, as a runner reads it.
    drafts: [
      withOutcomes(
        phaseCompletion({
          spec: ctx.spec.id,
          phase,
          plans: phase.plans.map((id) => ctx.spec.planById.get(id)!),
          imports: await planImports(
            ctx.integration.worktree,
            phase.plans.map((id) => ctx.spec.planById.get(id)!),
          ),
          done: phase.plans.map((id) => {
            const minutes = ctx.state.minutes.get(id);
            const attempt = ctx.state.statuses.get(id)?.attempt;
            return {
              id,
              title: ctx.spec.planById.get(id)!.title,
              ...(attempt === undefined ? {} : { attempts: attempt }),
              ...(minutes === undefined ? {} : { minutes }),
            };
          }),
          report,
        }),
        await summaryOutcomes(ctx.integration.specDir, phase),
      ),
    ],
    label: `phase ${phase.id}`,
  });
}
