import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { TRAILER_PLAN, TRAILER_SPEC } from '../engine/core/agents/commit-message.js';
import { summaryDocument } from '../engine/core/run/summary-document.js';
import { renderVerification } from '../engine/core/verify/render-verification.js';
import type { Plan } from '../engine/core/spec/model.js';
import type { AttemptOutcome } from '../engine/lifecycle/attempt-plan.js';
import type { SurfacedEntry } from '../engine/knowledge/documents/loop.js';
import { attemptOfSignals } from '../engine/knowledge/signals/plan-outcome.js';
import { makeSafe, type SafetyOptions } from '../machine/content-safety.js';
import { loadTemplate } from '../machine/templates.js';
import type { Checkout } from './checkout.js';
import type { WorkerRun } from './worker-run.js';

export interface PlanDocuments {
  /** Repository paths of the two documents. */
  summaryPath: string;
  verificationPath: string;
  /** Both, as the PR body shows them. */
  inBody: { title: string; path: string; text: string }[];
}

interface DocumentsJob {
  run: WorkerRun;
  plan: Plan;
  checkout: Checkout;
  agent: string;
  branch: string;
}

/**
 * SUMMARY.md and VERIFICATION.md of a verified plan, the same documents `harness run` writes,
 * in the same place (execution/phases/<phase>/<plan>-SUMMARY.md of the spec directory), committed
 * on the plan branch so that merging the PR records them; the PR body shows both.
 */
export async function planDocuments(
  job: DocumentsJob,
  outcome: Extract<AttemptOutcome, { kind: 'verified' }>,
  safety: SafetyOptions,
  /** What the brief held (none for the script agent), and whether the plan was held out (knowledge.holdout): the phase's completion signal reads both back. */
  brief: { knowledge?: readonly SurfacedEntry[]; heldOut?: boolean } = {},
): Promise<PlanDocuments> {
  const { run, plan } = job;
  const phase = run.spec.phases.find((p) => p.id === plan.phase);
  const dir = `${run.specPath}/execution/phases/${phase?.dir ?? plan.phase}`;
  const finished = run.now();
  const minutes = Math.round(((outcome.timing.agentMs + outcome.timing.verifyMs) / 60_000) * 10) / 10;
  const summary = summaryDocument(await loadTemplate('SUMMARY.md'), {
    spec: run.spec.id,
    plan,
    status: 'verified',
    agent: outcome.facts.agent,
    ...(outcome.facts.engines ? { engines: outcome.facts.engines } : {}),
    started: new Date(finished.getTime() - minutes * 60_000).toISOString(),
    finished: finished.toISOString(),
    durationMinutes: minutes,
    // The engine's count (from the failures on record) when the runtime keeps none, as a runner does not.
    attempts: outcome.facts.attempt ?? attemptOfSignals(outcome.signals),
    branch: job.branch,
    commits: outcome.commits.map((c) => ({ sha: c.sha, message: c.subject })),
    deviations: outcome.facts.undeclaredWrites,
    verification: outcome.report,
    ...(outcome.summary === undefined ? {} : { agentSummary: outcome.summary }),
    ...(outcome.facts.usage ? { usage: outcome.facts.usage } : {}),
    ...(brief.knowledge ? { knowledge: brief.knowledge } : {}),
    ...(brief.heldOut ? { heldOut: true } : {}),
    ...(outcome.facts.blocked ? { blocked: outcome.facts.blocked } : {}),
  });
  const verification = renderVerification(outcome.report, {
    template: await loadTemplate('VERIFICATION.md'),
    title: `plan ${plan.id} · ${plan.title}`,
    commit: (await job.checkout.head()).slice(0, 12),
  });
  const files = [
    { title: 'SUMMARY.md', path: `${dir}/${plan.id}-SUMMARY.md`, text: (await makeSafe(summary, safety)).text },
    { title: 'VERIFICATION.md', path: `${dir}/${plan.id}-VERIFICATION.md`, text: (await makeSafe(verification, safety)).text },
  ];
  for (const f of files) {
    await mkdir(dirname(join(job.checkout.root, f.path)), { recursive: true });
    await writeFile(join(job.checkout.root, f.path), f.text);
  }
  await job.checkout.git.run(['add', '--', ...files.map((f) => f.path)]);
  await job.checkout.git.commit(
    {
      subject: `docs(${run.spec.id}): summary of ${plan.id}`,
      body: '',
      trailers: [
        { key: TRAILER_PLAN, value: plan.id },
        { key: TRAILER_SPEC, value: run.spec.id },
      ],
    },
    { noVerify: true },
  );
  return { summaryPath: files[0]!.path, verificationPath: files[1]!.path, inBody: files };
}
