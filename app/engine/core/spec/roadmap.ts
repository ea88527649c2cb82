import type { z } from 'zod';
import { LineMap, parseFrontmatter } from './frontmatter.js';
import { issuesToProblems } from './issues.js';
import type { Check, Serve } from './model.js';
import { checkCheckPaths, checkChecks, normalizeCheck, salvagedCheckProblems } from './plan.js';
import { problem, type Problem } from './problem.js';
import { RoadmapFrontmatterSchema, type RoadmapPhaseSchema, SINGLE_LINE } from './schema.js';

export interface RoadmapPhase {
  id: string;
  title: string;
  goal?: string;
  mustPass: Check[];
  serve?: Serve;
  line: number;
}

export interface ParsedRoadmap {
  phases: RoadmapPhase[];
  /** Line of the `phases:` key, or 1. */
  line: number;
  lines: LineMap;
  problems: Problem[];
}

// Matched against a line already trimmed at the end: a lazy title followed by "\s*$" made a
// heading with a long run of spaces quadratic (1 MiB of them took about an hour).
const HEADING = /^#{2,3}[ \t]+Phase[ \t]+(\d{1,3})(\.\d+)?[ \t]*[:.\u2013\u2014-][ \t]*(\S.*)$/i;
const GOAL = /^\*\*Goal\*\*:?\s*(.+)$/i;

/**
 * ROADMAP.md lists phases in its frontmatter (harness's form). A roadmap without
 * frontmatter phases, as GSD writes it, is read from its "### Phase N: Name" headings.
 */
export function parseRoadmap(file: string, text: string): ParsedRoadmap {
  const fm = parseFrontmatter(file, text, false);
  if (!fm.ok) return { phases: [], line: 1, lines: new LineMap(1), problems: fm.problems };
  const { data, lines, body, bodyLine } = fm.frontmatter;
  const problems = rawPhaseProblems(file, data, lines);
  const parsed = RoadmapFrontmatterSchema.safeParse(data);
  if (!parsed.success) {
    const salvaged = salvagedPhaseProblems(file, data, lines);
    return { phases: [], line: 1, lines, problems: [...problems, ...issuesToProblems(file, RoadmapFrontmatterSchema, parsed.error, data, lines), ...salvaged] };
  }
  if (parsed.data.phases.length > 0) {
    const phases = frontmatterPhases(file, parsed.data.phases, lines, problems);
    return { phases, line: lines.lineOf(['phases']), lines, problems };
  }
  return { phases: headingPhases(file, body, bodyLine, problems), line: 1, lines, problems };
}

/** Paths in the phases' checks that leave the repository, on the raw frontmatter. */
function rawPhaseProblems(file: string, data: Record<string, unknown>, lines: LineMap): Problem[] {
  const problems: Problem[] = [];
  if (Array.isArray(data.phases)) {
    data.phases.forEach((p: unknown, i) => {
      if (p && typeof p === 'object') problems.push(...checkCheckPaths(file, (p as Record<string, unknown>).must_pass, lines, ['phases', i, 'must_pass']));
    });
  }
  return problems;
}

/** The problems of each phase's checks that parse on their own, when the frontmatter as a whole did not. */
function salvagedPhaseProblems(file: string, data: Record<string, unknown>, lines: LineMap): Problem[] {
  if (!Array.isArray(data.phases)) return [];
  return data.phases.flatMap((p: unknown, i) => {
    const phase = p && typeof p === 'object' ? (p as Record<string, unknown>) : {};
    return salvagedCheckProblems(file, phase.must_pass, phase.serve, lines, ['phases', i, 'must_pass']);
  });
}

/** The phases listed in the frontmatter (harness's form), their checks' problems added to `problems`. */
function frontmatterPhases(file: string, given: z.output<typeof RoadmapPhaseSchema>[], lines: LineMap, problems: Problem[]): RoadmapPhase[] {
  return given.map((p, i): RoadmapPhase => {
    const mustPass = p.must_pass.map(normalizeCheck);
    problems.push(...checkChecks(file, mustPass, lines, ['phases', i, 'must_pass'], p.serve));
    const phase: RoadmapPhase = { id: p.id, title: p.title, mustPass, line: lines.lineOf(['phases', i]) };
    if (p.goal !== undefined) phase.goal = p.goal;
    if (p.serve !== undefined) phase.serve = p.serve;
    return phase;
  });
}

/** The phases of a roadmap without frontmatter phases (GSD's), from its "### Phase N: Name" headings and **Goal** lines. */
function headingPhases(file: string, body: string, bodyLine: number, problems: Problem[]): RoadmapPhase[] {
  const phases: RoadmapPhase[] = [];
  const bodyLines = body.split('\n');
  bodyLines.forEach((text, i) => {
    const m = text.startsWith('##') ? HEADING.exec(text.trimEnd()) : null;
    if (!m) return;
    if (m[2]) {
      problems.push(problem(file, bodyLine + i, 'field-ignored', `decimal phase ${m[1]}${m[2]} is not supported; renumber it as a whole phase`, 'warning'));
      return;
    }
    const phase: RoadmapPhase = { id: m[1]!.padStart(2, '0'), title: m[3]!.replace(/\*+/g, '').trim(), mustPass: [], line: bodyLine + i };
    if (!SINGLE_LINE.test(phase.title)) {
      // As a title in frontmatter: it becomes issue titles and commit subjects.
      problems.push(
        problem(
          file,
          bodyLine + i,
          'control-character',
          `the heading of phase ${m[1]} has control characters or format characters (bidi controls, zero-width characters); write its title as plain text`,
        ),
      );
      return;
    }
    const goal = goalAfter(bodyLines, i);
    if (goal !== undefined) phase.goal = goal;
    phases.push(phase);
  });
  return phases;
}

/** The first **Goal** line under the heading at `i`, before the next heading. */
function goalAfter(bodyLines: readonly string[], i: number): string | undefined {
  for (let k = i + 1; k < bodyLines.length && !/^#{1,3}\s/.test(bodyLines[k]!); k++) {
    const goal = GOAL.exec(bodyLines[k]!.trim());
    if (goal) return goal[1]!.trim();
  }
  return undefined;
}
