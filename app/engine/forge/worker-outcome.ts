import { ABORT_ACTION, APPROVE_ACTION, RETRY_ACTION, type CheckAction } from './check-actions.js';
import type { RecordedStatus, StatusValue } from './names.js';
import type { WorkerTarget } from './worker-target.js';

export type CheckConclusion = 'success' | 'failure' | 'cancelled' | 'timed_out' | 'action_required';

/** A check run as harness wants it; its status follows from the conclusion (none: queued). */
export interface CheckState {
  conclusion?: CheckConclusion;
  title: string;
  summary: string;
  actions: CheckAction[];
}

/** What a finished worker run means for its plan's labels and check run (docs/github-flow.md, 5). */
export interface WorkerOutcome {
  /** The status label the plan issue should carry; undefined for a phase, which has no issue. */
  status?: StatusValue;
  check: CheckState;
}

/** The check run of a target whose worker was just dispatched. */
export function dispatchedCheck(target: WorkerTarget, branch: string, issue?: { number: number }): CheckState {
  const what = target.kind === 'plan' ? `plan ${target.plan}` : `the verification of phase ${target.phase}`;
  const where = issue ? ` Its issue is #${issue.number}.` : '';
  return {
    title: 'Worker dispatched',
    summary: `harness dispatched the worker for ${what} of ${target.spec} on the branch \`${branch}\`.${where}`,
    actions: target.kind === 'plan' ? [ABORT_ACTION] : [],
  };
}

/**
 * The recorded statuses a finished run may settle. A plan a person retried (queued again,
 * branch deleted) or aborted (failed) has moved on, and a late event about the old run must
 * not undo that; queued is accepted because the record of the dispatch (`running`) may not
 * have been written: the caller checks that the plan branch still exists.
 */
const SETTLES = new Set<RecordedStatus | undefined>(['running', 'checkpoint', 'queued']);

/**
 * Map a worker run's conclusion, and where the App's record says its plan is now (the marker's
 * `status=`, never the label), to what harness writes. Success at a checkpoint (the worker
 * recorded it) waits for a person; any other success verified the plan; everything else
 * (failure, cancelled, timed out, a run that never started) failed it. The check run keeps
 * GitHub's own word for a cancelled or timed-out run, so that an abort's `cancelled` is not
 * turned into `failure` when the cancelled run reports. Undefined: the run is not the plan's
 * current attempt, leave everything as it is.
 */
export function workerOutcome(
  target: WorkerTarget,
  conclusion: string | null | undefined,
  status: RecordedStatus | undefined,
  runUrl?: string,
): WorkerOutcome | undefined {
  const run = runUrl ? `[the worker run](${runUrl})` : 'the worker run';
  if (target.kind === 'phase') {
    const ok = conclusion === 'success';
    return {
      check: {
        conclusion: ok ? 'success' : failedConclusion(conclusion),
        title: ok ? `Phase ${target.phase} verified` : `Phase ${target.phase} failed its verification`,
        summary: ok
          ? `Every check of phase ${target.phase} passed on the merged work (${run}).`
          : `See ${run}. Fix the work, then \`/harness verify ${target.phase}\`.`,
        actions: [],
      },
    };
  }
  const success = conclusion === 'success';
  const next: StatusValue = success ? (status === 'checkpoint' ? 'checkpoint' : 'verified') : 'failed';
  if (!SETTLES.has(status) && status !== next) return undefined;
  if (next === 'checkpoint') {
    return {
      status: next,
      check: {
        conclusion: 'action_required',
        title: 'Waiting at a checkpoint',
        summary: `The worker stopped at a checkpoint and asked a question on the plan issue. Answer there with \`/harness respond ${target.plan} <answer>\`, or approve here.`,
        actions: [APPROVE_ACTION],
      },
    };
  }
  if (next === 'verified') {
    return {
      status: next,
      check: {
        conclusion: 'success',
        title: 'Verified',
        summary: `Plan ${target.plan} passed its verification (${run}); merging its pull request completes it.`,
        actions: [],
      },
    };
  }
  return {
    status: next,
    check: {
      conclusion: failedConclusion(conclusion),
      title: conclusion === 'cancelled' ? 'Cancelled' : conclusion === 'timed_out' ? 'Timed out' : 'Failed',
      summary: `Plan ${target.plan} did not pass (${run}). \`/harness retry ${target.plan}\` runs it again.`,
      actions: [RETRY_ACTION],
    },
  };
}

function failedConclusion(conclusion: string | null | undefined): CheckConclusion {
  return conclusion === 'cancelled' || conclusion === 'timed_out' ? conclusion : 'failure';
}

/**
 * The text the App writes on a check run it concludes itself, when a worker run ended without
 * doing so (settle-check.ts). The App runs its scheduling round right then, so the
 * `check_run.completed` GitHub sends for that write starts none: one round per event, not two.
 */
export const SETTLED_BY_APP =
  "<!-- harness:settled-by-app -->\nThe worker run ended without concluding this check run; the harness App concluded it from the run's outcome.";

/**
 * The first line of the text a worker writes with its check run's final state (live-check.ts).
 * Its `workflow_run.completed` follows, and is where the outcome becomes the plan's status and
 * a round runs: a round on the check run's own `check_run.completed` would find the plan still
 * running and start nothing, so it is skipped (scheduling.ts).
 */
export const CONCLUDED_BY_WORKER = '<!-- harness:concluded-by-worker -->';

/** Did a worker write this check run's final state (CONCLUDED_BY_WORKER)? */
export function concludedByWorker(text: string | null | undefined): boolean {
  return text?.startsWith(CONCLUDED_BY_WORKER) === true;
}

/** Did the App conclude this check run itself (SETTLED_BY_APP)? */
export function settledByApp(text: string | null | undefined): boolean {
  return text?.startsWith('<!-- harness:settled-by-app -->') === true;
}
