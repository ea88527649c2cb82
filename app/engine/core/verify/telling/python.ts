import { earliest, prepare, type Found, type Recogniser } from './recogniser.js';

/**
 * pytest and Python tracebacks. pytest marks the error of a failing test with `E   ` (`E
 * psycopg2.errors.UndefinedTable: relation "orders" does not exist`, `E       assert 4 == 3`):
 * the first is the cause (in a chain of exceptions, the one the others wrap). Its short summary
 * (`FAILED tests/test_x.py::test_add - assert 4 == 3`, cut at the terminal's width) stands in
 * when no `E` line is there. A traceback outside pytest ends with its exception's line, the
 * first line after the frames that is not indented.
 */

const E_LINE = /^E {2,}(\S.*)$/;
const FAILED = /^(?:FAILED|ERROR) \S+::\S+ - \S/;
const TRACEBACK = /^Traceback \(most recent call last\):$/;
/** An exception's line: its (dotted) class, then its message. */
const EXCEPTION = /^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?::(?: .*)?)?$/;

function eLine(lines: readonly string[]): Found | undefined {
  for (let at = 0; at < lines.length; at++) {
    const m = E_LINE.exec(lines[at]!.trimEnd());
    if (m !== null) return { at, line: m[1]!.trim(), tool: 'pytest' };
  }
  return undefined;
}

function summary(lines: readonly string[]): Found | undefined {
  const at = lines.findIndex((l) => FAILED.test(l.trim()));
  return at < 0 ? undefined : { at, line: lines[at]!.trim(), tool: 'pytest' };
}

function traceback(lines: readonly string[]): Found | undefined {
  for (let start = 0; start < lines.length; start++) {
    if (!TRACEBACK.test(lines[start]!.trim())) continue;
    for (let at = start + 1; at < lines.length; at++) {
      const line = lines[at]!.trimEnd();
      if (line === '' || /^\s/.test(line)) continue;
      if (EXCEPTION.test(line) && /[A-Z]/.test(line.split(':')[0]!)) return { at, line, tool: 'python' };
      break;
    }
  }
  return undefined;
}

export const python: Recogniser = {
  name: 'python',
  find(output) {
    const lines = prepare(output);
    // The E line holds the whole message; the summary line is cut to the terminal's width.
    return eLine(lines) ?? earliest(traceback(lines), summary(lines));
  },
};
