import { readSignal, type SignalRecord } from '../knowledge/signal-record.js';

/**
 * A signal file as reflection reads it, or the reason it cannot be read (the knowledge
 * engine's readSignal, in the shape the forge's callers have used).
 */
export function signalRecord(file: string, text: string): SignalRecord | { file: string; problem: string } {
  const read = readSignal(file, text);
  return 'problem' in read ? { file: read.file, problem: read.problem } : read;
}
