import type { RegexSearch } from './regex.js';
import type { Clock } from '../clock.js';
import type { Serve } from '../spec/model.js';
import { HarnessError } from '../error.js';

/**
 * What verification needs from the world, so that the checks themselves stay pure logic.
 * The local runner and the Actions worker implement these against a real checkout.
 */
export interface ExecResult {
  /** null when the process was killed (timeout or signal). */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
}

export interface ExecOptions {
  /** Relative to the checkout root. */
  cwd?: string;
  timeoutMs: number;
  env?: Record<string, string>;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface ServerHandle {
  /** The base URL with any {port} filled in. */
  baseUrl: string;
  stop(): Promise<void>;
}

export interface UiStep {
  goto?: string;
  click?: string;
  fill?: string;
  value?: string;
  press?: string;
  key?: string;
  wait_for?: string;
}

export interface BrowserPage {
  goto(url: string, timeoutMs: number): Promise<void>;
  /** Text of the first element matching the selector, or undefined if none appears in time. */
  textOf(selector: string, timeoutMs: number): Promise<string | undefined>;
  click(selector: string, timeoutMs: number): Promise<void>;
  fill(selector: string, value: string, timeoutMs: number): Promise<void>;
  press(selector: string, key: string, timeoutMs: number): Promise<void>;
  url(): string;
  close(): Promise<void>;
}

export interface BrowserPort {
  newPage(): Promise<BrowserPage>;
}

export type PathKind = 'file' | 'directory';

export interface VerifyPorts {
  /** File text relative to the checkout root; undefined when absent. Rejects a path that leaves the root. */
  readFile(path: string): Promise<string | undefined>;
  /** What is at a path relative to the checkout root, without reading it; undefined when absent. */
  exists(path: string): Promise<PathKind | undefined>;
  exec(command: string, options: ExecOptions): Promise<ExecResult>;
  http(url: string, init: { method: string; headers?: Record<string, string>; body?: string; timeoutMs: number }): Promise<HttpResponse>;
  /** Start the plan's or phase's server and wait until it answers. */
  serve(serve: Serve): Promise<ServerHandle>;
  /** A headless browser; throws a BrowserUnavailableError with a clear message where none is installed. */
  browser(): Promise<BrowserPort>;
  /** When checks start and finish, and when one is given up. */
  clock: Clock;
  /**
   * Where the patterns of file_contains, key_link, artifact and expect.matches run, so that
   * one that backtracks without end is stopped at the check's timeout. Without it they run
   * on the event loop (tests with patterns of their own).
   */
  regex?: RegexSearch;
  /**
   * Secrets taken out of a command's output before it is cut into evidence (a private key's
   * BEGIN line cut off leaves a tail no rule knows, and the tail is enough to rebuild the key):
   * the machine's content-safety pass. Without it, evidence is the output as it was.
   */
  redact?: (text: string) => Promise<string>;
}

export class BrowserUnavailableError extends HarnessError {}
