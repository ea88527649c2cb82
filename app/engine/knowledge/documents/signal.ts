import type { DocumentContext, DocumentRules } from '../../core/documents/parse-with.js';
import { planPhase } from '../../core/spec/model.js';
import { problem, type Problem } from '../../core/spec/problem.js';
import { SIGNAL_HINTS } from './hints.js';
import { SIGNAL_TYPES, SignalSchema, type Signal } from './schema.js';

const FILE_TYPE = /-([a-z]+)\.signal\.md$/;

/** A signal: what happened, noted where it happened, for reflection to read later. */
export const signalRules: DocumentRules<typeof SignalSchema> = {
  schema: SignalSchema,
  template: 'templates/signal.md',
  hints: SIGNAL_HINTS,
  sections: ['What happened'],
  check: checkSignal,
};

function checkSignal({ file, data, lines }: DocumentContext<Signal>): Problem[] {
  const problems: Problem[] = [];
  if (data.plan !== undefined && data.phase !== undefined && planPhase(data.plan) !== data.phase) {
    problems.push(
      problem(file, lines.lineOf(['phase']), 'field-value', `phase is "${data.phase}" but plan ${data.plan} belongs to phase ${planPhase(data.plan)}`),
    );
  }
  const named = FILE_TYPE.exec(file)?.[1];
  if (named !== undefined && (SIGNAL_TYPES as readonly string[]).includes(named) && named !== data.type) {
    problems.push(
      problem(
        file,
        lines.lineOf(['type']),
        'field-value',
        `type is ${data.type} but the file name says ${named}; signals are named <timestamp>-<type>.signal.md`,
      ),
    );
  }
  return problems;
}
