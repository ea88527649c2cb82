import type { Context } from 'probot';
import { parseTargetId } from '../../engine/forge/worker-target.js';
import { scheduleRound } from './round.js';

/**
 * `check_run` completed for a `harness / plan …` or `harness / phase …` check run
 * (docs/github-flow.md, 6): a round. The spec comes from the check's `external_id`
 * (`<spec>/<plan>`), which harness sets on every check run it creates; a check of that name
 * without one is someone else's.
 */
export async function onHarnessCheckCompleted(context: Context<'check_run.completed'>): Promise<void> {
  const check = context.payload.check_run;
  if (!/^harness \/ (plan|phase) /.test(check.name)) return;
  const target = parseTargetId(check.external_id);
  if (!target) return;
  await scheduleRound(context, target.spec);
}
