/** Minutes as the run records them (to a tenth, so 0 is anything under 3 s), as a person reads them. */
export function formatMinutes(minutes: number): string {
  return minutes < 0.05 ? 'under 3 s' : formatDuration(minutes * 60);
}

/**
 * A duration as a person reads it: "12 s", "4.5 min", "2 h 5 min". Minutes alone rounded a
 * 20-second plan to "0 min", which reads as nothing done.
 */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s === 0) return 'under 1 s';
  if (s < 60) return `${s} s`;
  const minutes = seconds / 60;
  if (minutes < 10) return `${Math.round(minutes * 10) / 10} min`;
  if (minutes < 60) return `${Math.round(minutes)} min`;
  const h = Math.floor(minutes / 60);
  const m = Math.round(minutes - h * 60);
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}
