import { parseFrontmatter } from '../../core/spec/frontmatter.js';
import { frontmatterText } from './frontmatter-text.js';
import { importProblem, type ImportProblem } from './import-problem.js';
import type { GsdPhaseDir } from './import-path.js';
import { failableCommand } from './failable-command.js';
import { machinePaths } from './machine-paths.js';
import { verifyFindings } from './verify-command.js';

/** "### Phase 2: Invoices API", "#### Phase 5: Security" (milestone-grouped), "### ✅ Phase 1: Foundation". */
const HEADING = /^#{2,4}\s+(?:[^\w\s#]+\s*)?Phase\s+(\d{1,3})(\.\d+)?\s*[:.\u2013\u2014-]\s*(.+?)\s*$/i;
/** "- [ ] **Phase 1: Foundation** - Data model", the overview list GSD writes above the details. */
const LISTED = /^\s*[-*]\s*\[[ xX]\]\s*\*\*Phase\s+(\d{1,3})(\.\d+)?\s*[:.]\s*(.+?)\*\*\s*(?:[-\u2013\u2014:]\s*(.+?))?\s*$/i;
/** "**Goal**: …" or "**Goal:** …". */
const GOAL = /^\*\*Goal\s*:?\s*\*\*\s*:?\s*(.+)$/i;
const NEXT_HEADING = /^#{1,4}\s/;
/** "**Requirements**: LEDG-01, LEDG-02". */
const REQUIREMENTS = /^\*\*Requirements\s*:?\s*\*\*\s*:?\s*(.+)$/i;
/** "**Success Criteria**:" (its items below), "**Success Criteria** (what must be TRUE):". */
const CRITERIA = /^\*\*Success Criteria\b[^*]*\*\*\s*(?:\([^)]*\))?\s*:?\s*(.*)$/i;
/** Another "**Key**:" line ends the criteria. */
const BOLD_KEY = /^\*\*[^*]+\*\*/;
/** Requirement ids as GSD numbers them: AUTH-01, LEDG-02, REQ-3. */
const REQUIREMENT_ID = /\b[A-Z][A-Z0-9]*-\d+[A-Z]?\b/g;

const MAX_TITLE = 200;

export interface GsdRoadmapPhase {
  /** "02", or "02.1" for an inserted phase. */
  id: string;
  title: string;
  goal?: string;
  /** The requirement ids its `**Requirements**:` line names. */
  requirements?: string[];
  /** Its `**Success Criteria**:` items. */
  criteria?: string[];
  /** Line in GSD's ROADMAP.md. */
  line: number;
}

export interface ImportedRoadmap {
  /** ROADMAP.md in harness's form: frontmatter phases, GSD's prose as the body. */
  text: string;
  problems: ImportProblem[];
  /** Requirement ids each phase (by its harness id) names, for its plans that name none. */
  requirements: Map<string, string[]>;
}

/** The GSD phase ids ("02", "02.1") a ROADMAP.md names, so that ids can be given before it is written. */
export function roadmapPhaseIds(text: string | undefined): string[] {
  if (text === undefined) return [];
  const fm = parseFrontmatter('ROADMAP.md', text, false);
  const [body, bodyLine] = fm.ok ? [fm.frontmatter.body, fm.frontmatter.bodyLine] : [text, 1];
  return readPhases(body, bodyLine).map((p) => p.id);
}

/**
 * Read GSD's phases from its "### Phase N: Name" headings (or, failing those, its
 * "- [ ] **Phase N: Name**" list) and write them as harness's frontmatter phases. Phase
 * directories the roadmap does not name are added, titled from the directory.
 * `text` undefined: there is no ROADMAP.md, and one is written from the directories alone.
 */
export function importRoadmap(text: string | undefined, dirs: readonly GsdPhaseDir[], ids: ReadonlyMap<string, string>): ImportedRoadmap {
  const problems: ImportProblem[] = [];
  let data: Record<string, unknown> = {};
  let body = '';
  let bodyLine = 1;
  if (text !== undefined) {
    const fm = parseFrontmatter('ROADMAP.md', text, false);
    if (fm.ok) ({ data, body, bodyLine } = fm.frontmatter);
    else body = text;
  }

  const found = readPhases(body, bodyLine);
  const phases = new Map<string, GsdRoadmapPhase>();
  for (const phase of found) {
    const first = phases.get(phase.id);
    if (first) {
      problems.push(
        importProblem(
          'ROADMAP.md',
          phase.line,
          'duplicate-phase',
          `phase ${phase.id} is listed again (first on line ${first.line}); the first is kept`,
          'warning',
        ),
      );
      continue;
    }
    phases.set(phase.id, phase);
  }
  for (const dir of dirs) {
    if (phases.has(dir.id)) continue;
    phases.set(dir.id, { id: dir.id, title: titleFromDir(dir.source), line: 1 });
    if (text !== undefined) {
      problems.push(
        importProblem(
          `phases/${dir.source}`,
          1,
          'phase-not-in-roadmap',
          `phase ${dir.id} is not in ROADMAP.md; it was added to the roadmap as "${titleFromDir(dir.source)}"`,
          'warning',
        ),
      );
    }
  }

  const harnessId = (p: GsdRoadmapPhase) => ids.get(p.id) ?? p.id;
  const entries = [...phases.values()]
    .sort((a, b) => Number(harnessId(a)) - Number(harnessId(b)))
    .map((p) => {
      const checks = criteriaChecks(p.criteria ?? []);
      return { id: harnessId(p), title: p.title, ...(p.goal === undefined ? {} : { goal: p.goal }), ...(checks.length > 0 ? { must_pass: checks } : {}) };
    });
  const requirements = new Map([...phases.values()].filter((p) => p.requirements?.length).map((p) => [harnessId(p), p.requirements!]));
  const { phases: _replaced, ...rest } = data;
  const note =
    text === undefined
      ? '<!-- Written by harness import: the GSD tree had no ROADMAP.md, so the phases come from phases/. -->\n'
      : '<!-- Imported from GSD by harness import: harness reads the phases above; the original roadmap follows. -->\n';
  const prose = text === undefined ? '' : `\n${body.replace(/^\n+/, '')}`;
  return { text: `${frontmatterText({ ...rest, phases: entries })}\n${note}${prose}`, problems, requirements };
}

/**
 * The success criteria a machine can check, as phase-level checks: the commands they quote
 * ("`npx vitest run` passes"), each as a check that can fail; the rest ("The totals screen
 * shows the balance") stay prose for people. A command with a path on the author's machine is left out.
 */
function criteriaChecks(criteria: readonly string[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  criteria.forEach((criterion, n) => {
    for (const finding of verifyFindings(criterion)) {
      if (finding.kind !== 'command' || machinePaths(finding.command).length > 0) continue;
      const command = failableCommand(finding.command);
      if (command === undefined) continue;
      const id = `criterion-${n + 1}${out.some((c) => c.id === `criterion-${n + 1}`) ? `-${out.length + 1}` : ''}`;
      out.push({
        id,
        type: 'command_output',
        command,
        description: `GSD success criterion ${n + 1}: ${criterion.slice(0, 160)}`,
        expect: { exit_code: 0, ...(finding.contains !== undefined ? { contains: finding.contains } : {}) },
      });
    }
  });
  return out;
}

function readPhases(body: string, bodyLine: number): GsdRoadmapPhase[] {
  const lines = body.split('\n');
  const headed: GsdRoadmapPhase[] = [];
  const listed: GsdRoadmapPhase[] = [];
  lines.forEach((line, i) => {
    const heading = HEADING.exec(line);
    if (heading) {
      const phase = entry(heading[1]!, heading[2], heading[3]!, bodyLine + i);
      let criteria: string[] | undefined;
      for (let k = i + 1; k < lines.length && !NEXT_HEADING.test(lines[k]!); k++) {
        const text = lines[k]!.trim();
        const goal = GOAL.exec(text);
        if (goal && phase.goal === undefined) phase.goal = goal[1]!.trim();
        const requirements = REQUIREMENTS.exec(text);
        if (requirements) phase.requirements = [...new Set(requirements[1]!.match(REQUIREMENT_ID) ?? [])];
        const opened = CRITERIA.exec(text);
        if (opened) {
          criteria = [];
          if (opened[1]!.trim() !== '') criteria.push(opened[1]!.trim());
          continue;
        }
        if (criteria !== undefined) {
          if (BOLD_KEY.test(text)) criteria = undefined;
          else if (text !== '') (phase.criteria ??= []).push(text.replace(/^(?:[-*+]|\d+[.)])\s+/, ''));
        }
      }
      headed.push(phase);
      return;
    }
    const item = LISTED.exec(line);
    if (item) {
      const phase = entry(item[1]!, item[2], item[3]!, bodyLine + i);
      if (item[4]) phase.goal = item[4].trim();
      listed.push(phase);
    }
  });
  return headed.length > 0 ? headed : listed;
}

function entry(number: string, decimal: string | undefined, title: string, line: number): GsdRoadmapPhase {
  const id = number.padStart(2, '0') + (decimal ?? '');
  const clean = title
    .replace(/\(INSERTED\)/i, '')
    .replace(/[*_`]+/g, '')
    .trim()
    .slice(0, MAX_TITLE);
  return { id, title: clean || `Phase ${id}`, line };
}

function titleFromDir(dir: string): string {
  const words = dir
    .replace(/^\d+(\.\d+)?[-_]?/, '')
    .replace(/[-_]+/g, ' ')
    .trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : `Phase ${dir}`;
}
