import { isStatusLabel, statusLabel, type StatusValue } from './names.js';

/**
 * An issue's labels with its status replaced (or removed, for `undefined`): every other
 * label, people's included, is kept as it was, so that the result can be written back as
 * the whole label list in one request.
 */
export function withStatus(labels: readonly string[], status: StatusValue | undefined): string[] {
  const kept = labels.filter((l) => !isStatusLabel(l));
  return status === undefined ? kept : [...kept, statusLabel(status)];
}
