import type { PlanSpan, TimelineBar } from '../engine/core/analysis/timeline.js';
import type { SessionResult } from './store.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TRAILER_PLAN, TRAILER_SPEC, type Trailer } from '../engine/core/agents/commit-message.js';
import { appendCommits, type LoggedCommit } from '../engine/core/run/commits-log.js';
import { updateRoadmapProgress } from '../engine/core/run/roadmap-progress.js';
import type { RunSnapshot } from '../engine/core/run/snapshot.js';
import { statusDocument } from '../engine/core/run/status-document.js';
import type { Phase } from '../engine/core/spec/model.js';
import type { RunContext } from './context.js';
import { loadTemplate } from '../machine/templates.js';
import { readTextIfExists, writeFiles } from '../machine/files.js';
import { makeSafe } from '../machine/content-safety.js';
import { runSafety } from './capture.js';
import { KNOWLEDGE_ROOT } from '../engine/forge/knowledge-draft.js';

/** A phase's directory under execution/phases/, named like its plans' directory. */
export function executionDir(phase: Phase): string {
  return `execution/phases/${phase.dir ?? phase.id}`;
}

export function snapshotOf(ctx: RunContext): RunSnapshot {
  const plans = new Map(ctx.spec.plans.map((p) => [p.id, ctx.schedule.plan(p.id)]));
  const phases = new Map(ctx.spec.phases.map((p) => [p.id, ctx.schedule.phase(p.id)]));
  return {
    spec: ctx.spec.id,
    title: ctx.spec.title,
    plans,
    phases,
    minutes: ctx.state.minutes,
    spans: planSpans(ctx),
    costs: ctx.state.costs,
    uses: ctx.state.uses,
    reasons: ctx.state.reasons,
    paused: new Map([...ctx.state.paused].map(([id, p]) => [id, p.resumeAt])),
    activity: ctx.activity,
    now: ctx.now(),
  };
}

/** Each plan's last attempt: from its result when it ended (its agent and its verification, where it has their times), from its status while it runs. */
function planSpans(ctx: RunContext): Map<string, PlanSpan> {
  const spans = new Map<string, PlanSpan>();
  for (const plan of ctx.spec.plans) {
    const result = ctx.state.results.get(plan.id);
    const status = ctx.state.statuses.get(plan.id);
    if (status && (!result || status.startedAt > result.startedAt)) spans.set(plan.id, { start: status.startedAt });
    else if (result) spans.set(plan.id, { start: result.startedAt, end: result.finishedAt, ...stageBars(result) });
  }
  return spans;
}

/**
 * An ended attempt's agent and verification as bars: the agent from the attempt's start, the
 * verification after it, each as long as the attempt measured it, none past the attempt's end.
 * A wait for a person is inside the stage that asked.
 */
function stageBars(result: SessionResult): Pick<PlanSpan, 'bars'> {
  const { timing } = result;
  if (!timing || timing.agentMs + timing.verifyMs <= 0) return {};
  const start = Date.parse(result.startedAt);
  const end = Date.parse(result.finishedAt);
  const at = (ms: number) => new Date(Math.min(start + ms, end)).toISOString();
  const bars: TimelineBar[] = [];
  if (timing.agentMs > 0) bars.push({ kind: 'agent', start: at(0), end: at(timing.agentMs) });
  if (timing.verifyMs > 0) bars.push({ kind: 'verification', start: at(timing.agentMs), end: at(timing.agentMs + timing.verifyMs) });
  return { bars };
}

export function noteActivity(ctx: RunContext, text: string): void {
  ctx.activity.push({ at: ctx.now().toISOString(), text });
  if (ctx.activity.length > 50) ctx.activity.splice(0, ctx.activity.length - 50);
}

/**
 * Write documents into the spec directory on the integration branch, together with
 * STATUS.md, ROADMAP.md's checkboxes and commits.log, as one commit. Must run under the
 * integration mutex. Writing the same content twice commits nothing, which keeps a
 * resumed run from adding duplicate commits. The documents harness writes from what agents
 * and checks said go through the content-safety pass first; `knowledge` are files the run
 * filed into the knowledge store already (repository paths), committed with them.
 */
export async function commitDocuments(
  ctx: RunContext,
  files: Record<string, string>,
  subject: string,
  trailers: Trailer[] = [],
  logged: LoggedCommit[] = [],
  knowledge: readonly string[] = [],
  once?: string,
): Promise<string | undefined> {
  if (once !== undefined) {
    // A run killed after this commit and before it wrote down what the commit recorded
    // comes back here on resume: the commit is already on the branch, and once is enough.
    const done = await recordedCommit(ctx, once);
    if (done !== undefined) return done;
    trailers = [...trailers, { key: TRAILER_RECORD, value: once }];
  }
  const base = ctx.integration.specDir;
  const safety = runSafety(ctx);
  // Written together just before the commit.
  const written: { path: string; content: string }[] = [];
  const write = async (rel: string, text: string, safe = true) => {
    written.push({ path: join(base, rel), content: safe ? (await makeSafe(text, safety)).text : text });
    return rel;
  };
  const paths: string[] = [];
  for (const [rel, text] of Object.entries(files)) paths.push(await write(rel, text));

  const snapshot = snapshotOf(ctx);
  // STATUS.md's recent activity outlives the process: a resumed run starts from it.
  await ctx.store.writeActivity(ctx.activity);
  paths.push(await write('STATUS.md', statusDocument(await loadTemplate('STATUS.md'), ctx.spec, ctx.analysis, snapshot)));
  const roadmap = await readTextIfExists(join(base, 'ROADMAP.md'));
  // The people's own roadmap: only its checkboxes change, and its text is theirs.
  if (roadmap !== undefined) paths.push(await write('ROADMAP.md', updateRoadmapProgress(roadmap, ctx.spec, snapshot), false));
  if (logged.length > 0) {
    const log = (await readTextIfExists(join(base, 'execution/commits.log'))) ?? '';
    paths.push(await write('execution/commits.log', appendCommits(log, logged)));
  }
  await writeFiles(written);
  const specPrefix = ctx.specRel === '.' ? '' : `${ctx.specRel}/`;
  // Knowledge a killed run filed and never committed is deduplicated when filed again (its
  // keys are in the store's index on disk): the whole store goes into the commit, so it lands.
  const store = existsSync(join(ctx.integration.worktree, KNOWLEDGE_ROOT)) ? [KNOWLEDGE_ROOT] : [];
  return ctx.repo.commitPaths(ctx.integration.worktree, [...paths.map((p) => `${specPrefix}${p}`), ...new Set([...knowledge, ...store])], {
    subject: `docs(${ctx.spec.id}): ${subject}`,
    trailers: [...trailers, { key: TRAILER_SPEC, value: ctx.spec.id }],
  });
}

/**
 * Names the one event a document commit records (a plan's summary of an attempt, a phase's
 * verification, the spec's completion), so that a resumed run commits each event once.
 */
export const TRAILER_RECORD = 'Harness-Record';

/**
 * The integration branch's commit for event `once`, when this run or an earlier one made
 * it. Only a run that resumes an earlier one can find one: a fresh run asks git nothing.
 */
export async function recordedCommit(ctx: RunContext, once: string): Promise<string | undefined> {
  if (!ctx.resumed) return undefined;
  return ctx.repo.findTrailer(ctx.integration.worktree, ctx.record.baseSha, TRAILER_RECORD, once);
}

export function planTrailer(plan: string): Trailer {
  return { key: TRAILER_PLAN, value: plan };
}
