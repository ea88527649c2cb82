/**
 * A spike's folder, `spikes/<project>/<spike>/` in the knowledge store (docs/design.md,
 * Knowledge): its three records and the raw output of its experiment. Paths here are the
 * repository's, forward slashes, as git and the knowledge layout write them.
 */
export const SPIKE_FILES = {
  hypothesis: 'HYPOTHESIS.md',
  experiment: 'EXPERIMENT.md',
  decision: 'DECISION.md',
  /** Raw output of the experiment: logs, measurements, tables. */
  results: 'results',
} as const;

/** Is `path` the folder or anything in it? `a/b` holds `a/b/c`, not `a/bc`. */
export function inSpikeFolder(path: string, folder: string): boolean {
  const root = folder.replace(/\/+$/, '');
  return path === root || path.startsWith(`${root}/`);
}

/** A record's path in the folder. */
export function spikeFile(folder: string, name: string): string {
  return `${folder.replace(/\/+$/, '')}/${name}`;
}
