import type { VerificationReport } from '../engine/core/verify/levels.js';

/** How a worker run ended; the entry point turns it into the job's outputs, summary and status. */
export interface WorkerOutcome {
  /** verified: the plan (or phase) passed; checkpoint: it waits for a person (the job succeeds); failed: the job fails. */
  result: 'verified' | 'checkpoint' | 'failed';
  /** The job summary, Markdown. */
  summary: string;
  /** Why the job fails, for core.setFailed. */
  failure?: string;
  pullRequest?: { number: number; url: string };
  /** The checkpoint it waits at. */
  checkpoint?: string;
  report?: VerificationReport;
}
