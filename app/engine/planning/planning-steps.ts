import type { PlanningCommand } from './planning-command.js';

/**
 * What each planning command asks of its agent, stage by stage, and what it may and must
 * write. Paths are relative to the spec directory. The prompt of a stage is a section of one
 * of the agents' instructions (templates/agents/<agent>.md, `## <section>`): the words are
 * data, the paths and the checks are here.
 */

export type PlanningAgentName = 'planner' | 'researcher' | 'verifier';

export interface PlanningStage {
  /** Names the stage in logs, commit trailers and the agent's environment (HARNESS_PLANNING_STAGE). */
  id: string;
  agent: PlanningAgentName;
  /** The `## <section>` of the agent's instructions this stage is given. */
  section: string;
  /** What the stage is for, in a few words (the brief's title). */
  title: string;
  /** Files the stage must leave behind (exact paths). */
  writes: string[];
  /** Globs of what the stage may change; anything else it touches is put back. */
  may: string[];
  /** A glob of which at least one file must exist after the stage (plans of a phase). */
  writesSome?: string;
  /** Research documents: frontmatter `confidence`, a `## Sources` section. */
  research?: boolean;
  /** A verdict on the plans: frontmatter `verdict: pass|gaps`, a `## Coverage` section. */
  verdict?: boolean;
  /** `## ` sections each file it writes must have, with something under them (docs/planning.md's promise of what the document holds). */
  sections?: string[];
}

/** What PROJECT.md holds (docs/planning.md: Planning; the planner's instructions name the same headings). */
export const PROJECT_SECTIONS = ['Core value', 'Users and use', 'Constraints', 'Out of scope', 'Open questions'];

/** Where the verifier's check of a phase's plans goes. */
export function plansCheckPath(phase: string): string {
  return `planning/checks/phase-${phase}-plans.md`;
}

/** Where the discussion of a phase is kept: questions, the answers people gave, the context the agent drew from them. */
export function discussPaths(phase: string): { questions: string; answers: string; context: string } {
  const base = `planning/discuss/phase-${phase}`;
  return { questions: `${base}-questions.md`, answers: `${base}-answers.md`, context: `${base}-context.md` };
}

export const RESEARCH_DIR = 'planning/research';
export const CODEBASE_DIR = 'planning/codebase';
export const CODEBASE_DOCUMENTS = ['STRUCTURE', 'STACK', 'PATTERNS', 'INTEGRATIONS', 'TESTING', 'CONCERNS'] as const;
export const SPEC_RESEARCHERS = [
  { id: 'stack', section: 'Stack', file: 'STACK.md', title: 'the stack' },
  { id: 'features', section: 'Features', file: 'FEATURES.md', title: 'the features' },
  { id: 'architecture', section: 'Architecture', file: 'ARCHITECTURE.md', title: 'the architecture' },
  { id: 'pitfalls', section: 'Pitfalls', file: 'PITFALLS.md', title: 'the pitfalls' },
] as const;

/** The research document of a phase: the same path research-ahead writes (engine/core/run/research.ts). */
export function phaseResearchPath(phase: string): string {
  return `${RESEARCH_DIR}/phase-${phase}-research.md`;
}

/** What a discussion has so far: the runtime looks, the command's stage follows. */
export interface DiscussState {
  questions: boolean;
  answers: boolean;
}

export function planningStages(command: PlanningCommand, discuss: DiscussState = { questions: false, answers: false }): PlanningStage[] {
  switch (command.name) {
    case 'plan-spec':
      return [
        {
          id: 'project',
          agent: 'planner',
          section: 'Project',
          title: 'PROJECT.md from SPEC.md',
          writes: ['planning/PROJECT.md'],
          may: ['planning/PROJECT.md'],
          sections: PROJECT_SECTIONS,
        },
      ];
    case 'research-spec':
      return researchSpecStages();
    case 'define-requirements':
      return [
        {
          id: 'requirements',
          agent: 'planner',
          section: 'Requirements',
          title: 'REQUIREMENTS.md',
          writes: ['planning/REQUIREMENTS.md'],
          may: ['planning/REQUIREMENTS.md'],
        },
      ];
    case 'create-roadmap':
      return [{ id: 'roadmap', agent: 'planner', section: 'Roadmap', title: 'ROADMAP.md', writes: ['ROADMAP.md'], may: ['ROADMAP.md'] }];
    case 'add-phase':
      return [{ id: 'add-phase', agent: 'planner', section: 'Add phase', title: 'a new phase in ROADMAP.md', writes: ['ROADMAP.md'], may: ['ROADMAP.md'] }];
    case 'discuss-phase':
      return discussPhaseStages(command.phase, discuss);
    case 'research-phase':
      return researchPhaseStages(command.phase);
    case 'plan-phase':
      return planPhaseStages(command.phase);
    case 'map-codebase': {
      const files = CODEBASE_DOCUMENTS.map((d) => `${CODEBASE_DIR}/${d}.md`);
      return [{ id: 'map-codebase', agent: 'researcher', section: 'Codebase', title: 'a map of the codebase', writes: files, may: files }];
    }
  }
}

/** research-spec: a researcher per topic (SPEC_RESEARCHERS), then the synthesis of theirs. */
function researchSpecStages(): PlanningStage[] {
  const researchers: PlanningStage[] = SPEC_RESEARCHERS.map((r) => ({
    id: r.id,
    agent: 'researcher',
    section: r.section,
    title: `research: ${r.title}`,
    writes: [`${RESEARCH_DIR}/${r.file}`],
    may: [`${RESEARCH_DIR}/${r.file}`],
    research: true,
  }));
  return [
    ...researchers,
    {
      id: 'synthesis',
      agent: 'researcher',
      section: 'Synthesis',
      title: 'research: the synthesis',
      writes: [`${RESEARCH_DIR}/SUMMARY.md`],
      may: [`${RESEARCH_DIR}/SUMMARY.md`],
      research: true,
    },
  ];
}

/** discuss-phase: the context drawn from the answers once there are questions and answers, the questions until then. */
function discussPhaseStages(phase: string, discuss: DiscussState): PlanningStage[] {
  const paths = discussPaths(phase);
  if (discuss.questions && discuss.answers) {
    return [
      {
        id: 'context',
        agent: 'planner',
        section: 'Discussion',
        title: `the context of phase ${phase} from the answers`,
        writes: [paths.context],
        may: [paths.context],
      },
    ];
  }
  return [
    {
      id: 'questions',
      agent: 'planner',
      section: 'Questions',
      title: `questions about phase ${phase}`,
      writes: [paths.questions],
      may: [paths.questions],
    },
  ];
}

/** research-phase: the phase's research document. */
function researchPhaseStages(phase: string): PlanningStage[] {
  const path = phaseResearchPath(phase);
  return [
    {
      id: 'research-phase',
      agent: 'researcher',
      section: 'Phase',
      title: `research for phase ${phase}`,
      writes: [path],
      may: [path],
      research: true,
    },
  ];
}

/** plan-phase: the phase's plans, then the verifier's check of them. */
function planPhaseStages(phase: string): PlanningStage[] {
  return [
    {
      id: 'plan-phase',
      agent: 'planner',
      section: 'Plans',
      title: `the plans of phase ${phase}`,
      writes: [],
      writesSome: `planning/plans/${phase}-*/${phase}-*-PLAN.md`,
      may: [`planning/plans/${phase}-*/**`, `planning/plans/${phase}/**`],
    },
    // The plans, once they validate, are judged goal-backward by the verifier: its verdict is for the person reviewing them.
    {
      id: 'plans-check',
      agent: 'verifier',
      section: 'Plans check',
      title: `a check of the plans of phase ${phase}`,
      writes: [plansCheckPath(phase)],
      may: [plansCheckPath(phase)],
      verdict: true,
    },
  ];
}

/** The one-line subject of the command's commit. */
export function planningSubject(command: PlanningCommand, spec: string, stages: readonly PlanningStage[]): string {
  switch (command.name) {
    case 'plan-spec':
      return `plan ${spec}: PROJECT.md from SPEC.md`;
    case 'research-spec':
      return `plan ${spec}: research (stack, features, architecture, pitfalls, synthesis)`;
    case 'define-requirements':
      return `plan ${spec}: requirements`;
    case 'create-roadmap':
      return `plan ${spec}: roadmap`;
    case 'add-phase':
      return `plan ${spec}: add a phase to the roadmap`;
    case 'discuss-phase':
      return stages[0]?.id === 'context'
        ? `plan ${spec}: context of phase ${command.phase} from the discussion`
        : `plan ${spec}: questions about phase ${command.phase}`;
    case 'research-phase':
      return `plan ${spec}: research for phase ${command.phase}`;
    case 'plan-phase':
      return `plan ${spec}: plans of phase ${command.phase}`;
    case 'map-codebase':
      return `plan ${spec}: map of the codebase`;
  }
}
