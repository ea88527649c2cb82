import { Worker } from 'node:worker_threads';
import { PatternTimeoutError, searchInProcess, type RegexMatch, type RegexRequest, type RegexSearch } from '../engine/core/verify/regex.js';

/**
 * User patterns run in a worker thread, one per search, terminated at the timeout: a
 * regular expression cannot be interrupted on the thread that runs it, so the only way to
 * stop `(a+)+$` on a long line is to end the thread. The worker runs the engine's own
 * searchInProcess from its source text (it is written to need nothing else), so the search
 * is the same in the thread as in tests, and nothing extra has to be bundled.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
var __name = (f) => f; // what a bundler's keepNames wraps functions in
const search = (${searchInProcess.toString()});
let result;
try {
  result = { ok: true, match: search(workerData) };
} catch (e) {
  result = { ok: false, message: String(e && e.message || e) };
}
parentPort.postMessage(result);
`;

/** A runaway pattern's heap is bounded too: a worker past it ends, and the search with it. */
const WORKER_HEAP_MB = 256;

type Reply = { ok: true; match: RegexMatch | null } | { ok: false; message: string };

export const workerRegexSearch: RegexSearch = (request: RegexRequest, timeoutMs: number) =>
  new Promise<RegexMatch | null>((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: request, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    let settled = false;
    const settle = (act: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      act();
      void worker.terminate();
    };
    const timer = setTimeout(() => settle(() => reject(new PatternTimeoutError(request.source, timeoutMs))), timeoutMs);
    worker.once('message', (reply: Reply) =>
      settle(() => (reply.ok ? resolve(reply.match) : reject(new Error(`the pattern /${request.source}/ failed: ${reply.message}`)))),
    );
    worker.once('error', (e) => settle(() => reject(new Error(`the pattern /${request.source}/ could not be searched: ${e.message}`))));
    worker.once('exit', (code) => settle(() => reject(new Error(`the pattern /${request.source}/ could not be searched: its thread ended (exit ${code})`))));
  });
