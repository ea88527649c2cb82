/**
 * The base of harness's own errors. Each subclass is a kind of failure a caller may catch by
 * name; its message says what went wrong and what to do about it. The name is the subclass's,
 * so that a message printed anywhere says which kind it was.
 */
export class HarnessError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}
