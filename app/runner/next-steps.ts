import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathFrom } from '../machine/files.js';
import type { Spec } from '../engine/core/spec/model.js';
import type { VerificationReport } from '../engine/core/verify/levels.js';
import type { RunState } from './run-state.js';
import type { OrchestrationStore } from './store.js';

/**
 * What a person does after a failure, in the lines `harness run` ends with and `harness status`
 * shows: for each failed plan and phase, the check that failed (and what it saw), the log to
 * read, and the command that gives it a fresh attempt. A blocked plan points to what blocks it.
 */
export async function nextSteps(
  spec: Spec,
  state: RunState,
  store: OrchestrationStore,
  at: { repoRoot: string; specArg: string; cwd: string; self?: string },
): Promise<string[]> {
  const lines: string[] = [];
  const where = (path: string) => pathFrom(at.cwd, path);
  const harness = at.self ?? 'harness';
  for (const plan of spec.plans) {
    if (state.plans.get(plan.id) !== 'failed') continue;
    lines.push(`${plan.id} failed: ${firstLine(state.reasons.get(plan.id) ?? 'see its log')}`);
    lines.push(...failedChecks(state.results.get(plan.id)?.verification));
    const log = await newestLog(store.logDir(plan.id));
    lines.push(`  log:   ${where(log ?? store.logDir(plan.id))}`);
    lines.push(`  retry: ${harness} run ${at.specArg} --plan ${plan.id} --retry`);
  }
  for (const phase of spec.phases) {
    if (state.phases.get(phase.id) !== 'failed') continue;
    const record = await store.readPhase(phase.id);
    lines.push(`phase ${phase.id} failed its verification`);
    lines.push(...failedChecks(record?.verification));
    lines.push(`  record: ${where(join(store.root, 'phases', `${phase.id}.json`))}`);
    lines.push(`  retry:  ${harness} run ${at.specArg} --phase ${phase.id} --retry`);
  }
  // A pause is no failure: only time is missing, and the command that goes on after it.
  for (const [id, pause] of [...state.paused].sort(([, a], [, b]) => Date.parse(a.resumeAt) - Date.parse(b.resumeAt))) {
    lines.push(`${id} paused at the model's usage limit until ${pause.resumeAt}: ${firstLine(pause.reason)}`);
    lines.push(`  resume: ${harness} run ${at.specArg} (after ${pause.resumeAt}; with --wait it waits for it)`);
  }
  const blocked = spec.plans.filter((p) => state.plans.get(p.id) === 'blocked').map((p) => p.id);
  if (blocked.length > 0) lines.push(`blocked until the failures above pass: ${blocked.join(', ')} (${harness} run ${at.specArg} --retry retries them all)`);
  return lines;
}

/** "  check tests (tests_pass) failed: exit code 1 …", one line per failed check. */
function failedChecks(report: VerificationReport | undefined): string[] {
  if (!report) return [];
  const checks = report.results
    .filter((r) => r.status === 'fail')
    .map((r) => `  check ${r.plan ? `${r.plan}/` : ''}${r.id} (${r.type}) failed: ${firstLine(r.evidence)}`);
  return [...checks, ...report.problems.map((p) => `  ${firstLine(p)}`)];
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

/** The log written last in a plan's logs/ folder, or undefined when there is none. */
async function newestLog(dir: string): Promise<string | undefined> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  // The script agent keeps each step's script beside its output: the output is what to read.
  const dated = await Promise.all(names.filter((n) => !n.endsWith('.sh')).map(async (n) => ({ path: join(dir, n), at: (await stat(join(dir, n))).mtimeMs })));
  return dated.sort((a, b) => b.at - a.at || b.path.localeCompare(a.path))[0]?.path;
}
