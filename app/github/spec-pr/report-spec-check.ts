import type { SpecCheckReport } from '../../engine/forge/spec-check-report.js';
import { SPEC_CHECK } from '../../engine/forge/names.js';
import type { CheckAnnotation } from '../../gateway/check-runs.js';
import type { Gateway } from '../../gateway/gateway.js';
import { CHECK_RUN_ANNOTATIONS_PER_REQUEST } from '../../gateway/limits.js';

export interface SpecCheckTarget {
  headSha: string;
  externalId: string;
  /** The check run opened as in progress, when there is one; else a new one is created. */
  checkRunId?: number;
}

function batches(annotations: readonly CheckAnnotation[]): CheckAnnotation[][] {
  const out: CheckAnnotation[][] = [];
  for (let i = 0; i < annotations.length; i += CHECK_RUN_ANNOTATIONS_PER_REQUEST) out.push(annotations.slice(i, i + CHECK_RUN_ANNOTATIONS_PER_REQUEST));
  return out.length > 0 ? out : [[]];
}

/**
 * Report the `harness / spec` check run (or another of the App's checks that reports as it does, `name`): the annotations go 50 to a request (the create
 * carries the first batch, updates append the rest), and the request that completes the
 * run is always the last. A delivery that dies halfway leaves the run in progress, which
 * the next delivery does not take for a finished one.
 */
export async function reportSpecCheck(github: Gateway, target: SpecCheckTarget, report: SpecCheckReport, name: string = SPEC_CHECK): Promise<number> {
  const output = (annotations: CheckAnnotation[]) => ({ title: report.title, summary: report.summary, ...(annotations.length > 0 ? { annotations } : {}) });
  const parts = batches(report.annotations);
  let id = target.checkRunId;
  let rest = parts;
  if (id === undefined) {
    const [first, ...others] = parts;
    const done = others.length === 0;
    const run = await github.createCheckRun({
      name,
      head_sha: target.headSha,
      status: done ? 'completed' : 'in_progress',
      ...(done ? { conclusion: report.conclusion } : {}),
      external_id: target.externalId,
      output: output(first!),
    });
    id = run.id;
    rest = others;
  }
  for (let i = 0; i < rest.length; i++) {
    const last = i === rest.length - 1;
    // An empty external_id is a result nothing may take for a finished sync (alreadySynced, carryForward): cleared as the run completes.
    const untrusted = last && target.externalId === '' ? { external_id: '' } : {};
    await github.updateCheckRun(id, {
      ...(last ? { status: 'completed' as const, conclusion: report.conclusion } : {}),
      ...untrusted,
      output: output(rest[i]!),
    });
  }
  return id;
}
