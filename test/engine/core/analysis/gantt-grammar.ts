/**
 * The subset of Mermaid's gantt grammar harness writes (engine/core/analysis/timeline.ts): a
 * chart that passes renders as Mermaid's own parser reads it (gantt-render.test.ts checks that
 * against the parser itself).
 */

/** Every line after the header is a section or a task: `name :tags, start, end`, the name free of `:`, `;` and `#`. */
export function ganttProblems(text: string): string[] {
  const [first, ...rest] = text.trimEnd().split('\n');
  const problems = first === 'gantt' ? [] : [`first line: ${first}`];
  const date = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d';
  const task = new RegExp(`^  [^:;#\\n]+ :(?:(?:crit|done|active), )*${date}, ${date}$`);
  for (const line of rest) {
    if (
      /^ {2}title [^:;#]+$/.test(line) ||
      line === '  dateFormat YYYY-MM-DDTHH:mm:ss' ||
      /^ {2}axisFormat %H:%M(:%S)?$/.test(line) ||
      /^ {2}section [^:;#]+$/.test(line) ||
      task.test(line)
    )
      continue;
    problems.push(line);
  }
  return problems;
}
