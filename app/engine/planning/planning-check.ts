import picomatch from 'picomatch';
import { PICOMATCH_OPTIONS } from '../core/graph/glob.js';
import { parseFrontmatter } from '../core/spec/frontmatter.js';
import { loadSpec, type LoadedSpec } from '../core/spec/load.js';
import type { Spec } from '../core/spec/model.js';
import { formatProblem, problem, type Problem } from '../core/spec/problem.js';
import type { SpecFile } from '../core/spec/text.js';
import type { PlanningCommand } from './planning-command.js';
import type { PlanningStage } from './planning-steps.js';

export const CONFIDENCE_LEVELS = ['high', 'medium', 'low'] as const;

export interface PlanningCheckInput {
  command: PlanningCommand;
  stage: PlanningStage;
  /** The spec before the command ran: only problems the agent brought in are its to fix. */
  before: LoadedSpec;
  /** The spec directory's files after the stage (spec-relative paths). */
  after: readonly SpecFile[];
  /** The spec directory, repository-relative, to prefix problems with. */
  specDir: string;
}

export interface PlanningCheck {
  /** `file:line: message`, repository-relative; empty when the stage may be committed. */
  problems: string[];
  /**
   * Problems that were so before the command ran, in documents as they were written before it
   * (a plan a person wrote, or imported): said to the person, never given to the agent to fix,
   * and never what keeps its work from being committed.
   */
  earlier: string[];
  /** The spec after the stage, when it loads. */
  spec?: Spec;
}

const text = (file: SpecFile | undefined): string | undefined => (file === undefined ? undefined : new TextDecoder().decode(file.bytes));

/**
 * Judge what a planning stage wrote before anything is committed: the documents it must
 * write are there and say something; research states its confidence and its sources; the
 * spec still loads with no error it did not have before (the same validator as `harness
 * validate`); a roadmap's phases each have a goal and phase-level checks; a phase's plans are
 * goal-backward (truths), bounded (files) and checked (must_pass); add-phase adds one phase.
 */
export function checkPlanningStage(input: PlanningCheckInput): PlanningCheck {
  const { stage, command } = input;
  const found: Problem<string>[] = [];
  const byPath = new Map(input.after.map((f) => [f.path, f]));

  for (const path of stage.writes) {
    const body = text(byPath.get(path));
    if (body === undefined) found.push(problem(path, 1, 'missing', `\`${command.name}\` must write this file, and it was not written`));
    else if (body.trim() === '') found.push(problem(path, 1, 'empty', 'the file is empty: write the document'));
    else if (stage.research) found.push(...researchProblems(path, body));
    else if (stage.verdict) found.push(...verdictProblems(path, body));
    if (body !== undefined && body.trim() !== '' && stage.sections) found.push(...sectionProblems(path, body, stage.sections));
  }
  if (stage.writesSome !== undefined) {
    const match = picomatch(stage.writesSome, PICOMATCH_OPTIONS);
    if (!input.after.some((f) => match(f.path)))
      found.push(problem(stage.writesSome, 1, 'missing', `\`${command.name}\` must write at least one plan here, and wrote none`));
  }

  const loaded = loadSpec(input.after);
  const known = new Set(input.before.problems.map((p) => formatProblem(p)));
  const earlier: Problem<string>[] = [];
  const errors = loaded.problems.filter((p) => p.severity === 'error');
  for (const p of errors) (known.has(formatProblem(p)) ? earlier : found).push(p);

  // The errors the spec had before do not keep the command's own documents from being judged.
  const spec = loaded.spec;
  if (spec && errors.every((p) => known.has(formatProblem(p)))) {
    found.push(...commandProblems(command, spec, input.before.spec));
    // A phase or plan that lacked a goal, truths or checks before the command ran is as it was written, not the agent's doing
    // (add-phase must leave the phases there were as they are); create-roadmap writes the whole roadmap, every phase in it its own.
    const before = new Set(
      input.before.spec && command.name !== 'create-roadmap' ? itemProblems(command, input.before.spec).map((p) => formatProblem(p as Problem)) : [],
    );
    for (const p of itemProblems(command, spec)) (before.has(formatProblem(p as Problem)) ? earlier : found).push(p);
  }
  const shown = (p: Problem<string>) => formatProblem(p as Problem, input.specDir === '.' ? '' : input.specDir);
  return { problems: found.map(shown), earlier: earlier.map(shown), ...(spec ? { spec } : {}) };
}

/** Each section named, as a `## ` heading with text under it before the next heading. */
function sectionProblems(path: string, body: string, sections: readonly string[]): Problem<string>[] {
  const lines = body.split('\n');
  const headings = lines.flatMap((l, i) =>
    /^##\s/.test(l)
      ? [
          {
            title: l
              .replace(/^##\s+/, '')
              .trim()
              .toLowerCase(),
            at: i,
          },
        ]
      : [],
  );
  const out: Problem<string>[] = [];
  for (const section of sections) {
    const h = headings.find((x) => x.title === section.toLowerCase());
    if (!h) {
      out.push(problem(path, 1, 'section', `missing the "## ${section}" section; write what it says (or "none" where that is so)`));
      continue;
    }
    const next = lines.findIndex((l, i) => i > h.at && /^#{1,2}\s/.test(l));
    const under = lines
      .slice(h.at + 1, next < 0 ? undefined : next)
      .join('\n')
      .trim();
    if (under === '') out.push(problem(path, h.at + 1, 'section', `the "## ${section}" section is empty; write what it says (or "none" where that is so)`));
  }
  return out;
}

function researchProblems(path: string, body: string): Problem<string>[] {
  const out: Problem<string>[] = [];
  const fm = parseFrontmatter(path, body, false);
  const confidence = fm.ok ? fm.frontmatter.data.confidence : undefined;
  if (typeof confidence !== 'string' || !(CONFIDENCE_LEVELS as readonly string[]).includes(confidence)) {
    out.push(problem(path, 1, 'confidence', `say how sure the research is: frontmatter \`confidence: ${CONFIDENCE_LEVELS.join('|')}\``));
  }
  if (!/^## Sources\s*$/m.test(body)) {
    out.push(problem(path, 1, 'sources', 'list where each finding comes from under a "## Sources" heading (write "none found" there rather than nothing)'));
  }
  return out;
}

function verdictProblems(path: string, body: string): Problem<string>[] {
  const out: Problem<string>[] = [];
  const fm = parseFrontmatter(path, body, false);
  const verdict = fm.ok ? fm.frontmatter.data.verdict : undefined;
  if (verdict !== 'pass' && verdict !== 'gaps')
    out.push(problem(path, 1, 'verdict', 'give the verdict in the frontmatter: `verdict: pass` or `verdict: gaps`'));
  if (!/^## Coverage\s*$/m.test(body)) out.push(problem(path, 1, 'coverage', 'show each success criterion against the plans under a "## Coverage" heading'));
  return out;
}

/** What the command must have done as a whole: a roadmap with phases, exactly one phase added, the phase planned. */
function commandProblems(command: PlanningCommand, spec: Spec, before: Spec | undefined): Problem<string>[] {
  const out: Problem<string>[] = [];
  switch (command.name) {
    case 'create-roadmap':
    case 'add-phase': {
      if (spec.phases.length === 0) out.push(problem('ROADMAP.md', 1, 'no-phases', 'the roadmap has no phases: list them under `phases:` in its frontmatter'));
      if (command.name === 'add-phase') {
        const had = before?.phases.length ?? 0;
        if (spec.phases.length !== had + 1) {
          out.push(problem('ROADMAP.md', 1, 'add-phase', `add-phase adds exactly one phase: the roadmap had ${had} and now has ${spec.phases.length}`));
        }
        for (const old of before?.phases ?? []) {
          const now = spec.phases.find((p) => p.id === old.id);
          if (!now || now.goal !== old.goal)
            out.push(problem('ROADMAP.md', 1, 'add-phase', `add-phase changed phase ${old.id}; leave the existing phases as they are`));
        }
      }
      break;
    }
    case 'plan-phase':
      if (!spec.phases.some((p) => p.id === command.phase)) out.push(problem('ROADMAP.md', 1, 'no-phase', `the roadmap has no phase ${command.phase}`));
      break;
    default:
      break;
  }
  return out;
}

/** What each phase of the roadmap, or each plan of the phase, must say: judged the same way before the command and after it. */
function itemProblems(command: PlanningCommand, spec: Spec): Problem<string>[] {
  const out: Problem<string>[] = [];
  switch (command.name) {
    case 'create-roadmap':
    case 'add-phase':
      for (const phase of spec.phases) {
        if (!phase.goal?.trim()) out.push(problem('ROADMAP.md', 1, 'phase-goal', `phase ${phase.id} has no goal: say what is true when it is done`));
        if (phase.mustPass.length === 0) {
          out.push(
            problem(
              'ROADMAP.md',
              1,
              'phase-checks',
              `phase ${phase.id} has no must_pass: give it the checks that prove its success criteria on the merged work`,
            ),
          );
        }
      }
      break;
    case 'plan-phase':
      for (const id of spec.phases.find((p) => p.id === command.phase)?.plans ?? []) {
        const plan = spec.planById.get(id)!;
        if (plan.truths.length === 0)
          out.push(
            problem(
              plan.file,
              1,
              'plan-truths',
              `plan ${id} has no truths: say what must be true when it is done (goal-backward from the phase's success criteria)`,
            ),
          );
        if (plan.filesModified.length === 0)
          out.push(problem(plan.file, 1, 'plan-files', `plan ${id} has no files_modified: name what it changes, so that plans can run side by side`));
        if (plan.mustPass.length === 0) out.push(problem(plan.file, 1, 'plan-checks', `plan ${id} has no must_pass: give it checks a machine can run`));
      }
      break;
    default:
      break;
  }
  return out;
}
