import { join } from 'node:path';
import { DEFAULT_CONFIG, type HarnessConfig } from '../engine/core/config/schema.js';
import type { Plan } from '../engine/core/spec/model.js';
import { KNOWLEDGE_ROOT } from '../engine/forge/knowledge-draft.js';
import { localProject } from './project.js';
import { captureFiles, captureReads, type CaptureBatch } from '../engine/knowledge/signals/capture.js';
import { capsuleFor, type CapsuleFile } from '../engine/knowledge/genes/capsule-record.js';
import type { LevelResult } from '../engine/core/verify/levels.js';
import { trajectoryEvents, type TrajectoryEvent } from '../engine/knowledge/documents/trajectory.js';
import type { SignalDraft, SurfacedEntry } from '../engine/knowledge/documents/loop.js';
import { readAttemptHistory } from '../engine/lifecycle/history.js';
import type { AttemptHistory } from '../engine/lifecycle/signals.js';
import { secretValues, type SafetyOptions } from '../machine/content-safety.js';
import { readTextIfExists } from '../machine/files.js';
import { writeKnowledgeFiles } from '../machine/knowledge-store.js';
import { loadTemplate } from '../machine/templates.js';
import type { RunContext } from './context.js';

/**
 * The knowledge loop's side of a local run: the signals of each attempt, phase and stop are
 * filed into the integration worktree's `.harness/knowledge/` (through the content-safety pass)
 * and committed with the run's other records. Capture never decides how the work ends: a
 * failure to capture is said on the terminal and the run goes on.
 */

export type CaptureSettings = HarnessConfig['knowledge']['capture'];

export function captureSettings(ctx: RunContext): CaptureSettings {
  return ctx.options.capture ?? DEFAULT_CONFIG.knowledge.capture;
}

/** Where the signals of this run come from, part of each one's key: the same run files a fact once however often it is resumed. */
export function runOrigin(ctx: RunContext): string {
  return `local:${ctx.spec.id}:${ctx.record.createdAt}`;
}

const projects = new WeakMap<RunContext, Promise<string>>();

/** The project the signals belong to: the repository's name as its origin remote has it, else its directory's (as spikes name it). */
export function runProject(ctx: RunContext): Promise<string> {
  let found = projects.get(ctx);
  if (!found) {
    found = localProject(ctx.repo);
    projects.set(ctx, found);
  }
  return found;
}

function storeDir(ctx: RunContext): string {
  return join(ctx.integration.worktree, KNOWLEDGE_ROOT);
}

/** What the content-safety pass takes this machine's project to be, and the secrets this run holds. */
export function runSafety(ctx: RunContext): SafetyOptions {
  // A plan's worktree is the project too: what an agent saw at `<worktree>/src/a.ts` is `${PROJECT_ROOT}/src/a.ts`.
  const worktrees = ctx.spec.plans.map((p) => ctx.repo.worktreePath(ctx.spec.id, p.id));
  return { roots: [ctx.repo.root, ctx.integration.worktree, ...worktrees], secrets: secretValues({ ...process.env, ...(ctx.options.env ?? {}) }) };
}

/**
 * The plan's last failed attempt, as the store on the integration branch has it (lifecycle/
 * history.ts). Must be called under the integration mutex, which keeps the store still.
 */
export function planHistory(ctx: RunContext, plan: Plan): () => Promise<AttemptHistory | undefined> {
  return async () => {
    if (!captureSettings(ctx).enabled) return undefined;
    try {
      const dir = storeDir(ctx);
      return await readAttemptHistory((path) => readTextIfExists(join(dir, path)), { project: await runProject(ctx), spec: ctx.spec.id, plan: plan.id });
    } catch (e) {
      ctx.reporter.event({ kind: 'info', text: `${plan.id}: could not read its earlier attempts from ${KNOWLEDGE_ROOT}: ${(e as Error).message}` });
      return undefined;
    }
  };
}

export interface LocalCapture {
  drafts: readonly SignalDraft[];
  trajectory?: readonly (TrajectoryEvent | { key: string })[];
  /** The capsule of a plan verified with genes in its brief. */
  documents?: CaptureBatch['documents'];
  /** Said on the terminal when something could not be filed. */
  label: string;
}

/**
 * File captured knowledge into the integration worktree's store; the paths written, relative to
 * the repository, for the caller to commit with its records. Must run under the integration
 * mutex. Never throws: what cannot be filed is reported and left out.
 */
export async function fileKnowledge(ctx: RunContext, capture: LocalCapture): Promise<string[]> {
  const settings = captureSettings(ctx);
  if (!settings.enabled || (capture.drafts.length === 0 && (capture.trajectory?.length ?? 0) === 0)) return [];
  try {
    const dir = storeDir(ctx);
    const at = ctx.now();
    const reads = captureReads(at);
    const [index, trajectory] = await Promise.all([readTextIfExists(join(dir, reads.index)), readTextIfExists(join(dir, reads.trajectory))]);
    const result = captureFiles(
      {
        drafts: capture.drafts,
        ...(capture.trajectory ? { trajectory: capture.trajectory } : {}),
        ...(capture.documents ? { documents: capture.documents } : {}),
        project: await runProject(ctx),
        origin: runOrigin(ctx),
        at,
        template: await loadTemplate('signal.md'),
        cap: { max: settings.max_per_phase, since: ctx.record.createdAt },
      },
      { index, trajectory },
    );
    const capped = result.skipped.filter((s) => s.reason === 'cap');
    if (capped.length > 0) {
      ctx.reporter.event({
        kind: 'info',
        text: `${capture.label}: ${capped.length} signal${capped.length === 1 ? '' : 's'} not filed, the phase has ${settings.max_per_phase} already (knowledge.capture.max_per_phase): ${capped.map((s) => s.draft.type).join(', ')}`,
      });
    }
    if (result.files.length === 0) return [];
    await writeKnowledgeFiles(dir, result.files, runSafety(ctx));
    return result.files.map((f) => `${KNOWLEDGE_ROOT}/${f.path}`);
  } catch (e) {
    ctx.reporter.event({ kind: 'info', text: `${capture.label}: signals not filed: ${(e as Error).message}` });
    return [];
  }
}

/** The trajectory's `match` (and, verified, `use`) lines of the knowledge an attempt had in its brief. */
export async function attemptTrajectory(
  ctx: RunContext,
  plan: Plan,
  entries: readonly SurfacedEntry[],
  how: { verified: boolean; attempt: number },
): Promise<TrajectoryEvent[]> {
  if (entries.length === 0) return [];
  return trajectoryEvents({
    entries,
    project: await runProject(ctx),
    spec: ctx.spec.id,
    plan: plan.id,
    attempt: how.attempt,
    verified: how.verified,
    at: ctx.now(),
    origin: runOrigin(ctx),
  });
}

/**
 * The capsule of an attempt verified with genes in its brief (capsule-record.ts): its blast
 * radius is the files the plan declares and those it changed beyond them.
 */
export async function attemptCapsule(
  ctx: RunContext,
  plan: Plan,
  entries: readonly SurfacedEntry[],
  how: { attempt: number; results: readonly LevelResult[]; undeclared: readonly string[] },
): Promise<CapsuleFile | undefined> {
  if (!entries.some((e) => e.kind === 'gene')) return undefined;
  return capsuleFor({
    spec: ctx.spec.id,
    plan,
    attempt: how.attempt,
    entries,
    results: how.results,
    changedFiles: [...plan.filesModified, ...how.undeclared],
    project: await runProject(ctx),
    origin: runOrigin(ctx),
    at: ctx.now(),
    template: await loadTemplate('capsule.md'),
  });
}
