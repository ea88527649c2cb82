import { parseFrontmatter, type Frontmatter, type KeyPath, type LineMap } from './frontmatter.js';
import { issuesToProblems, pathText } from './issues.js';
import { HUMAN_TYPES, isMachineCheckable, isTrivialCommand, type Check, type Plan, type Serve, type Step } from './model.js';
import { checkRepoPath, normalizeRepoPath } from './paths.js';
import { problem, type Problem } from './problem.js';
import { CheckSchema, PLAN_ID, PlanFrontmatterSchema, ServeSchema, type CheckInput, type PlanFrontmatter } from './schema.js';

export interface ParsedPlan {
  plan?: Plan;
  problems: Problem[];
  /** What the file says of its id and dependencies, even when the plan as a whole did not parse. */
  claim?: PlanClaim;
}

export interface PlanClaim {
  id?: string;
  file: string;
  phase: string;
  dependsOn: string[];
  lines: LineMap;
}

/**
 * A plan written in another tool's form (GSD's, say: engine/importers) that harness reads as
 * its own. The importer maps the frontmatter onto harness's keys before the plan is checked,
 * keeping each key's line, so that problems still point into the file as written. The spec
 * model knows no dialect itself: callers pass the ones they read (importers/dialects.ts).
 */
export interface PlanDialect {
  /** Recorded as the plan's `format`. */
  readonly name: string;
  matches(data: Record<string, unknown>): boolean;
  toHarness(data: Record<string, unknown>, lines: LineMap, body: string): { data: Record<string, unknown>; lines: LineMap };
}

export interface PlanReading {
  /** Other forms a plan may be written in; harness's own is always read. */
  dialects?: readonly PlanDialect[];
}

/** Parse and check one PLAN.md, in harness form or a dialect's. `file` is relative to the spec directory. */
export function parsePlan(file: string, text: string, phase: string, reading: PlanReading = {}): ParsedPlan {
  const fm = parseFrontmatter(file, text);
  if (!fm.ok) return { problems: fm.problems };
  const { body, bodyLine } = fm.frontmatter;
  const { data, lines, format } = inHarnessForm(fm.frontmatter, reading);

  const problems = rawProblems(file, data, lines, format);
  const claim = claimOf(file, phase, data, lines);
  const parsed = PlanFrontmatterSchema.safeParse(data);
  if (!parsed.success) {
    return {
      problems: [
        ...problems,
        ...issuesToProblems(file, PlanFrontmatterSchema, parsed.error, data, lines),
        ...salvagedCheckProblems(file, data.must_pass, data.serve, lines, ['must_pass']),
      ],
      claim,
    };
  }
  const plan = planOf(parsed.data, { file, phase, body, bodyLine, format, lines });

  problems.push(...checkFallback(file, plan, lines));
  problems.push(...checkChecks(file, plan.mustPass, lines, ['must_pass'], plan.serve));
  // A plan done before harness is not run, so checks it never had cannot let it pass undone.
  if (plan.completed === undefined) {
    const vacuous = checkVacuous(file, plan, lines);
    if (vacuous) problems.push(vacuous);
  }
  return { plan, problems, claim };
}

/** The frontmatter in harness's keys (a dialect's mapped, keeping each key's line), and the form it was written in. */
function inHarnessForm(frontmatter: Frontmatter, reading: PlanReading): { data: Record<string, unknown>; lines: LineMap; format: string } {
  const dialect = reading.dialects?.find((d) => d.matches(frontmatter.data));
  const format = dialect?.name ?? 'harness';
  const { data, lines } = dialect ? dialect.toHarness(frontmatter.data, frontmatter.lines, frontmatter.body) : frontmatter;
  return { data, lines, format };
}

/** What is wrong on the raw frontmatter whatever else is: paths outside the repository, a `wave` harness ignores. */
function rawProblems(file: string, data: Record<string, unknown>, lines: LineMap, format: string): Problem[] {
  const problems = checkGlobs(file, data, lines);
  for (const p of checkCheckPaths(file, data.must_pass, lines, ['must_pass'])) problems.push(p);
  if (format === 'harness' && data.wave !== undefined) {
    problems.push(problem(file, lines.lineOf(['wave']), 'field-ignored', 'wave is ignored: harness orders plans by depends_on', 'warning'));
  }
  return problems;
}

/** The id and dependencies the file claims, those that are well-formed, whether or not the plan parses. */
function claimOf(file: string, phase: string, data: Record<string, unknown>, lines: LineMap): PlanClaim {
  const claim: PlanClaim = {
    file,
    phase,
    dependsOn: Array.isArray(data.depends_on) ? data.depends_on.filter((d): d is string => typeof d === 'string' && PLAN_ID.test(d)) : [],
    lines,
  };
  if (typeof data.plan_id === 'string' && PLAN_ID.test(data.plan_id)) claim.id = data.plan_id;
  return claim;
}

/** Where a plan's frontmatter came from: its file and phase, its body, the form it was written in, the lines of its keys. */
interface PlanSource {
  file: string;
  phase: string;
  body: string;
  bodyLine: number;
  format: string;
  lines: LineMap;
}

/** The plan, from its parsed frontmatter: paths and checks normalised, steps read from the body, optional keys only when given. */
function planOf(fmData: PlanFrontmatter, { file, phase, body, bodyLine, format, lines }: PlanSource): Plan {
  // The parsed lists are the parse's own: normalised where they stand rather than copied.
  const mustPass = mapOwn(fmData.must_pass, normalizeCheck) as Check[];
  const plan: Plan = {
    id: fmData.plan_id,
    title: fmData.title,
    phase,
    file,
    dependsOn: fmData.depends_on,
    filesModified: mapOwn(fmData.files_modified, normalizeRepoPath),
    filesRead: mapOwn(fmData.files_read, normalizeRepoPath),
    autonomous: fmData.autonomous,
    checkpoints: fmData.checkpoints,
    timeoutMinutes: fmData.timeout_minutes,
    mustPass,
    requirements: fmData.requirements,
    truths: fmData.truths,
    body,
    bodyLine,
    steps: parseSteps(body, bodyLine),
    format,
    lines,
  };
  if (fmData.agent !== undefined) plan.agent = fmData.agent;
  if (fmData.fallback !== undefined) plan.fallback = fmData.fallback;
  if (fmData.serve !== undefined) plan.serve = fmData.serve;
  if (fmData.budget_usd !== undefined) plan.budgetUsd = fmData.budget_usd;
  if (fmData.metadata !== undefined) plan.metadata = fmData.metadata;
  if (fmData.completed !== undefined) plan.completed = fmData.completed;
  return plan;
}

/** fallback: neither the plan's own agent (it is the one that stopped) nor an engine twice. */
function checkFallback(file: string, plan: Plan, lines: LineMap): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  (plan.fallback ?? []).forEach((name, i) => {
    if (name === plan.agent) {
      problems.push(
        problem(
          file,
          lines.lineOf(['fallback', i]),
          'field-value',
          `fallback lists "${name}", the plan's own agent; it is the engine that stopped, so remove it from fallback`,
        ),
      );
    } else if (seen.has(name)) {
      problems.push(problem(file, lines.lineOf(['fallback', i]), 'field-value', `fallback lists "${name}" twice; list it once`));
    }
    seen.add(name);
  });
  return problems;
}

/** Globs outside the repository, checked on the raw frontmatter so they are reported even when other keys are wrong. */
function checkGlobs(file: string, data: Record<string, unknown>, lines: LineMap): Problem[] {
  const problems: Problem[] = [];
  for (const key of ['files_modified', 'files_read']) {
    const globs = data[key];
    if (!Array.isArray(globs)) continue;
    globs.forEach((glob, i) => {
      if (typeof glob !== 'string') return;
      const verdict = checkRepoPath(glob, 'glob');
      if (!verdict.ok) problems.push(problem(file, lines.lineOf([key, i]), 'path-outside-repo', `${key}[${i}] "${glob}" ${verdict.reason}`));
    });
  }
  return problems;
}

/** Paths in checks (path, cwd, from) that leave the repository, on raw frontmatter. */
export function checkCheckPaths(file: string, checks: unknown, lines: LineMap, at: KeyPath): Problem[] {
  if (!Array.isArray(checks)) return [];
  const problems: Problem[] = [];
  checks.forEach((check, i) => {
    if (!check || typeof check !== 'object') return;
    for (const key of ['path', 'cwd', 'from']) {
      const value = (check as Record<string, unknown>)[key];
      if (typeof value !== 'string') continue;
      const verdict = checkRepoPath(value, 'path');
      if (!verdict.ok) {
        const keyPath = [...at, i, key];
        problems.push(problem(file, lines.lineOf(keyPath), 'path-outside-repo', `${pathText(keyPath)} "${value}" ${verdict.reason}`));
      }
    }
  });
  return problems;
}

export function normalizeCheck(input: CheckInput): Check {
  if (input.type === 'visual_quality' || input.type === 'ux_flow') {
    const { type, ...rest } = input;
    return { ...rest, type: 'human', kind: type };
  }
  return input;
}

/**
 * The checks of a document whose frontmatter did not parse as a whole, checked one by one:
 * each that parses on its own gets the checks a parsed document's get (duplicate ids, regexes,
 * servers, commands that check nothing). Without this, fixing the first round of problems
 * revealed a second round that was there all along.
 */
export function salvagedCheckProblems(file: string, checks: unknown, serve: unknown, lines: LineMap, at: KeyPath): Problem[] {
  if (!Array.isArray(checks)) return [];
  const parsed = checks.map((c) => {
    const r = CheckSchema.safeParse(c);
    return r.success ? normalizeCheck(r.data) : undefined;
  });
  const server = ServeSchema.safeParse(serve);
  // A serve: that is present but wrong is reported already; "nothing serves it" would be a second, false problem.
  const assumed = server.success ? server.data : serve === undefined ? undefined : ({ command: '', url: '' } as Serve);
  return checkChecks(file, parsed, lines, at, assumed);
}

/** Problems within a list of checks: duplicate ids, paths, regexes, servers, commands that check nothing. */
export function checkChecks(file: string, checks: readonly (Check | undefined)[], lines: LineMap, at: KeyPath, serve: Serve | undefined): Problem[] {
  const list: CheckList = { file, lines, at };
  const problems: Problem[] = [];
  const seen = new Map<string, number>();
  checks.forEach((check, i) => {
    if (check === undefined) return;
    const first = seen.get(check.id);
    if (first !== undefined) {
      problems.push(
        problem(
          file,
          lineIn(list, i, 'id'),
          'duplicate-check',
          `${pathText(keyIn(list, i))}: check id "${check.id}" is already used by ${pathText([...at, first])}; give each check its own id`,
        ),
      );
    } else seen.set(check.id, i);
    problems.push(...regexProblems(list, check, i), ...emptyExpectations(list, check, i));
    const trivial = trivialCommand(list, check, i);
    if (trivial) problems.push(trivial);
    const unserved = unservedTarget(list, check, i, serve);
    if (unserved) problems.push(unserved);
  });
  return problems;
}

/** Where a list of checks is, to place a problem in it. */
interface CheckList {
  file: string;
  lines: LineMap;
  at: KeyPath;
}

// Key paths and lines are made only for a problem: most checks have none.
function keyIn(list: CheckList, i: number, ...keys: string[]): KeyPath {
  return [...list.at, i, ...keys];
}

function lineIn(list: CheckList, i: number, key?: string): number {
  return list.lines.lineOf(key ? keyIn(list, i, key) : keyIn(list, i));
}

/** A pattern (file_contains, key_link) or expected match (command_output) that is not a valid regular expression. */
function regexProblems(list: CheckList, check: Check, i: number): Problem[] {
  const problems: Problem[] = [];
  const checkRegex = (source: string | undefined, key: string[]): void => {
    if (source === undefined) return;
    const error = regexError(source);
    if (error === undefined) return;
    problems.push(
      problem(
        list.file,
        list.lines.lineOf(keyIn(list, i, ...key)),
        'field-value',
        `${pathText(keyIn(list, i, ...key))} is not a valid regular expression: ${error}`,
      ),
    );
  };
  if (check.type === 'file_contains' || check.type === 'key_link') checkRegex(check.pattern, ['pattern']);
  if (check.type === 'command_output') checkRegex(check.expect.matches, ['expect', 'matches']);
  return problems;
}

/** A check that expects nothing: file_contains without contains or pattern, an empty expect. */
function emptyExpectations(list: CheckList, check: Check, i: number): Problem[] {
  const { file } = list;
  const problems: Problem[] = [];
  if (check.type === 'file_contains' && check.contains === undefined && check.pattern === undefined) {
    problems.push(problem(file, lineIn(list, i), 'field-missing', `${pathText(keyIn(list, i))} (file_contains) needs "contains" or "pattern"`));
  }
  if (check.type === 'command_output' && Object.keys(check.expect).length === 0) {
    problems.push(
      problem(
        file,
        lineIn(list, i, 'expect'),
        'field-value',
        `${pathText(keyIn(list, i, 'expect'))} is empty; say what the output must hold: exit_code, contains or matches`,
      ),
    );
  }
  if (check.type === 'api_response' && Object.keys(check.expect).length === 0) {
    problems.push(
      problem(
        file,
        lineIn(list, i, 'expect'),
        'field-value',
        `${pathText(keyIn(list, i, 'expect'))} is empty; say what the answer must hold: status, body_contains or json`,
      ),
    );
  }
  if (check.type === 'ui_navigation' && Object.keys(check.expect).length === 0) {
    problems.push(
      problem(
        file,
        lineIn(list, i, 'expect'),
        'field-value',
        `${pathText(keyIn(list, i, 'expect'))} is empty; say where navigation must end: url, selector or text`,
      ),
    );
  }
  return problems;
}

/** A command that succeeds whatever the work did (a warning). */
function trivialCommand(list: CheckList, check: Check, i: number): Problem | undefined {
  if (!('command' in check) || !isTrivialCommand(check.command)) return undefined;
  return problem(
    list.file,
    lineIn(list, i, 'command'),
    'vacuous-plan',
    `${pathText(keyIn(list, i, 'command'))} "${check.command}" succeeds whatever the work did; run something that can fail`,
    'warning',
  );
}

/** A request or page at a relative URL when nothing serves the plan. */
function unservedTarget(list: CheckList, check: Check, i: number, serve: Serve | undefined): Problem | undefined {
  const target = check.type === 'api_response' ? check.request.split(' ')[1]! : 'url' in check ? check.url : undefined;
  if (target === undefined || /^https?:\/\//.test(target) || serve) return undefined;
  return problem(
    list.file,
    lineIn(list, i, check.type === 'api_response' ? 'request' : 'url'),
    'needs-server',
    `${pathText(keyIn(list, i))} (${check.type}) calls "${target}" but nothing serves it; add serve: { command: "npm start", url: "http://127.0.0.1:3000" } or use an absolute URL`,
  );
}

/**
 * Why a pattern is not a valid regular expression, or undefined. Remembered by pattern:
 * plans repeat a few (a spec of thousands compiled the same one in every plan).
 */
const regexErrors = new Map<string, string | undefined>();
function regexError(source: string): string | undefined {
  if (regexErrors.has(source)) return regexErrors.get(source);
  let error: string | undefined;
  try {
    new RegExp(source);
  } catch (e) {
    error = (e as Error).message.replace(/^Invalid regular expression: /, '');
  }
  if (regexErrors.size >= 1024) regexErrors.clear();
  regexErrors.set(source, error);
  return error;
}

/** Each element of a list through `f`, in the list itself (which must be the caller's own). */
function mapOwn<T, U>(list: (T | U)[], f: (value: T) => U): U[] {
  for (let i = 0; i < list.length; i++) list[i] = f(list[i] as T);
  return list as U[];
}

function checkVacuous(file: string, plan: Plan, lines: LineMap): Problem | undefined {
  let machine = 0;
  let human = 0;
  for (const check of plan.mustPass) {
    if (isMachineCheckable(check)) machine++;
    if (HUMAN_TYPES.has(check.type)) human++;
  }
  if (machine > 0) return undefined;
  if (human > 0 && !plan.autonomous) return undefined;
  const line = lines.has(['must_pass']) ? lines.lineOf(['must_pass']) : lines.lineOf(['plan_id']);
  const why =
    plan.mustPass.length === 0 ? 'has no must_pass checks' : human > 0 ? 'has only human checks but is autonomous: true' : 'has only checks that cannot fail';
  return problem(
    file,
    line,
    'vacuous-plan',
    `plan ${plan.id} ${why}, so it could pass without the work being done; add a machine-checkable check such as { id: tests, type: tests_pass, command: "npm test" }`,
  );
}

const FENCE = /^(```+|~~~+)[ \t]*([A-Za-z0-9_+-]+)[ \t]+step\b[ \t]*(.*)$/;

/**
 * Shell blocks marked as steps: ```sh step Create the types. The body is walked line by
 * line in place: only lines that open a fence are cut out (splitting every body into
 * lines was a tenth of loading a large spec).
 */
export function parseSteps(body: string, bodyLine: number): Step[] {
  const steps: Step[] = [];
  let line = 0;
  for (let at = 0; at < body.length;) {
    const end = lineEnd(body, at);
    const first = body.charCodeAt(at);
    const open = first === 96 || first === 126 ? FENCE.exec(body.slice(at, end)) : null;
    if (!open) {
      at = end + 1;
      line++;
      continue;
    }
    const fence = open[1]!;
    // The content runs to the first line that starts with the same fence, or to the end.
    const from = end + 1;
    let close = from;
    let closeLine = line + 1;
    while (close < body.length && !body.startsWith(fence, close)) {
      close = lineEnd(body, close) + 1;
      closeLine++;
    }
    steps.push({
      title: open[3]!.trim() || `Step ${steps.length + 1}`,
      lang: open[2]!,
      script: from >= body.length ? '' : body.slice(from, close >= body.length ? body.length : close - 1),
      line: bodyLine + line,
    });
    at = lineEnd(body, close) + 1;
    line = closeLine + 1;
  }
  return steps;
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  return end === -1 ? text.length : end;
}
