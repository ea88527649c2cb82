import { renderTemplate, TemplateError } from '../../core/documents/render-template.js';
import { ReflectorError } from '../lessons/reflector.js';
import type { SkillCandidate } from './skill-candidate.js';
import { GATES, type Gate, type GateVerdict } from './skill-gates.js';

/**
 * The reflector agent as the gates' judge: it is shown the candidate and its evidence and
 * answers one line per gate. Its instructions are data (templates/agents/skill-judge.md, or the
 * repository's .github/harness/agents/skill-judge.md).
 */

function block(c: SkillCandidate): string {
  return [
    `Source: ${c.source} (${c.id})`,
    `Seen in: ${c.places.join('; ') || 'unknown'}`,
    `Title: ${c.title}`,
    `Failed attempts before it passed: ${c.facts.failedBefore}; failing tool calls and retries: ${c.facts.toolErrors}; verified in the run: ${c.facts.verified ? 'yes' : 'no'}`,
    `Error texts recorded: ${c.triggers.map((t) => `"${t}"`).join('; ') || 'none'}`,
    `Tags: ${c.tags.join(', ') || 'none'}`,
    '',
    '### Problem',
    c.problem || '(not recorded)',
    '',
    '### Root cause',
    c.rootCause || '(not recorded)',
    '',
    '### Solution',
    c.solution || '(not recorded)',
    '',
    '### Verification',
    c.verification || '(not recorded)',
  ].join('\n');
}

/** The prompt for one candidate: the instructions with `{{candidate}}` and `{{gates}}` filled in (or the facts appended). */
export function judgePrompt(instructions: string, source: string, c: SkillCandidate): string {
  const values = { candidate: block(c), gates: GATES.join(', ') };
  const used = /\{\{\s*(?:candidate|gates)\s*\}\}/.test(instructions);
  const text = used ? instructions : `${instructions.trimEnd()}\n\n## The candidate\n\n{{candidate}}\n`;
  try {
    return renderTemplate(text, {}, values);
  } catch (e) {
    if (e instanceof TemplateError) throw new ReflectorError(`${source}: ${e.message}; the judge's instructions may use {{candidate}} and {{gates}}`);
    throw e;
  }
}

const LINE = /^\s*(?:[-*]\s*)?`?([a-z-]+)`?\s*:\s*(PASS|FAIL)\b\s*(?:[-—–:]\s*)?(.*)$/;

/**
 * The agent's verdicts, strictly: exactly one line `<gate>: PASS|FAIL — <reason>` for each of
 * the four gates, each with a reason, no gate twice and no other gate. Anything else in the
 * answer (a preamble, a code fence) is ignored; a missing, repeated or reasonless gate makes
 * the whole answer unreadable, so that a half answer never extracts a skill.
 */
export function parseVerdicts(answer: string): GateVerdict[] | { problem: string } {
  const found = new Map<Gate, GateVerdict>();
  for (const line of answer.replace(/\r\n?/g, '\n').split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const gate = m[1]! as Gate;
    if (!GATES.includes(gate)) return { problem: `it names a gate "${m[1]}"; the gates are ${GATES.join(', ')}` };
    if (found.has(gate)) return { problem: `it judges ${gate} twice` };
    const reason = m[3]!.trim();
    if (reason === '') return { problem: `its ${gate} verdict gives no reason` };
    found.set(gate, { gate, pass: m[2] === 'PASS', reason });
  }
  const missing = GATES.filter((g) => !found.has(g));
  if (missing.length > 0) return { problem: `it gives no verdict for ${missing.join(', ')} (each gate on a line of its own: "<gate>: PASS — <reason>")` };
  return GATES.map((g) => found.get(g)!);
}
