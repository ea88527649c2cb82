/** The adapter's pino transport (its log levels as the job's annotations); the package ships no types for it. */
declare module '@probot/adapter-github-actions/pino-transport-github-actions.js' {
  import type { Writable } from 'node:stream';
  export const transport: Writable;
}
