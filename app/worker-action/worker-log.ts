/** The job's log: core.info, core.warning and core.group on a runner; a list in tests. */
export interface WorkerLog {
  info(message: string): void;
  warning(message: string): void;
  /** Fold the lines `work` logs under a heading. */
  group<T>(name: string, work: () => Promise<T>): Promise<T>;
}
