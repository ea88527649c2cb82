/** A reason the worker cannot do its job that a person must fix (a missing spec, plan or issue): the job fails with it. */
export class WorkerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = WorkerError.name;
  }
}
