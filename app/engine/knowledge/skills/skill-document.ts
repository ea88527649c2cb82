import { renderTemplate } from '../../core/documents/render-template.js';
import { formatCondition } from '../documents/conditions.js';
import { failureSignature } from '../signals/signature.js';
import type { SkillCandidate } from './skill-candidate.js';
import type { GateVerdict } from './skill-gates.js';

/** The Agent Skills format's limits (agentskills.io): the name, the description. */
export const SKILL_NAME_MAX = 64;
export const SKILL_DESCRIPTION_MAX = 1024;

/** Words a name does without. */
const FILLER = new Set(['the', 'a', 'an', 'of', 'in', 'on', 'at', 'to', 'is', 'was', 'for', 'and', 'or', 'with', 'when', 'failed', 'check', 'plan', 'error']);

/**
 * A skill name from what triggers it: the first words of its failure signature (else of its
 * first error text and its title, masked the same way: numbers, dates, ids, paths and ports
 * are no part of a name), lowercase a-z0-9 joined by single hyphens, at most 64 characters,
 * cut at a word. A name that is taken gets `-2`, `-3`…
 */
export function skillName(c: SkillCandidate, taken: ReadonlySet<string>): string {
  const masked = (text: string | undefined) => (failureSignature(text) ?? '').replace(/<[a-z]+>/g, ' ');
  const source = `${masked(c.signature ?? c.triggers[0])} ${masked(c.title)}`;
  const parts = source
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    // A word that starts with a digit is what is left of a number, a date or an id.
    .filter((w) => w.length > 1 && !FILLER.has(w) && !/^\d/.test(w));
  const unique = [...new Set(parts)].slice(0, 6);
  let base = '';
  for (const w of unique) {
    const next = base === '' ? w : `${base}-${w}`;
    if (next.length > SKILL_NAME_MAX - 3) break;
    base = next;
  }
  if (base === '') base = `skill-${c.source}`;
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
  return name;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The fix as the description and the brief carry it: its first paragraph, one line. */
function fixLine(c: SkillCandidate): string {
  return (c.solution.split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * A description written for retrieval and read whole: "When <error> appears → <fix>", the fix
 * whole (never cut: a fix without its end misleads), then "Use when" with the other error
 * texts and the technologies. The error texts give way first when the 1,024 characters run
 * short; a fix longer than the description can hold is pointed to in the Solution section.
 */
export function skillDescription(c: SkillCandidate): string {
  const fix = fixLine(c);
  const errors = c.triggers.map((t) => `"${clip(t.replace(/\s+/g, ' ').replace(/"/g, "'"), 200)}"`);
  const tech = c.tags.slice(0, 6).join(', ');
  const head = errors[0] !== undefined ? `When ${errors[0]} appears` : clip(c.title.replace(/\s+/g, ' ').trim().replace(/\.$/, ''), 300);
  const room = SKILL_DESCRIPTION_MAX - head.length - 4;
  const body = fix === '' ? '' : fix.length <= room ? ` → ${fix.replace(/\.?$/, '.')}` : ' → the fix is in the Solution section (too long to quote here).';
  let out = `${head}${body || '.'}`;
  const more = errors.slice(1, 3);
  for (const use of [
    more.length > 0 && tech ? `Use when ${more.join(' or ')} appears, working with ${tech}.` : '',
    tech ? `Use when working with ${tech}.` : '',
    more.length > 0 ? `Use when ${more.join(' or ')} appears.` : '',
  ]) {
    if (use !== '' && out.length + 1 + use.length <= SKILL_DESCRIPTION_MAX) {
      out = `${out} ${use}`;
      break;
    }
  }
  return out;
}

function bullets(items: readonly string[]): string {
  return items.map((i) => `- ${i.replace(/\n+/g, ' ')}`).join('\n');
}

export interface SkillDraftInput {
  candidate: SkillCandidate;
  name: string;
  verdicts: readonly GateVerdict[];
  /** Who judged the gates: `harness` (its rules) or the reflector agent's name. */
  judgedBy: string;
  /** The day it is extracted (YYYY-MM-DD), from the caller's clock. */
  day: string;
  /** templates/skill/SKILL.md, handed in by the caller. */
  template: string;
}

/** The candidate as a SKILL.md that validates: the template's eight sections, harness's facts under metadata. */
export function renderSkill(input: SkillDraftInput): string {
  const c = input.candidate;
  const failing = c.triggers.length > 0 ? c.triggers : [];
  const antiPatterns: string[] = [];
  if (c.facts.failedBefore > 0)
    antiPatterns.push(
      `Trying again unchanged: ${c.facts.failedBefore === 1 ? 'an attempt' : `${c.facts.failedBefore} attempts`} failed before the fix${failing[0] ? ` with "${failing[0]}"` : ''}.`,
    );
  if (c.source === 'lesson') antiPatterns.push("Working around the symptom without the recommendation above: the lesson's evidence shows it recurring.");
  antiPatterns.push('Applying this where the trigger conditions do not hold: the fix answers this cause only.');
  const frontmatter = {
    name: input.name,
    description: skillDescription(c),
    metadata: {
      version: '1.0.0',
      ...(c.spec ? { 'extracted-from': `${c.spec}${c.plan ? `/${c.plan}` : ''}` } : {}),
      'extracted-on': input.day,
      source: c.source,
      'judged-by': input.judgedBy,
      ...(c.tags.length > 0 ? { tags: c.tags.join(' ') } : {}),
      // The errors it is about and when it applies, as surfacing reads them (metadata values are text: one per line, `;` between conditions).
      ...(c.signature !== undefined ? { signatures: c.signature } : {}),
      ...(c.conditions && c.conditions.length > 0 ? { 'applies-when': c.conditions.map(formatCondition).join('; ') } : {}),
    },
  };
  const values: Record<string, string> = {
    title: c.title.replace(/\s+/g, ' ').trim(),
    problem: c.problem.trim() || c.title,
    triggers: bullets(failing.length > 0 ? failing.map((t) => `"${t}"`) : [c.title]),
    root_cause: c.rootCause.trim() || 'Not recorded in the evidence; the reviewer should state it before merging.',
    solution:
      c.solution.trim() ||
      `What the passing attempt changed is in the commits of ${c.spec ?? 'the spec'}${c.plan ? ` plan ${c.plan}` : ''}; harness drafted this skill from the signals, which do not record the change itself.`,
    verification: [
      c.verification.trim(),
      '',
      'The gates, when it was extracted:',
      bullets(input.verdicts.map((v) => `${v.gate}: ${v.pass ? 'PASS' : 'FAIL'} (${v.reason})`)),
    ]
      .filter((l, i) => i > 0 || l !== '')
      .join('\n'),
    anti_patterns: bullets(antiPatterns),
    related: bullets(c.evidence.map((e) => `\`${e}\``)),
    changelog: bullets([`1.0.0 (${input.day}): extracted from ${c.source} ${c.id}; gates judged by ${input.judgedBy}`]),
  };
  return renderTemplate(input.template, frontmatter, values);
}
