import type { Check } from '../spec/model.js';
import { checkApiResponse } from './check-api.js';
import { checkArtifact } from './check-artifact.js';
import { checkBuildSucceeds, checkCommandOutput, checkTestsPass } from './check-commands.js';
import { checkFileContains, checkFileExists } from './check-files.js';
import { checkKeyLink } from './check-key-link.js';
import { fail, type CheckContext, type CheckResult, type Finding } from './check-result.js';
import { checkUiElementExists, checkUiNavigation } from './check-ui.js';
import { clip, quote } from './evidence.js';
import { BrowserUnavailableError, type VerifyPorts } from './ports.js';
import { CheckTimeoutError, formatMs, withTimeout } from './with-timeout.js';
import { PatternTimeoutError } from './regex.js';

/** Seconds each type may take when the check gives no timeout_seconds. */
export const DEFAULT_TIMEOUT_SECONDS: Record<Check['type'], number> = {
  file_exists: 10,
  file_contains: 10,
  artifact: 20,
  key_link: 20,
  command_output: 120,
  build_succeeds: 900,
  tests_pass: 900,
  api_response: 30,
  ui_element_exists: 60,
  ui_navigation: 90,
  human: 1,
};

/**
 * Commands (killed by the port at the timeout) and browser checks (each step given what is
 * left of the timeout) end themselves and then report what they saw; the race against the
 * clock only catches a port that breaks that promise, so it allows them this much longer.
 */
const SELF_LIMITED = new Set<Check['type']>(['command_output', 'build_succeeds', 'tests_pass', 'ui_element_exists', 'ui_navigation']);
const SELF_LIMITED_GRACE_MS = 10_000;

function timeoutOf(check: Check): number {
  return (check.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS[check.type]) * 1000;
}

async function find(check: Check, ports: VerifyPorts, ctx: CheckContext, ms: number): Promise<Finding> {
  switch (check.type) {
    case 'file_exists':
      return checkFileExists(check, ports);
    case 'file_contains':
      return checkFileContains(check, ports, patternBudget(ms));
    case 'artifact':
      return checkArtifact(check, ports, patternBudget(ms));
    case 'key_link':
      return checkKeyLink(check, ports, patternBudget(ms));
    case 'command_output':
      return checkCommandOutput(check, ports, ms);
    case 'build_succeeds':
      return checkBuildSucceeds(check, ports, ms);
    case 'tests_pass':
      return checkTestsPass(check, ports, ms);
    case 'api_response':
      return checkApiResponse(check, ports, ctx, ms);
    case 'ui_element_exists':
      return checkUiElementExists(check, ports, ctx, ms);
    case 'ui_navigation':
      return checkUiNavigation(check, ports, ctx, ms);
    case 'human':
      return { status: 'human', evidence: `waits for a person (${check.kind}): ${quote(check.prompt, 200)}` };
  }
}

/**
 * A pattern is stopped a little before the check's own timeout, so that the failure says
 * which pattern ran away rather than only that the check took too long.
 */
function patternBudget(ms: number): number {
  return Math.max(1, ms - Math.min(250, ms / 10));
}

function failure(e: unknown, ms: number): Finding {
  if (e instanceof BrowserUnavailableError || e instanceof PatternTimeoutError) return fail(e.message);
  if (e instanceof CheckTimeoutError) return fail(`no result within ${formatMs(ms)} (timeout_seconds), so the check was abandoned`);
  const message = e instanceof Error ? e.message : String(e);
  return fail(`could not run the check: ${message.split('\n').slice(0, 3).join(' ')}`);
}

/**
 * Run one check and say what was seen. Never throws and never hangs: a port error is a
 * failure with its message, and the whole check is bounded by its timeout.
 */
export async function runCheck(check: Check, ports: VerifyPorts, ctx: CheckContext = {}): Promise<CheckResult> {
  const started = ports.clock.monotonic();
  const ms = timeoutOf(check);
  let finding: Finding;
  try {
    finding = await withTimeout(find(check, ports, ctx, ms), SELF_LIMITED.has(check.type) ? ms + SELF_LIMITED_GRACE_MS : ms, check.id, ports.clock);
  } catch (e) {
    finding = failure(e, ms);
  }
  return { id: check.id, type: check.type, status: finding.status, evidence: clip(finding.evidence), durationMs: ports.clock.monotonic() - started };
}
