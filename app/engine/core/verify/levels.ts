import type { Clock } from '../clock.js';
import type { Check, Phase, Plan, Serve, Spec } from '../spec/model.js';
import type { CheckContext, CheckResult, CheckStatus } from './check-result.js';
import { runCheck } from './checks.js';
import { quote } from './evidence.js';
import type { ServerHandle, VerifyPorts } from './ports.js';
import { withTimeout } from './with-timeout.js';

/**
 * The two levels of verification in docs/design.md. Plan level runs a plan's must_pass on its
 * own branch; phase level runs every plan's checks again on the merged result, then the
 * phase's own. Both run every check (no early exit) so one report shows everything wrong.
 */

export type VerificationLevel = 'plan' | 'phase';

/** A result within a level; at phase level, `plan` says whose check it was (absent for the phase's own). */
export interface LevelResult extends CheckResult {
  plan?: string;
}

export interface VerificationReport {
  level: VerificationLevel;
  /** The plan id ("03-02") or phase id ("03"). */
  id: string;
  spec?: string;
  /** fail: a check failed or the level could not run; human: the rest passed and a person must answer; pass: all passed. */
  status: CheckStatus;
  results: LevelResult[];
  /** What went wrong outside any one check (a plan missing from the spec, nothing to check); each fails the level. */
  problems: string[];
  startedAt: string;
  finishedAt: string;
}

/** A person's answer to a human check (the reply to its checkpoint). */
export interface HumanAnswer {
  passed: boolean;
  by?: string;
  note?: string;
}

export interface VerifyOptions {
  /** The spec id, for the report (verifyPhase takes it from the spec). */
  spec?: string;
  /** Answers to human checks, keyed by check id; at phase level a plan's check is keyed "<plan>/<check>". */
  answers?: Readonly<Record<string, HumanAnswer>>;
  /** Called as each check starts (with the plan whose check it is, at phase level), for progress. */
  onStart?: (check: Check, plan?: string) => void;
  /** Called as each check finishes, for progress. */
  onResult?: (result: LevelResult) => void;
}

const SERVER_CHECKS = new Set<Check['type']>(['api_response', 'ui_element_exists', 'ui_navigation']);
/** Beyond serve.timeout_seconds, in case the port does not keep its own limit. */
const SERVE_GRACE_MS = 10_000;
const STOP_TIMEOUT_MS = 30_000;

/** One server for a group of checks: started when the first check needs it, stopped after the last. */
class SharedServer {
  private started?: Promise<CheckContext>;
  private handle?: ServerHandle;

  constructor(
    private readonly serve: Serve | undefined,
    private readonly ports: VerifyPorts,
  ) {}

  context(check: Check): Promise<CheckContext> {
    if (this.serve === undefined || !SERVER_CHECKS.has(check.type)) return Promise.resolve({});
    this.started ??= this.start(this.serve);
    return this.started;
  }

  private async start(serve: Serve): Promise<CheckContext> {
    const ms = (serve.timeout_seconds ?? 30) * 1000 + SERVE_GRACE_MS;
    try {
      this.handle = await withTimeout(this.ports.serve(serve), ms, `serve ${quote(serve.command)}`, this.ports.clock);
      return { baseUrl: this.handle.baseUrl };
    } catch (e) {
      return { serveError: `the server did not start (serve: ${quote(serve.command)}): ${(e as Error).message}` };
    }
  }

  /** Always called, pass or fail; returns a problem when the server would not stop. */
  async stop(): Promise<string | undefined> {
    if (this.started) await this.started;
    if (!this.handle) return undefined;
    try {
      await withTimeout(this.handle.stop(), STOP_TIMEOUT_MS, 'stopping the server', this.ports.clock);
      return undefined;
    } catch (e) {
      return `the server ${this.handle.baseUrl} did not stop: ${(e as Error).message}`;
    }
  }
}

function answered(check: Check, result: CheckResult, answer: HumanAnswer | undefined): CheckResult {
  if (check.type !== 'human' || answer === undefined) return result;
  const who = answer.by ? ` by ${answer.by}` : '';
  const note = answer.note ? `: ${answer.note}` : '';
  return { ...result, status: answer.passed ? 'pass' : 'fail', evidence: `answered ${answer.passed ? 'pass' : 'fail'}${who}${note}` };
}

/** Run checks in order against one shared server; stop it whatever happens. */
async function runGroup(
  checks: readonly Check[],
  serve: Serve | undefined,
  ports: VerifyPorts,
  opts: VerifyOptions,
  plan: string | undefined,
  problems: string[],
): Promise<LevelResult[]> {
  const server = new SharedServer(serve, ports);
  const results: LevelResult[] = [];
  try {
    for (const check of checks) {
      // Before the server it may need: a server slow to start is this check's time.
      opts.onStart?.(check, plan);
      const result = await runCheck(check, ports, await server.context(check));
      const key = plan === undefined ? check.id : `${plan}/${check.id}`;
      const final: LevelResult = { ...answered(check, result, opts.answers?.[key]), ...(plan === undefined ? {} : { plan }) };
      results.push(final);
      opts.onResult?.(final);
    }
  } finally {
    const problem = await server.stop();
    if (problem) problems.push(problem);
  }
  return results;
}

function statusOf(results: readonly LevelResult[], problems: readonly string[]): CheckStatus {
  if (problems.length > 0 || results.some((r) => r.status === 'fail')) return 'fail';
  return results.some((r) => r.status === 'human') ? 'human' : 'pass';
}

function finish(
  level: VerificationLevel,
  id: string,
  spec: string | undefined,
  startedAt: Date,
  results: LevelResult[],
  problems: string[],
  clock: Clock,
): VerificationReport {
  // Nothing checked is not a pass: neither level can be skipped, and an empty one would be.
  if (results.length === 0 && problems.length === 0) problems.push(`no checks to run: a ${level} cannot be verified by nothing; add must_pass checks`);
  const finishedAt = clock.now();
  return {
    level,
    id,
    ...(spec === undefined ? {} : { spec }),
    status: statusOf(results, problems),
    results,
    problems,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
  };
}

/** Plan level: the plan's must_pass on its own work, with its serve. */
export async function verifyPlan(plan: Plan, ports: VerifyPorts, opts: VerifyOptions = {}): Promise<VerificationReport> {
  const startedAt = ports.clock.now();
  const problems: string[] = [];
  const results = await runGroup(plan.mustPass, plan.serve, ports, opts, undefined, problems);
  return finish('plan', plan.id, opts.spec, startedAt, results, problems, ports.clock);
}

/**
 * Phase level, on the merged checkout: every plan's checks again (each plan with its own
 * serve), then the phase's own must_pass with the phase's serve.
 */
export async function verifyPhase(spec: Spec, phase: Phase, ports: VerifyPorts, opts: VerifyOptions = {}): Promise<VerificationReport> {
  const startedAt = ports.clock.now();
  const problems: string[] = [];
  const results: LevelResult[] = [];
  for (const id of phase.plans) {
    const plan = spec.planById.get(id);
    if (!plan) {
      problems.push(`plan ${id} of phase ${phase.id} is not in the spec`);
      continue;
    }
    results.push(...(await runGroup(plan.mustPass, plan.serve, ports, opts, plan.id, problems)));
  }
  results.push(...(await runGroup(phase.mustPass, phase.serve, ports, opts, undefined, problems)));
  return finish('phase', phase.id, opts.spec ?? spec.id, startedAt, results, problems, ports.clock);
}
