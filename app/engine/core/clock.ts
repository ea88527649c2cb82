/**
 * Time, as the engine is given it: the engine reads no clock and sets no timer of its own, so
 * that what it records and when it gives up are the caller's to decide (and a test's to drive).
 */
export interface Clock {
  /** The wall clock, for what is recorded (when a check or a plan started and finished). */
  now(): Date;
  /** Milliseconds from an arbitrary start, never going back: for durations and deadlines. */
  monotonic(): number;
  /** Call `fn` once after `ms`; the function returned cancels it. */
  after(ms: number, fn: () => void): () => void;
}

/**
 * A timer that repeats, for what watches a run over time (engine/lifecycle/heartbeat.ts). The
 * machine's keeps no process alive by itself: a run that ends is not held open by its watcher.
 */
export interface Ticker {
  /** Milliseconds from an arbitrary start, never going back. */
  monotonic(): number;
  /** Call `fn` every `ms` until the function returned is called. */
  every(ms: number, fn: () => void): () => void;
}
