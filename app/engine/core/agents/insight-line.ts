import { InsightSchema, type Insight } from '../protocol/messages.js';

/**
 * How an agent without the protocol (Claude Code in print mode) reports an insight: a line of
 * its final text
 *
 *     HARNESS_INSIGHT {"kind":"pattern","summary":"The SQLite tests need a fresh file per test","tags":["sqlite","testing"]}
 *
 * anywhere in it, as many as it has. A command that speaks the protocol writes the `insight`
 * message itself. Either way it becomes an `innovation` or `pattern` signal.
 */

export const INSIGHT_MARKER = 'HARNESS_INSIGHT';

export interface InsightLines {
  insights: Insight[];
  /** Lines that carried the marker but not a valid insight, with why: reported, not guessed at. */
  problems: string[];
  /** The text without the insight lines. */
  text: string;
}

/** The insight lines of an agent's final text. */
export function findInsightLines(result: string): InsightLines {
  const insights: Insight[] = [];
  const problems: string[] = [];
  const kept: string[] = [];
  for (const raw of result.replace(/\r\n/g, '\n').split('\n')) {
    // Agents like to wrap such lines in backticks; accept that, but nothing else around it.
    const line = raw
      .trim()
      .replace(/^`+|`+$/g, '')
      .trim();
    if (!line.startsWith(`${INSIGHT_MARKER} `)) {
      kept.push(raw);
      continue;
    }
    const json = line.slice(INSIGHT_MARKER.length).trim();
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      problems.push(`${INSIGHT_MARKER} is not followed by JSON: ${json.slice(0, 200)}`);
      continue;
    }
    const parsed = InsightSchema.safeParse(value);
    if (parsed.success) insights.push(parsed.data);
    else {
      const issue = parsed.error.issues[0]!;
      problems.push(`${INSIGHT_MARKER} JSON is invalid at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
  }
  return { insights, problems, text: kept.join('\n').trim() };
}

/** The part of a brief that tells the agent how to report an insight, for the way it talks. */
export function insightInstructions(mode: 'line' | 'protocol' | 'none'): string[] {
  if (mode === 'none') return [];
  const how =
    mode === 'line'
      ? [
          `put one line in your final message for each, exactly:`,
          '',
          `    ${INSIGHT_MARKER} {"kind":"pattern","summary":"The form tests must wait for the page to settle","tags":["forms","testing"]}`,
        ]
      : [
          'write one line of JSON on stdout for each:',
          '',
          '    {"type":"insight","session":"…","at":"…","plan":"…","insight":{"kind":"pattern","summary":"The form tests must wait for the page to settle","tags":["forms","testing"]}}',
        ];
  return [
    '## What you learned',
    '',
    'If you found something the next plans should know (a better way to do a thing: `innovation`; a problem or a fix you saw recur: `pattern`), ' + how[0]!,
    ...how.slice(1),
    '',
    '`summary` is one line; `detail` and `tags` (single words) are optional. Only what is worth reading again: it is reviewed before anyone relies on it.',
  ];
}
