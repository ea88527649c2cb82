import { HarnessError } from '../engine/core/error.js';
/** A reason the worker cannot do its job that a person must fix (a missing spec, plan or issue): the job fails with it. */
export class WorkerError extends HarnessError {}
