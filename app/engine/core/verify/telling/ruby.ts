import { prepare, type Recogniser } from './recogniser.js';

/**
 * RSpec and Ruby's own errors. RSpec prints a failure as its number and name, the code that
 * failed (`Failure/Error: expect(order.total).to eq(10)`) and then what went wrong: an
 * exception's class and message on two lines (`NameError:` / `uninitialized constant User`,
 * joined), or an expectation's words (`expected: 10` / `got: 0` / `(compared using ==)`,
 * joined). The code is not the cause: it differs in every spec. An uncaught Ruby error is
 * `app.rb:3:in 'total': undefined method 'sum' for nil (NoMethodError)`.
 */

const FAILURE_ERROR = /^Failure\/Error: /;
/** Where the message ends: the backtrace (`# ./spec/x_spec.rb:5:in …`), or the next failure. */
const MESSAGE_END = /^(?:# \S|\d+\) )/;
const EXCEPTION_CLASS = /^(?:[A-Z]\w*::)*[A-Z]\w*:$/;
const RUBY_ERROR = /^\S+\.rb:\d+:in [`'][^`']*': \S.* \((?:[A-Z]\w*::)*[A-Z]\w*\)$/;

export const ruby: Recogniser = {
  name: 'ruby',
  find(output) {
    const lines = prepare(output);
    for (let at = 0; at < lines.length; at++) {
      const line = lines[at]!.trim();
      if (RUBY_ERROR.test(line)) return { at, line, tool: 'ruby' };
      if (!FAILURE_ERROR.test(line)) continue;
      const words: string[] = [];
      let first: number | undefined;
      for (let i = at + 1; i < lines.length && words.length < 4; i++) {
        const text = lines[i]!.trim();
        if (MESSAGE_END.test(text)) break;
        if (text === '') {
          // A blank line after an exception's message: the source excerpt follows.
          if (words.length > 0 && EXCEPTION_CLASS.test(words[0]!) && words.length > 1) break;
          continue;
        }
        if (/^\^+$/.test(text)) break;
        first ??= i;
        words.push(text);
      }
      if (first === undefined) continue;
      const said = EXCEPTION_CLASS.test(words[0]!) && words.length > 1 ? `${words[0]!} ${words[1]!}` : words.join(' ');
      return { at: first, line: said, tool: 'rspec' };
    }
    return undefined;
  },
};
