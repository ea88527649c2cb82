/** `harness status --json`, as the tools read it (docs/cli.md: JSON output). */
export interface StatusReport {
  spec: string;
  title: string;
  status: string;
  progress: {
    plansTotal: number;
    plansVerified: number;
    plansDoneBeforeImport?: number;
    phasesTotal: number;
    phasesVerified: number;
    phasesDoneBeforeImport?: number;
    percent: number;
  };
  integrationBranch: string | null;
  phases: { id: string; title: string; state: string }[];
  plans: {
    id: string;
    title: string;
    phase: string;
    state: string;
    task: number | null;
    tasks: number | null;
    message: string | null;
    reason: string | null;
  }[];
  checkpoints: { session: string; kind: string; prompt: string; options: string[]; askedAt: string }[];
}

/** `harness validate --json`. */
export interface ValidateReport {
  spec: string;
  id: string | null;
  valid: boolean;
  errors: number;
  warnings: number;
  problems: { file: string; line: number; severity: 'error' | 'warning'; code: string; message: string }[];
}

/** One line a person reads: the spec, where it stands, what waits. */
export function statusLine(dir: string, s: StatusReport): string {
  const p = s.progress;
  const waiting = s.checkpoints.length ? ` · ${s.checkpoints.length} waiting for an answer` : '';
  const failed = s.plans.filter((x) => x.state === 'failed').length;
  const before = p.plansDoneBeforeImport ? ` · ${p.plansDoneBeforeImport} plans done before import` : '';
  return `${s.spec} ${s.title} (${dir}): ${s.status} · ${p.plansVerified}/${p.plansTotal} plans, ${p.phasesVerified}/${p.phasesTotal} phases verified${before}${failed ? ` · ${failed} failed` : ''}${waiting}`;
}

/** The spec's plans and phases as `harness status` lists them, one line each. */
export function statusLines(s: StatusReport): string[] {
  const out: string[] = [];
  for (const phase of s.phases) {
    out.push(`Phase ${phase.id} · ${phase.title} — ${phase.state}`);
    for (const plan of s.plans.filter((p) => p.phase === phase.id)) {
      const detail =
        plan.state === 'running' && plan.task !== null
          ? ` · step ${plan.task}/${plan.tasks}: ${plan.message ?? ''}`
          : plan.reason
            ? ` · ${plan.reason.split('\n')[0]}`
            : '';
      out.push(`  ${plan.id} ${plan.title} — ${plan.state}${detail}`);
    }
  }
  return out;
}
