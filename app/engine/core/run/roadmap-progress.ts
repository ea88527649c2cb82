import type { Spec } from '../spec/model.js';
import type { RunSnapshot } from './snapshot.js';

const START = '<!-- harness:progress:start -->';
const END = '<!-- harness:progress:end -->';
const CHECKBOX = /^(\s*[-*] \[)([ xX])(\]\s+\**)(\d{2,}-\d{2,})\b/;

/**
 * ROADMAP.md with its checkboxes ticked for verified plans. Boxes the author wrote
 * ("- [ ] 01-02 ...") are ticked in place; plans without a box of their own are listed in
 * a generated block between markers, which is rewritten each time. Nothing else changes.
 */
export function updateRoadmapProgress(text: string, spec: Spec, snapshot: RunSnapshot): string {
  const seen = new Set<string>();
  const lines = text.split('\n');
  let inBlock = false;
  const kept: string[] = [];
  for (const line of lines) {
    if (line.trim() === START) {
      inBlock = true;
      continue;
    }
    if (line.trim() === END) {
      inBlock = false;
      continue;
    }
    if (inBlock) continue;
    const m = CHECKBOX.exec(line);
    if (m && spec.planById.has(m[4]!)) {
      seen.add(m[4]!);
      const mark = snapshot.plans.get(m[4]!) === 'verified' ? 'x' : ' ';
      kept.push(line.replace(CHECKBOX, `$1${mark}$3$4`));
    } else kept.push(line);
  }
  while (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
  const missing = spec.plans.filter((p) => !seen.has(p.id));
  if (missing.length === 0) return `${kept.join('\n')}\n`;
  const block: string[] = [START];
  for (const phase of spec.phases) {
    const plans = phase.plans.filter((id) => missing.some((p) => p.id === id));
    if (plans.length === 0) continue;
    const state = snapshot.phases.get(phase.id);
    block.push(`### Phase ${phase.id}: ${phase.title}${state === 'verified' ? ' ✓' : state === 'failed' ? ' ✗' : ''}`, '');
    for (const id of plans) {
      block.push(`- [${snapshot.plans.get(id) === 'verified' ? 'x' : ' '}] ${id} ${spec.planById.get(id)!.title}`);
    }
    block.push('');
  }
  block.push(END);
  return `${kept.join('\n')}\n\n${block.join('\n')}\n`;
}
