/**
 * Names harness uses on GitHub (docs/design.md "Names on GitHub"), in one place. `spec:<id>`
 * is an addition: plan ids repeat across specs ("01-01" in every spec), so each plan issue
 * also carries its spec's label, which is what lets one list call fetch a spec's issues.
 */
export const LABEL_PLAN = 'harness:plan';
export const LABEL_KNOWLEDGE = 'harness:knowledge';
/** On a spec's tracking issue, whose sub-issues are the spec's plan issues (spec-issue.ts). */
export const LABEL_SPEC = 'harness:spec';
/**
 * On each plan issue of a phase that failed its verification, as a view of the App's record
 * (`phase_failed=` on the marker line, plan-issue.ts), which is what holds the plans
 * that depend on the phase. Taken off when the phase passes on a later `/harness verify`; a
 * round puts it back where it disagrees with the record.
 */
export const LABEL_PHASE_FAILED = 'harness:phase-failed';

export function specLabel(spec: string): string {
  return `spec:${spec}`;
}

export function phaseLabel(phase: string): string {
  return `phase:${phase}`;
}

export function needsLabel(plan: string): string {
  return `needs:${plan}`;
}

/** The statuses a plan issue shows. A plan waiting for its dependencies shows `blocked`. */
export const STATUS_VALUES = ['ready', 'running', 'blocked', 'checkpoint', 'verified', 'failed'] as const;
export type StatusValue = (typeof STATUS_VALUES)[number];

export function statusLabel(status: StatusValue): string {
  return `status:${status}`;
}

/**
 * Where a plan is, as the App (or its worker) recorded it on the plan issue's marker line
 * (`status=`, plan-issue.ts): the record every decision reads. Ready and blocked are one record,
 * `queued`, since which of the two a queued plan is follows from what it needs; the status label
 * is only the view of the record, which anyone with the triage role can change.
 */
export const RECORDED_STATUSES = ['queued', 'running', 'checkpoint', 'failed', 'verified'] as const;
export type RecordedStatus = (typeof RECORDED_STATUSES)[number];

/** The record a status label stands for: `queued` for ready and blocked, else the same. */
export function recordedStatus(status: StatusValue): RecordedStatus {
  return status === 'ready' || status === 'blocked' ? 'queued' : status;
}

/** Labels harness owns and rewrites; any other label on a plan issue belongs to people. */
export function isManagedLabel(name: string): boolean {
  return name === LABEL_PLAN || /^(spec|phase|needs|status):/.test(name);
}

export function isStatusLabel(name: string): boolean {
  return name.startsWith('status:');
}

/** Colours for the labels harness creates itself (phase:/needs: labels take GitHub's default). */
export const LABEL_COLORS: Record<string, { color: string; description: string }> = {
  [LABEL_PLAN]: { color: '5319e7', description: 'A plan of a harness spec' },
  [statusLabel('ready')]: { color: '0e8a16', description: 'harness: dependencies verified; may start' },
  [statusLabel('running')]: { color: 'fbca04', description: 'harness: a worker is on it' },
  [statusLabel('blocked')]: { color: 'bfd4f2', description: 'harness: waiting for the plans it needs' },
  [statusLabel('checkpoint')]: { color: 'd876e3', description: 'harness: waiting for a person' },
  [statusLabel('verified')]: { color: '1d76db', description: 'harness: passed plan-level verification' },
  [statusLabel('failed')]: { color: 'b60205', description: 'harness: failed; /harness retry to try again' },
  [LABEL_PHASE_FAILED]: { color: 'd93f0b', description: 'harness: its phase failed phase-level verification' },
};

export function planBranch(spec: string, plan: string): string {
  return `harness/${spec}/${plan}`;
}

export const SPEC_CHECK = 'harness / spec';

export function planCheck(plan: string): string {
  return `harness / plan ${plan}`;
}

export function phaseCheck(phase: string): string {
  return `harness / phase ${phase}`;
}

/** The worker workflow the app dispatches (templates/workflows/harness-worker.yml). */
export const WORKER_WORKFLOW = 'harness-worker.yml';

export function planMarker(spec: string, plan: string): string {
  return `<!-- harness:plan ${spec}/${plan} -->`;
}

export function statusMarker(spec: string): string {
  return `<!-- harness:status ${spec} -->`;
}
