import { parseFrontmatter, type LineMap } from '../../core/spec/frontmatter.js';
import { frontmatterText } from './frontmatter-text.js';
import { gsdTasks, type GsdTask } from './gsd-tasks.js';
import { importProblem, type ImportProblem } from './import-problem.js';
import { rewriteMachinePaths } from './machine-paths.js';
import { machineIncludes } from './references.js';
import { fromGsdPlan, gsdTitle } from './plan.js';
import { failableCommand } from './failable-command.js';
import { verifyFindings, type VerifyFinding } from './verify-command.js';

/** GSD keys `fromGsdPlan` maps onto harness's own; the rest are kept under `metadata.gsd`. */
const MAPPED = new Set([
  'phase',
  'plan',
  'title',
  'depends_on',
  'files_modified',
  'files_read',
  'autonomous',
  'requirements',
  'agent',
  'timeout_minutes',
  'checkpoints',
  'serve',
  'metadata',
  'must_pass',
  'must_haves',
]);
const MUST_HAVES_MAPPED = new Set(['truths', 'artifacts', 'key_links']);

/** harness's PLAN.md keys, in the order docs/design.md writes them. */
const ORDER = [
  'plan_id',
  'title',
  'depends_on',
  'files_modified',
  'files_read',
  'autonomous',
  'checkpoints',
  'agent',
  'timeout_minutes',
  'requirements',
  'completed',
  'truths',
  'must_pass',
  'serve',
  'metadata',
];

/** GSD's checkpoint task types that are a checkpoint of harness's own kind. */
const CHECKPOINT_KIND: Record<string, 'decision' | 'action'> = {
  'checkpoint:decision': 'decision',
  'checkpoint:human-action': 'action',
};

/** Where a plan lands, decided for the whole tree before any plan is written. */
export interface PlanPlacement {
  /** The harness plan id, "03-02". */
  id: string;
  /** GSD's own id, "02.1-02A", kept in metadata when it differs. */
  gsdId: string;
  /** The phase directory, as GSD named it: plans without frontmatter say where they are only through it. */
  dir: string;
  /** GSD's plan key, "02A". */
  plan: string;
  /** GSD's depends_on, read as harness ids. */
  dependsOn: string[];
  /** Added so that the plan waits for the previous phase, as GSD ran phases (import.ts). */
  phaseOrder: string[];
  /** The date (or "complete") a GSD SUMMARY.md gave for this plan being done. */
  completed?: string;
  /** The repository's place on the author's machine, cut from `<verify>` commands. */
  machineRoot?: string;
  /** The requirement ids ROADMAP.md names for the plan's phase: the plan's, when it names none itself. */
  roadmapRequirements?: string[];
}

export interface ImportedPlan {
  text: string;
  problems: ImportProblem[];
  /** @-include lines of GSD's own instructions on the author's machine, dropped (references.ts). */
  gsdIncludes: number;
}

/**
 * Rewrite one GSD PLAN.md in harness's own frontmatter, body unchanged but for its @-includes
 * of files on the author's machine (references.ts): its id and
 * dependencies as placed, GSD's `<verify>` commands as command checks, its human-verify
 * checkpoints as human checks. A plan already in harness's form, or one whose frontmatter does
 * not parse, is returned as it is: validating the written spec then reports what is wrong, at
 * the right line.
 */
export function importPlan(file: string, text: string, at: PlanPlacement): ImportedPlan {
  const fm = parseFrontmatter(file, text, false);
  if (!fm.ok) return { text, problems: [], gsdIncludes: 0 };
  const { data, lines, body } = fm.frontmatter;
  if ('plan_id' in data) return { text, problems: [], gsdIncludes: 0 };
  const problems: ImportProblem[] = [];

  const mapped = placedFrontmatter(data, lines, body, at);
  const mustPass = Array.isArray(mapped.must_pass) ? (mapped.must_pass as Record<string, unknown>[]) : [];
  const reading: TaskReading = {
    file,
    at,
    mapped,
    bodyLine: fm.frontmatter.bodyLine,
    mustPass,
    used: new Set(mustPass.map((c) => String(c.id))),
    checkpoints: new Set<string>(Array.isArray(mapped.checkpoints) ? mapped.checkpoints.map(String) : []),
    waits: false,
    problems,
  };
  gsdTasks(body).forEach((task, n) => readTask(reading, task, n));
  mapped.must_pass = mustPass;
  if (reading.checkpoints.size > 0) mapped.checkpoints = ['decision', 'verification', 'action'].filter((k) => reading.checkpoints.has(k));
  if (mapped.autonomous === undefined) mapped.autonomous = !reading.waits;
  if (at.completed !== undefined) mapped.completed = at.completed;
  keepGsdLeftovers(data, at, mapped);

  const ordered: Record<string, unknown> = {};
  for (const key of ORDER) if (mapped[key] !== undefined) ordered[key] = mapped[key];
  const included = machineIncludes(body, at.machineRoot, file, fm.frontmatter.bodyLine);
  problems.push(...included.problems);
  return { text: frontmatterText(ordered) + included.body, problems, gsdIncludes: included.gsd };
}

/** GSD's frontmatter in harness's keys, placed: its id, a title, its dependencies with the phase order, files and requirements filled in. */
function placedFrontmatter(data: Record<string, unknown>, lines: LineMap, body: string, at: PlanPlacement): Record<string, unknown> {
  // Plans from before GSD wrote frontmatter say where they are only through their path.
  const gsd: Record<string, unknown> = { ...data, phase: data.phase ?? at.dir, plan: data.plan ?? at.plan };
  const { data: mapped } = fromGsdPlan(gsd, lines, body);
  mapped.plan_id = at.id;
  if (typeof data.title !== 'string') mapped.title = gsdTitle(body, at.gsdId) ?? `Plan ${at.gsdId}`;
  mapped.depends_on = [...at.dependsOn, ...at.phaseOrder.filter((d) => !at.dependsOn.includes(d))];
  if (mapped.files_modified === undefined) mapped.files_modified = [];
  if ((!Array.isArray(mapped.requirements) || mapped.requirements.length === 0) && at.roadmapRequirements) mapped.requirements = at.roadmapRequirements;
  return mapped;
}

/** What the plan's GSD tasks add up to as they are read, in order: checks, checkpoint kinds, whether one waits for a person, problems. */
interface TaskReading {
  file: string;
  at: PlanPlacement;
  /** The frontmatter mapped so far: the plan's files, that a `<verify>` may name. */
  mapped: Record<string, unknown>;
  /** The file line the body starts on: a task's lines are the body's. */
  bodyLine: number;
  mustPass: Record<string, unknown>[];
  /** Check ids taken. */
  used: Set<string>;
  checkpoints: Set<string>;
  waits: boolean;
  problems: ImportProblem[];
}

/** The task's `<verify>`, as its checks and problems name it: the task, its line, a fresh check id, a description. */
interface TaskVerify {
  where: string;
  line: number;
  id: () => string;
  description: { description?: string };
}

/** One GSD task: a checkpoint (a checkpoint kind, or a human check), or its `<verify>` turned into checks. */
function readTask(r: TaskReading, task: GsdTask, n: number): void {
  if (task.type.startsWith('checkpoint:')) {
    r.waits = true;
    const kind = CHECKPOINT_KIND[task.type];
    if (kind) r.checkpoints.add(kind);
    else {
      r.checkpoints.add('verification');
      r.mustPass.push(humanCheck(task, uniqueId(r.used, `human-${slug(task.name ?? `task-${n + 1}`)}`)));
    }
    return;
  }
  if (task.verify === undefined) return;
  const site: TaskVerify = {
    where: task.name ? `"${task.name}"` : `task ${n + 1}`,
    line: r.bodyLine + task.line - 1,
    id: () => uniqueId(r.used, `verify-${slug(task.name ?? `task-${n + 1}`)}`),
    description: task.name ? { description: `GSD <verify> of ${task.name}` } : {},
  };
  const findings = verifyFindings(task.verify);
  const unchecked = findings.filter((f) => f.kind === 'unchecked');
  if (unchecked.length > 0) r.problems.push(uncheckedProblem(r.file, site, unchecked));
  for (const finding of findings) {
    if (finding.kind === 'unchecked') continue;
    if (finding.kind === 'content') contentCheck(r, site, finding);
    else commandCheck(r, site, finding);
  }
}

/** The words of a `<verify>` that are not a check, as a warning: harness does not guess a check from them. */
function uncheckedProblem(file: string, site: TaskVerify, unchecked: readonly Extract<VerifyFinding, { kind: 'unchecked' }>[]): ImportProblem {
  const said = unchecked
    .map(
      (f) =>
        `"${f.text.length > 160 ? `${f.text.slice(0, 157)}...` : f.text}"${f.command ? ` (its command \`${f.command}\` is checked by its exit status alone)` : ''}`,
    )
    .join('; ');
  return importProblem(
    file,
    site.line,
    'unchecked-verify',
    `${site.where}: its <verify> says ${said}, which harness does not turn into a check from the words; write it in must_pass (a command_output with expect.contains, a file_contains, or a human check)`,
    'warning',
  );
}

/** A `<verify>` that a file holds (or lacks) some text: a check of one of the plan's files, when it names one. */
function contentCheck(r: TaskReading, site: TaskVerify, finding: Extract<VerifyFinding, { kind: 'content' }>): void {
  const path = planFile(finding.file, r.mapped);
  if (path === undefined) return;
  r.mustPass.push(
    finding.absent
      ? {
          id: site.id(),
          type: 'command_output',
          command: `! grep -qF -e ${shellQuote(finding.text)} -- ${shellQuote(path)}`,
          ...site.description,
          expect: { exit_code: 0 },
        }
      : { id: site.id(), type: 'file_contains', path, contains: finding.text, ...site.description },
  );
}

/** A `<verify>` command: a command check, unless it names the author's machine or cannot fail (a warning each). */
function commandCheck(r: TaskReading, site: TaskVerify, finding: Extract<VerifyFinding, { kind: 'command' }>): void {
  const rewritten = rewriteMachinePaths(finding.command, r.at.machineRoot);
  if (rewritten.foreign.length > 0) {
    r.problems.push(
      importProblem(
        r.file,
        site.line,
        'machine-path',
        `${site.where}: its <verify> command names ${rewritten.foreign.join(', ')}, a path on the author's machine outside the repository, so it was not made a check; rewrite it relative to the repository root and add it to must_pass`,
        'warning',
      ),
    );
    return;
  }
  const command = failableCommand(rewritten.command);
  if (command === undefined) {
    r.problems.push(
      importProblem(
        r.file,
        site.line,
        'vacuous-verify',
        `${site.where}: its <verify> command \`${rewritten.command}\` cannot fail as written (its status is echo's or a display trim's), so it was not made a check`,
        'warning',
      ),
    );
    return;
  }
  r.mustPass.push({
    id: site.id(),
    type: 'command_output',
    command,
    ...site.description,
    expect: { exit_code: 0, ...(finding.contains !== undefined ? { contains: finding.contains } : {}) },
  });
}

/** GSD keys harness does not read, GSD's own id when it differs and the phase order added, under `metadata.gsd`. */
function keepGsdLeftovers(data: Record<string, unknown>, at: PlanPlacement, mapped: Record<string, unknown>): void {
  const kept = leftovers(data);
  if (at.gsdId !== at.id) kept.id = at.gsdId;
  if (at.phaseOrder.length > 0) kept.phase_order = at.phaseOrder;
  if (Object.keys(kept).length > 0) {
    const metadata = isRecord(mapped.metadata) ? mapped.metadata : {};
    mapped.metadata = { ...metadata, gsd: kept };
  }
}

/** The plan's file a `<verify>` names ("App.tsx"): the one of its files with that path, or with that name when only one has it. */
function planFile(named: string, mapped: Record<string, unknown>): string | undefined {
  const files = [mapped.files_modified, mapped.files_read].flatMap((l) => (Array.isArray(l) ? l.map(String) : [])).filter((f) => !/[*?[{]/.test(f));
  const clean = named.replace(/^\.\//, '');
  if (files.includes(clean)) return clean;
  const byName = [...new Set(files.filter((f) => f === clean || f.endsWith(`/${clean}`)))];
  return byName.length === 1 ? byName[0] : undefined;
}

/** A word for sh, quoted whole. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A person looks: what was built, and how to check it, as GSD's checkpoint wrote them. */
function humanCheck(task: GsdTask, id: string): Record<string, unknown> {
  const parts = [
    task.whatBuilt && `Built: ${task.whatBuilt}`,
    task.howToVerify,
    !task.whatBuilt && !task.howToVerify ? (task.action ?? task.name) : undefined,
  ].filter((p): p is string => typeof p === 'string' && p.trim() !== '');
  const prompt = parts.join('\n\n') || `Check GSD's ${task.type} task${task.name ? ` "${task.name}"` : ''}`;
  const visual = /\b(?:look|looks|visual|layout|colou?r|styl|align|render|screenshot|responsive|contrast|font|spacing|red|dark mode)/i.test(prompt);
  return { id, type: 'human', kind: visual ? 'visual_quality' : 'ux_flow', prompt };
}

function uniqueId(used: Set<string>, wanted: string): string {
  let id = wanted;
  for (let n = 2; used.has(id); n++) id = `${wanted}-${n}`;
  used.add(id);
  return id;
}

function slug(value: string): string {
  return (
    value
      .toLowerCase()
      .replace(/^task\s+\d+\s*:\s*/, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40)
      .replace(/-+$/, '') || 'task'
  );
}

/** GSD keys harness does not read (wave, type, user_setup, …), kept so nothing is lost. */
function leftovers(data: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) if (!MAPPED.has(key)) kept[key] = value;
  if (isRecord(data.must_haves)) {
    const rest = Object.fromEntries(Object.entries(data.must_haves).filter(([key]) => !MUST_HAVES_MAPPED.has(key)));
    if (Object.keys(rest).length > 0) kept.must_haves = rest;
  }
  return kept;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
