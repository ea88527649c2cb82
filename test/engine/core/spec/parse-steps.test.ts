import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Step } from '../../../../app/engine/core/spec/model.js';
import { parseSteps } from '../../../../app/engine/core/spec/plan.js';
const FENCE = /^(```+|~~~+)[ \t]*([A-Za-z0-9_+-]+)[ \t]+step\b[ \t]*(.*)$/;
/** The straightforward reading: every line split out, each fence found by startsWith. */
function byLines(body: string, bodyLine: number): Step[] {
  const steps: Step[] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const content: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.startsWith(fence[0]!.repeat(fence.length))) content.push(lines[j++]!);
    steps.push({ title: open[3]!.trim() || `Step ${steps.length + 1}`, lang: open[2]!, script: content.join('\n'), line: bodyLine + i });
    i = j;
  }
  return steps;
}
describe('parseSteps', () => {
  it('reads the same steps as splitting the body into lines does, on generated bodies', () => {
    const piece = fc.constantFrom(
      '```sh step A',
      '```',
      '````',
      '~~~ bash step',
      '~~~',
      '```sh step',
      'x',
      '',
      ' ```sh step q',
      '````sh step z',
      '\n',
      'echo hi',
      '```js',
      '\t',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.constantFrom('\n', '', 'a'), (parts, tail) => {
        const body = parts.join('\n') + tail;
        expect(parseSteps(body, 5)).toEqual(byLines(body, 5));
      }),
      { numRuns: 3000 },
    );
  });
});
