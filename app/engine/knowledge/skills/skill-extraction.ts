import type { Reflector } from '../lessons/reflector.js';
import type { SkillCandidate } from './skill-candidate.js';
import { findDuplicate, type KnownEntry } from './skill-dedup.js';
import { renderSkill, skillName } from './skill-document.js';
import { blockedBy, heuristicVerdicts, type GateVerdict } from './skill-gates.js';
import { judgePrompt, parseVerdicts } from './skill-judge.js';

/** What became of one candidate. */
export interface Extraction {
  candidate: SkillCandidate;
  verdicts: GateVerdict[];
  /** `harness` (its rules) or the reflector agent's name. */
  judgedBy: string;
  /** Why the agent's verdicts were not used, when it was asked and its answer could not be read. */
  judgeProblem?: string;
  decision: 'extracted' | 'skipped' | 'linked';
  /** The one line a person reads: the blocking gate's reason, the duplicate, or where it was written. */
  reason: string;
  /** The skill's name (extracted), or the name it would have had. */
  name: string;
  /** Extracted: `skills/<name>/SKILL.md` and its text. */
  path?: string;
  text?: string;
  /** Linked: the entry it duplicates. */
  duplicate?: KnownEntry;
}

export interface ExtractionInput {
  candidates: readonly SkillCandidate[];
  /** Lessons, skills (active and archived) and decisions in the store, and skills proposed in open PRs. */
  known: readonly KnownEntry[];
  /** templates/skill/SKILL.md. */
  template: string;
  /** The extraction day, YYYY-MM-DD, from the caller's clock. */
  day: string;
  /** The reflector agent as judge, with its instructions; without it, harness's rules judge. */
  judge?: { agent: Reflector; instructions: string; source: string };
}

async function verdictsFor(input: ExtractionInput, c: SkillCandidate): Promise<Pick<Extraction, 'verdicts' | 'judgedBy' | 'judgeProblem'>> {
  if (!input.judge) return { verdicts: heuristicVerdicts(c), judgedBy: 'harness' };
  let answer: string;
  try {
    answer = await input.judge.agent.write(judgePrompt(input.judge.instructions, input.judge.source, c));
  } catch (e) {
    return { verdicts: heuristicVerdicts(c), judgedBy: 'harness', judgeProblem: `the ${input.judge.agent.name} judge failed: ${(e as Error).message}` };
  }
  const parsed = parseVerdicts(answer);
  if ('problem' in parsed)
    return {
      verdicts: heuristicVerdicts(c),
      judgedBy: 'harness',
      judgeProblem: `the ${input.judge.agent.name} judge's answer could not be read: ${parsed.problem}`,
    };
  return { verdicts: parsed, judgedBy: input.judge.agent.name };
}

/**
 * Each candidate through the four gates (skill-gates.ts): any FAIL skips it, with every failing
 * gate's reason; a pass that duplicates a known lesson, skill (active, proposed or archived)
 * or decision is linked to it; the rest are extracted as `skills/<name>/SKILL.md`. Candidates
 * extracted in this same run count as known to the ones after them.
 */
export async function extractSkills(input: ExtractionInput): Promise<Extraction[]> {
  const known = [...input.known];
  const taken = new Set(known.filter((k) => k.kind === 'skill' || k.kind === 'archived-skill').map((k) => k.name));
  const out: Extraction[] = [];
  for (const c of input.candidates) {
    const judged = await verdictsFor(input, c);
    const name = skillName(c, new Set());
    if (blockedBy(judged.verdicts)) {
      const failed = judged.verdicts.filter((v) => !v.pass);
      out.push({ candidate: c, ...judged, decision: 'skipped', reason: failed.map((v) => `${v.gate}: ${v.reason}`).join('; '), name });
      continue;
    }
    const duplicate = findDuplicate(c, name, known);
    if (duplicate) {
      out.push({
        candidate: c,
        ...judged,
        decision: 'linked',
        reason: `a duplicate of ${duplicate.entry.kind} ${duplicate.entry.path}: ${duplicate.why}`,
        name,
        duplicate: duplicate.entry,
      });
      continue;
    }
    const unique = skillName(c, taken);
    taken.add(unique);
    const path = `skills/${unique}/SKILL.md`;
    const text = renderSkill({ candidate: c, name: unique, verdicts: judged.verdicts, judgedBy: judged.judgedBy, day: input.day, template: input.template });
    known.push({ path, kind: 'skill', name: unique, text: [c.title, ...c.triggers, c.problem].join('\n'), evidence: c.evidence });
    out.push({ candidate: c, ...judged, decision: 'extracted', reason: `all four gates pass; written as ${path}`, name: unique, path, text });
  }
  return out;
}
